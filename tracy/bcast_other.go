//go:build !notracy && !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package tracy

import "net"

func listenBroadcast() (net.PacketConn, error) { return net.ListenPacket("udp4", ":0") }
