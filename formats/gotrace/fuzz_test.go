package gotrace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/gotracy/gotracy/tracefile"
)

// FuzzImport feeds arbitrary bytes to the importer: it must return a trace,
// an *Error, or both (the part decoded before the error), never panic, and
// any trace it returns must be one the .tracy writer accepts.
func FuzzImport(f *testing.F) {
	if b, err := os.ReadFile("testdata/small.trace"); err == nil {
		f.Add(b[:min(len(b), 4096)])
		f.Add(b[:min(len(b), 300)])
	}
	f.Add([]byte("go 1.26 trace\x00\x00\x00"))
	f.Add([]byte("go 1.22 trace\x00\x00\x00\x00\x01\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Import(bytes.NewReader(data), ImportOptions{})
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
		}
		if tr == nil {
			if err == nil {
				t.Fatal("no trace and no error")
			}
			return
		}
		if err := tracefile.WritePayload(io.Discard, tr); err != nil {
			t.Fatalf("imported trace is not writable: %v", err)
		}
	})
}
