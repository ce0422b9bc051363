package hugepage

import (
	"syscall"
	"unsafe"
)

// advise widens [p, p+size) to whole 2 MiB pages and asks for huge pages
// there. The huge page holding the slice's ends also holds its heap
// neighbours; Go's heap arenas (64 MiB on 64-bit Linux) are aligned to
// their size, so the widened range stays inside the arena's mapping, and
// the advice changes no contents, only how the kernel may back them.
// Errors are ignored: the advice is an optimisation and older kernels
// refuse it.
func advise(p unsafe.Pointer, size uintptr) {
	const huge = 2 << 20
	from := uintptr(p) &^ (huge - 1)
	to := (uintptr(p) + size + huge - 1) &^ (huge - 1)
	// A raw call: the widened range is not a Go object, only addresses.
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, from, to-from, syscall.MADV_HUGEPAGE)
}
