package container

import (
	"fmt"
	"io"
	"os"
)

// mapped is an in-memory file image; NewReader decompresses straight from it.
type mapped []byte

func (m mapped) bytes() []byte { return m }

func (m mapped) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m)) {
		return 0, fmt.Errorf("tracy container: read at offset %d outside %d-byte file", off, len(m))
	}
	n := copy(p, m[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// NewReaderBytes reads a container held in memory, without copying it.
func NewReaderBytes(b []byte, opts ...ReadOption) (*Reader, error) {
	return NewReader(mapped(b), int64(len(b)), opts...)
}

// Open opens a .tracy file. It memory-maps the file where the OS allows, so
// the stream goroutines decompress straight from the page cache, and falls
// back to ReadAt otherwise. Close the Reader to unmap and close the file.
func Open(path string, opts ...ReadOption) (*Reader, error) {
	var cfg readConfig
	for _, o := range opts {
		if err := o.applyRead(&cfg); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	size := st.Size()
	if !cfg.noMmap && size > 0 && st.Mode().IsRegular() {
		if data, unmap, err := mmapFile(f, size); err == nil {
			f.Close() // the mapping outlives the descriptor
			r, err := NewReader(mapped(data), size, opts...)
			if err != nil {
				unmap()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			r.close = unmap
			return r, nil
		}
	}
	r, err := NewReader(f, size, opts...)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.close = f.Close
	return r, nil
}
