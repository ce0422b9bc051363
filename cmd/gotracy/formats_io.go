package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/gotracy/gotracy/internal/fileio"
)

// The export, import and merge commands read and write through
// internal/fileio like every other command (regular inputs only, atomic
// outputs only over regular files, -f to overwrite); these helpers add the
// transparent Zstd of names ending in .zst.

// openFormatInput opens a regular file for reading, decompressing names
// ending in .zst.
func openFormatInput(path string) (io.Reader, func() error, error) {
	f, err := fileio.OpenInput(path)
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
	_, err := fileio.CheckInput(path)
	return err
}

// checkFormatOutput runs before any work, so a long export does not fail
// at its end for an output it may not replace.
func checkFormatOutput(path string, force bool) error { return fileio.CheckOutput(path, force) }

// writeFormatOutput writes path atomically through write; a name ending in
// .zst is Zstd-compressed on the way.
func writeFormatOutput(ctx context.Context, path string, force bool, write func(io.Writer) error) error {
	return fileio.WriteFile(ctx, path, force, func(out io.Writer) error {
		bw := bufio.NewWriterSize(out, 1<<20)
		var w io.Writer = bw
		var zw *zstd.Encoder
		if strings.HasSuffix(path, ".zst") {
			var err error
			if zw, err = zstd.NewWriter(bw, zstd.WithEncoderConcurrency(1)); err != nil {
				return err
			}
			w = zw
		}
		if err := write(w); err != nil {
			return err
		}
		if zw != nil {
			if err := zw.Close(); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}
