//go:build unix

package fileio

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNonBlocking opens with O_NONBLOCK, which makes opening a FIFO return
// at once instead of waiting for a writer; for the regular file the caller
// then checks it has, the flag changes nothing, but it is cleared anyway.
func openNonBlocking(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// processAlive: signal 0 checks existence without sending anything. EPERM
// means the process exists but is someone else's.
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
