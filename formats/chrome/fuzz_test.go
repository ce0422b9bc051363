package chrome

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/gotracy/gotracy/tracefile"
)

// FuzzImport feeds arbitrary bytes to the importer: it must return a trace
// or a *SyntaxError, never panic, and a trace it returns must be one the
// .tracy writer accepts.
func FuzzImport(f *testing.F) {
	if b, err := os.ReadFile("testdata/golden.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`[{"ph":"X","name":"a","ts":1,"dur":2,"tid":1}]`))
	f.Add([]byte(`{"traceEvents":[{"ph":"B","name":"a","ts":1,"tid":1,"args":{"x":[1,{"y":null}]}},{"ph":"E","ts":2,"tid":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Import(bytes.NewReader(data), ImportOptions{})
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
			}
			if se.Offset < 0 || se.Offset > int64(len(data)) {
				t.Fatalf("error offset %d outside the %d-byte input", se.Offset, len(data))
			}
			return
		}
		if err := tracefile.WritePayload(io.Discard, tr); err != nil {
			t.Fatalf("imported trace is not writable: %v", err)
		}
	})
}
