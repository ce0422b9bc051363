package capture

import (
	"net"
	"strconv"
	"time"

	"github.com/gotracy/gotracy/protocol"
)

// clientProtocolFromBroadcast listens briefly for the client's UDP discovery
// datagram to learn which protocol version it speaks, so a mismatch can name
// both versions. A client that refused us keeps waiting for a server and
// broadcasts every 3 s. Returns 0 when nothing usable arrives (the port is
// taken, broadcasts are disabled, or the client is remote).
func clientProtocolFromBroadcast(addr string, wait time.Duration) uint32 {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	pc, err := net.ListenPacket("udp4", ":8086")
	if err != nil {
		return 0
	}
	defer pc.Close()
	deadline := time.Now().Add(wait)
	pc.SetReadDeadline(deadline)
	buf := make([]byte, 128)
	hostIPs, _ := net.LookupIP(host)
	for time.Now().Before(deadline) {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return 0
		}
		var b protocol.Broadcast
		if err := b.UnmarshalBinary(buf[:n]); err != nil {
			continue
		}
		if port != "" && strconv.Itoa(int(b.ListenPort)) != port {
			continue
		}
		if ua, ok := from.(*net.UDPAddr); ok && len(hostIPs) > 0 && !containsIP(hostIPs, ua.IP) && !ua.IP.IsLoopback() {
			continue
		}
		return b.ProtocolVersion
	}
	return 0
}

func containsIP(ips []net.IP, ip net.IP) bool {
	for _, x := range ips {
		if x.Equal(ip) {
			return true
		}
	}
	return false
}
