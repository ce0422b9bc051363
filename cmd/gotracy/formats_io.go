package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// The export, import and merge commands share these helpers: inputs must be
// regular files (a FIFO or device would block or never end), outputs are
// written to a temporary file beside the target and renamed over it only
// when complete, never over anything but a regular file, and over an
// existing file only when forced.

// errOutputExists is returned when the output exists and -f/--force is not
// given.
var errOutputExists = errors.New("output file exists")

// openFormatInput opens a regular file for reading, transparently
// decompressing names ending in .zst.
func openFormatInput(path string) (io.Reader, func() error, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: not a regular file (it is a %s); expected a file to read", path, kindOf(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(path, ".zst") {
		return bufio.NewReaderSize(f, 1<<20), f.Close, nil
	}
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return zr, func() error { zr.Close(); return f.Close() }, nil
}

func checkFormatInput(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (it is a %s); expected a file to read", path, kindOf(st.Mode()))
	}
	return nil
}

func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeDevice != 0:
		return "device"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// checkFormatOutput refuses an output that exists and is not a regular
// file, or exists without force; it runs before any work so a long export
// does not fail at its end.
func checkFormatOutput(path string, force bool) error {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (it is a %s); refusing to replace it", path, kindOf(st.Mode()))
	}
	if !force {
		return fmt.Errorf("%s: %w; give -f (--force for export) to overwrite it", path, errOutputExists)
	}
	return nil
}

// writeFormatOutput writes path atomically through write; a name ending in
// .zst is Zstd-compressed on the way.
func writeFormatOutput(path string, force bool, write func(io.Writer) error) (err error) {
	if err := checkFormatOutput(path, force); err != nil {
		return err
	}
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
	bw := bufio.NewWriterSize(f, 1<<20)
	var w io.Writer = bw
	var zw *zstd.Encoder
	if strings.HasSuffix(path, ".zst") {
		if zw, err = zstd.NewWriter(bw, zstd.WithEncoderConcurrency(1)); err != nil {
			return err
		}
		w = zw
	}
	if err = write(w); err != nil {
		return err
	}
	if zw != nil {
		if err = zw.Close(); err != nil {
			return err
		}
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	// Checked again: the target may have been replaced while we worked.
	if err = checkFormatOutput(path, true); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
