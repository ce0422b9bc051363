//go:build unix

package capture

import "golang.org/x/sys/unix"

func getSndBuf(fd uintptr) int {
	n, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF)
	if err != nil {
		return 0
	}
	return n
}
