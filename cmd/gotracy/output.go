package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// outputFault, when set (tests only), wraps the writer of every output, so
// a test can make the disk fill up halfway through a save.
var outputFault func(io.Writer) io.Writer

// writeOutput writes an output file atomically, only over a regular file,
// and only over an existing one with -f (force); see internal/fileio.
func writeOutput(ctx context.Context, path string, force bool, write func(io.Writer) error) error {
	return fileio.WriteFile(ctx, path, force, func(w io.Writer) error {
		if outputFault != nil {
			w = outputFault(w)
		}
		return write(w)
	})
}

// saveTrace writes a .tracy output.
func saveTrace(ctx context.Context, path string, force bool, t *model.Trace, opts ...tracefile.Option) error {
	err := writeOutput(ctx, path, force, func(w io.Writer) error { return tracefile.Write(w, t, opts...) })
	if err != nil {
		var in *interrupted
		var nr *fileio.NotRegularError
		var ex *fileio.ExistsError
		if errors.As(err, &in) || errors.As(err, &nr) || errors.As(err, &ex) {
			return err
		}
		return fmt.Errorf("saving %s: %w (nothing was written)", path, err)
	}
	return nil
}

// openInput opens a file a command reads, refusing what is not a regular
// file ("-" is standard input, for the commands that stream).
func openInput(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	return fileio.OpenInput(path)
}

// wrongKindError is a file of one known kind given where another is
// needed: a .tracy to dump, a recording to info.
type wrongKindError struct {
	path, is, want, hint string
}

func (e *wrongKindError) Error() string {
	return fmt.Sprintf("%s is %s, not %s: %s", e.path, e.is, e.want, e.hint)
}

const (
	kindUnknown = iota
	kindTrace
	kindRecording
)

// sniff tells a .tracy file from a recorded client stream by their first
// bytes: one of the container magics, or status byte 1 and a welcome.
func sniff(path string) int {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return kindUnknown
	}
	defer f.Close()
	var b [1 + protocol.WelcomeSize]byte
	n, _ := io.ReadFull(f, b[:])
	return sniffBytes(b[:n])
}

func sniffBytes(b []byte) int {
	for _, m := range [][]byte{{'t', 'r', 0xFD, 'P'}, {'t', 'l', 'Z', 4}, {'t', 'Z', 's', 't'}} {
		if bytes.HasPrefix(b, m) {
			return kindTrace
		}
	}
	if len(b) == 1+protocol.WelcomeSize && b[0] == byte(protocol.HandshakeWelcome) {
		var w protocol.Welcome
		if w.UnmarshalBinary(b[1:]) == nil && w.TimerMul > 0 && !math.IsInf(w.TimerMul, 0) {
			return kindRecording
		}
	}
	return kindUnknown
}
