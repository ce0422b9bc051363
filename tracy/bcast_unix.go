//go:build !notracy && (linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package tracy

import (
	"context"
	"net"
	"syscall"
)

func listenBroadcast() (net.PacketConn, error) {
	lc := net.ListenConfig{Control: func(network, address string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	return lc.ListenPacket(context.Background(), "udp4", ":0")
}
