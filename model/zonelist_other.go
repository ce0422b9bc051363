//go:build !linux

package model

// adviseHugePages is a no-op where transparent huge pages cannot be asked
// for.
func adviseHugePages([]Zone) {}
