package symbols

import (
	"os"
	"syscall"
	"unsafe"
)

// sectionBuf returns a buffer for a DWARF section of n bytes. A large one
// is advised for transparent huge pages before anything touches it (THP in
// "madvise" or "always" mode): reading an 8 MB .debug_info then takes a few
// faults instead of two thousand, which in a fresh process (`symbols
// resolve`, a capture's first image) cost more than indexing the section.
// The advised range is widened to whole 2 MiB pages inside the Go heap
// arena, as model.adviseHugePages explains; errors are ignored.
func sectionBuf(n uint64) []byte {
	b := make([]byte, n)
	adviseHuge(unsafe.Pointer(unsafe.SliceData(b)), uintptr(n))
	return b
}

// hugeMin is the size from which buffers are advised.
const hugeMin = 2 << 20

func adviseHuge(p unsafe.Pointer, size uintptr) {
	const huge = 2 << 20
	if size < hugeMin {
		return
	}
	from := uintptr(p) &^ (huge - 1)
	to := (uintptr(p) + size + huge - 1) &^ (huge - 1)
	// A raw call: the widened range is not a Go object, only addresses.
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, from, to-from, syscall.MADV_HUGEPAGE)
}

// mapFile maps n bytes of f from off (page-aligned) read-only, populated
// at once from the page cache.
func mapFile(f *os.File, off int64, n int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), off, n, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
}
