package protocol

import (
	"encoding/binary"
	"fmt"
)

// Broadcast is the UDP discovery datagram a waiting client sends to port
// 8086 every 3 s. The GUI parses versions 0..3; Version records which layout
// a decoded datagram had. Older layouts lack some fields (version 0 has no
// port: it is implicitly 8086; versions 0-2 have no pid).
type Broadcast struct {
	Version         uint16
	ListenPort      uint16
	ProtocolVersion uint32
	PID             uint64
	ActiveTime      int32 // seconds since client start; -1 = busy or going away
	ProgramName     string
}

// Sizes of the broadcast layouts by version (the full, maximal size).
const (
	broadcastSizeV3 = 84
	broadcastSizeV2 = 76
	broadcastSizeV1 = 80
	broadcastSizeV0 = 76
	// MaxBroadcastSize is the largest datagram of any version.
	MaxBroadcastSize = 84
)

// Append appends the datagram for b in layout b.Version (0..3; 0 in
// Version is encoded as version 0). Version 3 is variable length, cut after
// the program name's NUL as the real client does; older versions are
// written at their full size.
func (b *Broadcast) Append(dst []byte) ([]byte, error) {
	le := binary.LittleEndian
	name := b.ProgramName
	if len(name) > 63 {
		name = name[:63]
	}
	switch b.Version {
	case 3:
		dst = le.AppendUint16(dst, 3)
		dst = le.AppendUint16(dst, b.ListenPort)
		dst = le.AppendUint32(dst, b.ProtocolVersion)
		dst = le.AppendUint64(dst, b.PID)
		dst = le.AppendUint32(dst, uint32(b.ActiveTime))
		dst = append(dst, name...)
		return append(dst, 0), nil
	case 2:
		dst = le.AppendUint16(dst, 2)
		dst = le.AppendUint16(dst, b.ListenPort)
		dst = le.AppendUint32(dst, b.ProtocolVersion)
		dst = le.AppendUint32(dst, uint32(b.ActiveTime))
	case 1:
		dst = le.AppendUint32(dst, 1)
		dst = le.AppendUint32(dst, b.ProtocolVersion)
		dst = le.AppendUint32(dst, uint32(b.ListenPort))
		dst = le.AppendUint32(dst, uint32(b.ActiveTime))
	case 0:
		dst = le.AppendUint32(dst, 0)
		dst = le.AppendUint32(dst, b.ProtocolVersion)
		dst = le.AppendUint32(dst, uint32(b.ActiveTime))
	default:
		return dst, fmt.Errorf("protocol: broadcast version %d: %w", b.Version, ErrBadBroadcast)
	}
	return appendCString(dst, name, 64), nil
}

// MarshalBinary encodes b (see Append).
func (b *Broadcast) MarshalBinary() ([]byte, error) {
	return b.Append(make([]byte, 0, MaxBroadcastSize))
}

// UnmarshalBinary decodes a datagram as the GUI does: it reads the version
// from the first u16, rejects versions above BroadcastVersion and datagrams
// longer than that version's layout, and takes only the received bytes (a
// missing tail reads as zeros).
func (b *Broadcast) UnmarshalBinary(p []byte) error {
	if len(p) < 2 {
		return fmt.Errorf("protocol: broadcast of %d bytes: %w", len(p), ErrBadBroadcast)
	}
	le := binary.LittleEndian
	ver := le.Uint16(p)
	var full [MaxBroadcastSize]byte
	var size int
	switch ver {
	case 3:
		size = broadcastSizeV3
	case 2:
		size = broadcastSizeV2
	case 1:
		size = broadcastSizeV1
	case 0:
		size = broadcastSizeV0
	default:
		return fmt.Errorf("protocol: broadcast version %d: %w", ver, ErrBadBroadcast)
	}
	if len(p) > size {
		return fmt.Errorf("protocol: broadcast version %d of %d bytes (max %d): %w", ver, len(p), size, ErrBadBroadcast)
	}
	copy(full[:], p)
	q := full[:size]
	*b = Broadcast{Version: ver}
	switch ver {
	case 3:
		b.ListenPort = le.Uint16(q[2:])
		b.ProtocolVersion = le.Uint32(q[4:])
		b.PID = le.Uint64(q[8:])
		b.ActiveTime = int32(le.Uint32(q[16:]))
		b.ProgramName = cString(q[20:84])
	case 2:
		b.ListenPort = le.Uint16(q[2:])
		b.ProtocolVersion = le.Uint32(q[4:])
		b.ActiveTime = int32(le.Uint32(q[8:]))
		b.ProgramName = cString(q[12:76])
	case 1:
		b.ProtocolVersion = le.Uint32(q[4:])
		b.ListenPort = uint16(le.Uint32(q[8:]))
		b.ActiveTime = int32(le.Uint32(q[12:]))
		b.ProgramName = cString(q[16:80])
	case 0:
		b.ProtocolVersion = le.Uint32(q[4:])
		b.ListenPort = 8086
		b.ActiveTime = int32(le.Uint32(q[8:]))
		b.ProgramName = cString(q[12:76])
	}
	return nil
}
