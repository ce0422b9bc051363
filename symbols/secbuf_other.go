//go:build !linux

package symbols

import (
	"errors"
	"os"
	"unsafe"
)

// sectionBuf returns a buffer for a DWARF section of n bytes (see the Linux
// version for the huge-page advice).
func sectionBuf(n uint64) []byte { return make([]byte, n) }

const hugeMin = 1 << 62

func adviseHuge(p unsafe.Pointer, size uintptr) {}

// mapFile is not implemented here: sections are read.
func mapFile(f *os.File, off int64, n int) ([]byte, error) {
	return nil, errors.ErrUnsupported
}
