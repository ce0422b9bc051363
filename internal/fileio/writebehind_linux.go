//go:build linux

package fileio

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing the range back to disk
// and returns without waiting for it (SYNC_FILE_RANGE_WRITE): the final
// fsync then has less left to write. Errors are ignored: the fsync that
// follows reports what matters.
func startWriteback(f *os.File, off, n int64) {
	unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

const haveWriteback = true
