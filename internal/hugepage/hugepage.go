// Package hugepage allocates large, long-lived, randomly read arrays so the
// kernel may back them with transparent huge pages.
//
// Use Make instead of make for a slice that is big (megabytes) and probed at
// random afterwards, such as an index searched by bisection:
//
//	pos := hugepage.Make[uint32](n)
//
// On Linux, when GOTRACY_HUGEPAGES=1 (the switch the model's zone chunks
// obey too; see docs/DESIGN.md for why it is off by default), a slice of at
// least 2 MiB is advised with MADV_HUGEPAGE before anything touches it
// (effective when THP is in "madvise" or "always" mode); otherwise Make is
// make.
package hugepage

import (
	"os"
	"unsafe"
)

// enabled is GOTRACY_HUGEPAGES=1, read once.
var enabled = os.Getenv("GOTRACY_HUGEPAGES") == "1"

// Min is the size in bytes from which a slice is advised.
const Min = 2 << 20

// Make returns make([]T, n), advised for huge pages when it is large.
func Make[T any](n int) []T {
	s := make([]T, n)
	var zero T
	if size := uintptr(n) * unsafe.Sizeof(zero); enabled && size >= Min {
		advise(unsafe.Pointer(unsafe.SliceData(s)), size)
	}
	return s
}
