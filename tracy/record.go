//go:build !notracy

package tracy

import (
	"encoding/binary"
	"math"
	"runtime"
	"sync/atomic"
)

// Records are what producers write into their goroutine's queue: a kind byte
// and raw little-endian fields, times as absolute ticks. The sender turns
// them into wire items, adding ThreadContext and the compact time deltas,
// which depend on what other goroutines sent and so can only be computed by
// the one sender.
const (
	rEpoch       = 1  // u32 epoch: records after it belong to that session
	rZoneBegin   = 2  // i64 t, u64 srcloc
	rZoneBeginCS = 3  // i64 t, u64 srcloc, u16 n, n*u64 pcs
	rZoneEnd     = 4  // i64 t
	rZoneText    = 5  // u16 len, bytes
	rZoneName    = 6  // u16 len, bytes
	rZoneColor   = 7  // u32 0xRRGGBB
	rZoneValue   = 8  // u64
	rMessage     = 9  // i64 t, u32 color, u8 hasColor, u8 meta, u16 n, n*u64 pcs, u16 len, bytes
	rMessageLit  = 10 // i64 t, u32 color, u8 hasColor, u8 meta, u16 n, n*u64 pcs, u64 key
	rPlotInt     = 11 // u64 name, i64 t, i64 v
	rPlotFloat   = 12 // u64 name, i64 t, f32 v
	rPlotDouble  = 13 // u64 name, i64 t, f64 v
	rFiberEnter  = 14 // i64 t, u64 name key
	rFiberLeave  = 15 // i64 t
)

// rec is the recording epoch: 0 when nothing is recorded (before Start,
// after Stop, or, in on-demand mode, while no server is connected),
// otherwise the number of the current session. Producers check it first, so
// a disabled call costs one load and a branch.
var rec atomic.Uint32

// maxStack is the deepest call stack recorded (Tracy's native limit is 62).
const maxStack = 62

// maxText bounds copied texts: the 0.14.0 server takes strings up to 65535
// bytes.
const maxText = 65535

func clipText(s string) string {
	if len(s) > maxText {
		return s[:maxText]
	}
	return s
}

// state returns the running goroutine's state, writing the epoch record when
// the session changed since the goroutine last recorded.
func state(ep uint32) *gstate {
	s := curState()
	if s.ep != ep {
		s.markEpoch(ep)
	}
	return s
}

func (s *gstate) markEpoch(ep uint32) {
	b := s.reserve(5)
	w := s.w
	b[w] = rEpoch
	binary.LittleEndian.PutUint32(b[w+1:], ep)
	s.ep = ep
	s.commit(5)
}

// callers captures up to depth return addresses above the caller of the API
// function (skip counts frames above callers itself).
func callers(skip, depth int, pcs *[maxStack]uintptr) []uintptr {
	if depth > maxStack {
		depth = maxStack
	}
	if depth <= 0 {
		return nil
	}
	n := runtime.Callers(skip+2, pcs[:depth])
	return pcs[:n]
}

func putPCs(b []byte, pcs []uintptr) int {
	binary.LittleEndian.PutUint16(b, uint16(len(pcs)))
	for i, pc := range pcs {
		binary.LittleEndian.PutUint64(b[2+8*i:], uint64(pc))
	}
	return 2 + 8*len(pcs)
}

func (s *gstate) writeText(kind byte, text string) {
	text = clipText(text)
	n := 3 + len(text)
	b := s.reserve(n)
	w := s.w
	b[w] = kind
	binary.LittleEndian.PutUint16(b[w+1:], uint16(len(text)))
	copy(b[w+3:], text)
	s.commit(n)
}

func (s *gstate) writeMessage(text string, lit uint64, color uint32, hasColor bool, pcs []uintptr) {
	n := 1 + 8 + 4 + 1 + 1 + 2 + 8*len(pcs)
	if lit != 0 {
		n += 8
	} else {
		text = clipText(text)
		n += 2 + len(text)
	}
	b := s.reserve(n)
	w := s.w
	if lit != 0 {
		b[w] = rMessageLit
	} else {
		b[w] = rMessage
	}
	binary.LittleEndian.PutUint32(b[w+9:], color)
	b[w+13] = 0
	if hasColor {
		b[w+13] = 1
	}
	b[w+14] = msgMeta
	o := w + 15 + putPCs(b[w+15:], pcs)
	if lit != 0 {
		binary.LittleEndian.PutUint64(b[o:], lit)
	} else {
		binary.LittleEndian.PutUint16(b[o:], uint16(len(text)))
		copy(b[o+2:], text)
	}
	binary.LittleEndian.PutUint64(b[w+1:], uint64(now()))
	s.commit(n)
}

// msgMeta is the metadata byte of user messages: source User, severity
// Info, as Tracy's TracyMessage macros send.
const msgMeta = 2 << 4

func (s *gstate) writePlot(kind byte, name uint64, v uint64, size int) {
	n := 1 + 8 + 8 + size
	b := s.reserve(n)
	w := s.w
	b[w] = kind
	binary.LittleEndian.PutUint64(b[w+1:], name)
	if size == 4 {
		binary.LittleEndian.PutUint32(b[w+17:], uint32(v))
	} else {
		binary.LittleEndian.PutUint64(b[w+17:], v)
	}
	binary.LittleEndian.PutUint64(b[w+9:], uint64(now()))
	s.commit(n)
}

func f32bits(v float32) uint64 { return uint64(math.Float32bits(v)) }
func f64bits(v float64) uint64 { return math.Float64bits(v) }
