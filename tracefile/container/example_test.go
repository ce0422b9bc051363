package container_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/gotracy/gotracy/tracefile/container"
)

// Compress a payload into a container and read it back. Any byte stream
// works here; in a .tracy file the payload is the serialized trace package
// tracefile writes.
func Example() {
	payload := bytes.Repeat([]byte("tracy payload "), 20_000) // 280,000 bytes: five 64 KiB blocks

	var file bytes.Buffer
	w, err := container.NewWriter(&file, container.WithZstd(3), container.WithStreams(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := w.Write(payload); err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Close(); err != nil { // the file is incomplete until Close
		fmt.Println(err)
		return
	}

	r, err := container.NewReaderBytes(file.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	back, err := io.ReadAll(r)
	if err != nil {
		fmt.Println(err)
		return
	}
	h := r.Header()
	fmt.Println(h.Compression, h.Streams, "streams,", r.Chunks(), "chunks")
	fmt.Println(bytes.Equal(back, payload), file.Len() < len(payload)/100)
	// Output:
	// Zstd 2 streams, 5 chunks
	// true true
}
