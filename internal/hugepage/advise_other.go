//go:build !linux

package hugepage

import "unsafe"

// advise is a no-op where transparent huge pages cannot be asked for.
func advise(unsafe.Pointer, uintptr) {}
