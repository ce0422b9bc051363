package model

import (
	"os"
	"syscall"
	"unsafe"
)

// hugePages is whether chunks are advised at all: only when
// GOTRACY_HUGEPAGES=1. Measured on the shared 2-core VM (issue 13, paired
// runs of the same binary): with the advice, the system time of a
// heavy10m load or capture swung between 0.01 and 0.7 s with the host's
// memory state (2 MiB pages zeroed and backed at first touch) and lost to
// plain 4 KiB pages in 6 of 6 `csv` pairs and 5 of 5 `replay` pairs
// (0.12-0.18 s, steady); on an idle machine it had halved a replay's CPU.
// Tracy does not advise either. Steady beats sometimes-faster, so it is
// opt-in.
var hugePages = os.Getenv("GOTRACY_HUGEPAGES") == "1"

// adviseHugePages asks the kernel to back a new, still untouched chunk
// with transparent huge pages (MADV_HUGEPAGE; effective when THP is in
// "madvise" or "always" mode). Filling a chunk then takes one fault per
// 2 MiB instead of one per 4 KiB: with 4 KiB pages the first-touch faults
// of a 10-million-zone capture cost more CPU than decoding it.
// Only chunks of at least 2 MiB are advised; errors are ignored (the
// advice is an optimisation and older kernels refuse it).
func adviseHugePages(zs []Zone) {
	if !hugePages {
		return
	}
	size := uintptr(len(zs)) * unsafe.Sizeof(Zone{})
	if size < 2<<20 {
		return
	}
	// The range is widened to whole 2 MiB pages: the huge page holding the
	// chunk's tail also holds the start of the next chunk, which the heap
	// usually places right after it, so no 4 KiB pages are left at the
	// seams. Go's heap arenas (64 MiB on 64-bit Linux, 4 MiB on 32-bit) are
	// aligned to their size, so the widened range stays inside the arena's
	// mapping; the advice only lets the kernel use huge pages there, it
	// changes no contents.
	const huge = 2 << 20
	p := uintptr(unsafe.Pointer(unsafe.SliceData(zs)))
	from := p &^ (huge - 1)
	to := (p + size + huge - 1) &^ (huge - 1)
	// A raw call: the widened range is not a Go object, only addresses.
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, from, to-from, syscall.MADV_HUGEPAGE)
}
