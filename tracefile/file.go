package tracefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile/container"
)

// containerError gives a container error the sentinels of this package
// while keeping the container's own chain (and its message).
type containerError struct {
	sentinel error
	err      error
}

func (e *containerError) Error() string   { return e.err.Error() }
func (e *containerError) Unwrap() []error { return []error{e.sentinel, e.err} }

func mapContainerErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, container.ErrNotTrace):
		return &containerError{ErrNotTrace, err}
	case errors.Is(err, container.ErrCorrupt):
		return &containerError{ErrCorrupt, err}
	}
	return err
}

// errReader maps the container's errors while the payload is read.
type errReader struct{ r io.Reader }

func (e errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		err = mapContainerErr(err)
	}
	return n, err
}

// blockErrReader is errReader over a container Reader, which the payload
// decoder reads a block at a time without copying.
type blockErrReader struct{ r *container.Reader }

func (e blockErrReader) Read(p []byte) (int, error) { return errReader{e.r}.Read(p) }

func (e blockErrReader) NextBlock() ([]byte, error) {
	b, err := e.r.NextBlock()
	if err != nil && err != io.EOF {
		err = mapContainerErr(err)
	}
	return b, err
}

// ReadFile loads a .tracy file (memory-mapped where the OS allows).
func ReadFile(path string, opts ...Option) (*model.Trace, error) {
	start := time.Now()
	cr, err := container.Open(path)
	if err != nil {
		return nil, mapContainerErr(err)
	}
	defer cr.Close()
	t, err := readContainer(cr, start, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Read loads a .tracy file of size bytes from r.
func Read(r io.ReaderAt, size int64, opts ...Option) (*model.Trace, error) {
	start := time.Now()
	cr, err := container.NewReader(r, size)
	if err != nil {
		return nil, mapContainerErr(err)
	}
	defer cr.Close()
	return readContainer(cr, start, opts)
}

func readContainer(cr *container.Reader, start time.Time, opts []Option) (*model.Trace, error) {
	o := newOptions(opts)
	var rep Report
	inner := append(opts[:len(opts):len(opts)], WithReport(&rep))
	t, err := ReadPayload(blockErrReader{cr}, cr.PayloadSizeBound(), inner...)
	if err != nil {
		return nil, err
	}
	if o.report != nil {
		h := cr.Header()
		rep.Compression = h.Compression.String()
		rep.Streams = h.Streams
		rep.FileBytes = cr.Size()
		rep.Duration = time.Since(start)
		*o.report = rep
	}
	return t, nil
}

func (o *options) containerOptions() []container.WriteOption {
	var co []container.WriteOption
	switch {
	case o.lz4:
		co = append(co, container.WithLZ4())
	case o.zstd != 0:
		co = append(co, container.WithZstd(o.zstd))
	default:
		co = append(co, container.WithZstd(3))
	}
	if o.streams != 0 {
		co = append(co, container.WithStreams(o.streams))
	}
	return co
}

// Write saves t as a .tracy file (version 0.14.0) to w: Zstd level 3 with 4
// streams unless options say otherwise, as tracy-capture writes, but with
// every Zstd chunk a checksummed frame of its own, so a damaged file fails
// to load (and `gotracy info --verify` names the chunk) instead of loading
// altered data; Tracy reads these files as its own.
func Write(w io.Writer, t *model.Trace, opts ...Option) error {
	start := time.Now()
	o := newOptions(opts)
	cw, err := container.NewWriter(w, o.containerOptions()...)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidTrace, err)
	}
	var rep Report
	inner := append(opts[:len(opts):len(opts)], WithReport(&rep))
	if err := WritePayload(cw, t, inner...); err != nil {
		cw.Close()
		return err
	}
	if err := cw.Close(); err != nil {
		return err
	}
	if o.report != nil {
		payload, file := cw.Stats()
		rep.PayloadBytes, rep.FileBytes = payload, file
		rep.Compression = "Zstd"
		if o.lz4 {
			rep.Compression = "LZ4"
		}
		rep.Streams = o.streams
		if rep.Streams == 0 {
			rep.Streams = 4
		}
		rep.Version = Version
		rep.Duration = time.Since(start)
		*o.report = rep
	}
	return nil
}

// WriteFile saves t to path atomically: it writes a temporary file beside
// it and renames it over path only when the whole file is written.
func WriteFile(path string, t *model.Trace, opts ...Option) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = Write(f, t, opts...); err != nil {
		return err
	}
	// CreateTemp makes the file private; a saved trace is an ordinary file.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
