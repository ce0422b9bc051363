package model

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks the kernel to back a new, still untouched chunk
// with transparent huge pages (MADV_HUGEPAGE; effective when THP is in
// "madvise" or "always" mode). Filling a chunk then takes one fault per
// 2 MiB instead of one per 4 KiB: with 4 KiB pages the first-touch faults
// of a 10-million-zone capture cost about as much CPU as decoding it.
// Only chunks of at least 2 MiB are advised; errors are ignored (the
// advice is an optimisation and older kernels refuse it).
func adviseHugePages(zs []Zone) {
	size := uintptr(len(zs)) * unsafe.Sizeof(Zone{})
	if size < 2<<20 {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(zs))
	p := uintptr(base)
	skip := (p+4095)&^4095 - p // madvise wants a page-aligned start
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(base, skip)), size-skip), syscall.MADV_HUGEPAGE)
}
