package tracefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/tracefile/container"
)

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	tr := genTrace(12, 20000)
	zst := filepath.Join(dir, "zstd.tracy")
	lz4 := filepath.Join(dir, "lz4.tracy")
	if err := WriteFile(zst, tr, WithStreams(3)); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(lz4, tr, WithLZ4()); err != nil {
		t.Fatal(err)
	}
	v, err := Verify(zst)
	if err != nil || !v.PayloadOK || v.Chunks < 3 || v.ChunksRead != v.Chunks || v.ChecksummedChunks != v.Chunks || v.Compression != "Zstd" || v.Streams != 3 || v.Version != Version {
		t.Fatalf("intact zstd file: %+v, %v", v, err)
	}
	v, err = Verify(lz4)
	if err != nil || !v.PayloadOK || v.ChecksummedChunks != 0 || v.Unchecksummed() != v.Chunks {
		t.Fatalf("intact lz4 file: %+v, %v", v, err)
	}

	// A changed byte in the third chunk: the chunks before it are counted
	// good, the error names chunk 2.
	b, _ := os.ReadFile(zst)
	off := 6
	for range 2 {
		off += 4 + int(uint32(b[off])|uint32(b[off+1])<<8|uint32(b[off+2])<<16)
	}
	b[off+20] ^= 0x10
	bad := filepath.Join(dir, "bad.tracy")
	os.WriteFile(bad, b, 0o644)
	v, err = Verify(bad)
	var ce *container.CorruptError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &ce) || ce.Chunk != 2 || v.ChunksRead != 2 || v.ChecksummedChunks != 2 || v.PayloadOK {
		t.Fatalf("changed chunk 2: %+v, %v", v, err)
	}

	// Bytes after the end of the trace in a well-formed container.
	p := payloadOf(t, tr)
	var buf bytes.Buffer
	cw, _ := container.NewWriter(&buf)
	cw.Write(append(p, "extra"...))
	cw.Close()
	os.WriteFile(bad, buf.Bytes(), 0o644)
	if v, err = Verify(bad); !errors.Is(err, ErrCorrupt) || v.PayloadOK {
		t.Fatalf("trailing payload bytes: %+v, %v", v, err)
	}
	if _, err := Verify(filepath.Join(dir, "missing.tracy")); err == nil {
		t.Fatal("missing file verified")
	}
}

// TestVerifyFixtures: Tracy's own files are intact and carry no checksum.
func TestVerifyFixtures(t *testing.T) {
	for _, name := range []string{"demo.tracy", "heavy1m.tracy"} {
		v, err := Verify(fixtures.Path(t, name))
		if err != nil || !v.PayloadOK || v.ChunksRead != v.Chunks || v.ChecksummedChunks != 0 {
			t.Errorf("%s: %+v, %v", name, v, err)
		}
	}
}
