//go:build unix

package container

import (
	"os"

	"golang.org/x/sys/unix"
)

func mmapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if int64(int(size)) != size {
		return nil, nil, unix.EFBIG
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	// The streams read the file front to back.
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	return data, func() error { return unix.Munmap(data) }, nil
}
