//go:build !notracy

package tracy

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"strconv"
	"sync"

	"github.com/gotracy/gotracy/protocol"
)

// answer appends the answer to one server query: every query
// but Terminate and Disconnect gets exactly its answer, with the key echoed.
func (s *session) answer(q protocol.ServerQueryPacket) {
	s.queries++
	b := s.buf
	switch q.Type {
	case protocol.ServerQueryTerminate:
		s.ended = true
	case protocol.ServerQueryString:
		str, _ := strByKey(q.Ptr)
		b, _ = protocol.AppendStringData(b, q.Ptr, clipText(str))
	case protocol.ServerQueryThreadString:
		b, _ = protocol.AppendThreadName(b, q.Ptr, clipText(threadName(uint32(q.Ptr))))
	case protocol.ServerQuerySourceLocation:
		l := locByKey(q.Ptr)
		b = protocol.AppendSourceLocation(b, l.nameKey, l.fnKey, l.fileKey, l.line, uint8(l.color), uint8(l.color>>8), uint8(l.color>>16))
	case protocol.ServerQueryPlotName:
		str, _ := strByKey(q.Ptr)
		b, _ = protocol.AppendPlotName(b, q.Ptr, clipText(str))
	case protocol.ServerQueryFrameName:
		str, _ := strByKey(q.Ptr)
		b, _ = protocol.AppendFrameName(b, q.Ptr, clipText(str))
	case protocol.ServerQueryParameter:
		if f := paramHook.Load(); f != nil {
			(*f)(uint32(q.Ptr>>32), int32(uint32(q.Ptr)))
		}
		b = protocol.AppendAckServerQueryNoop(b)
	case protocol.ServerQueryFiberName:
		name, ok := strByKey(q.Ptr)
		if !ok {
			name = "fiber"
		}
		b, _ = protocol.AppendFiberName(b, q.Ptr, clipText(name))
	case protocol.ServerQueryExternalName:
		b = appendExternalName(b, q.Ptr, s.p.program) // runtimeev.go
	case protocol.ServerQueryDisconnect:
		// The server disconnects: stop sending events, send Terminate, keep answering.
		if !s.terminated {
			s.buf = b
			s.closeOpenZones()
			b = protocol.AppendTerminate(s.buf)
			s.terminated = true
		}
	case protocol.ServerQueryCallstackFrame:
		if s.offlineFrames {
			b = appendOfflineFrameAnswer(b, q.Ptr)
		} else {
			b = appendFrameAnswer(b, q.Ptr)
		}
	case protocol.ServerQueryGotracyImages:
		// Only a gotracy server that saw our HostInfo line asks this.
		b, s.offlineFrames = appendImagesAnswer(b)
	case protocol.ServerQuerySymbol:
		b = appendSymbolAnswer(b, q.Ptr)
	case protocol.ServerQuerySymbolCode:
		// Code bytes are not sent: symLen is 0 in our frame answers, so a
		// server does not normally ask.
		b = protocol.AppendAckSymbolCodeNotAvailable(b)
	case protocol.ServerQuerySourceCode:
		b = s.appendSourceAnswer(b, uint32(q.Ptr))
	case protocol.ServerQueryDataTransfer:
		if s.xfer != nil {
			s.xferHeld = s.xfer
		}
		want := int(q.Ptr)
		if want > 1<<16 {
			want = 1 << 16
		}
		s.xfer, s.xferWant = make([]byte, 0, want), want
		b = protocol.AppendAckServerQueryNoop(b)
	case protocol.ServerQueryDataTransferPart:
		var part [12]byte
		binary.LittleEndian.PutUint64(part[:], q.Ptr)
		binary.LittleEndian.PutUint32(part[8:], q.Extra)
		if room := s.xferWant - len(s.xfer); room > 0 {
			s.xfer = append(s.xfer, part[:min(room, 12)]...)
		}
		b = protocol.AppendAckServerQueryNoop(b)
	}
	s.buf = b
}

// threadName is a goroutine's name in the viewer.
func threadName(tid uint32) string {
	if v, ok := threadNames.Load(uint64(tid)); ok {
		return *v.(*string)
	}
	if n, ok := runtimeThreadName(tid); ok { // runtimeev.go
		return n
	}
	if tid == 1 {
		return "main"
	}
	return "goroutine " + strconv.FormatUint(uint64(tid), 10)
}

var exePath = func() string {
	p, err := os.Executable()
	if err != nil {
		return "[unknown]"
	}
	return p
}()

// appendFrameAnswer resolves a code address from the Go runtime's own tables:
// runtime.CallersFrames expands inlined calls, innermost first, and the
// real function comes last, which is the order Tracy wants.
func appendFrameAnswer(b []byte, addr uint64) []byte {
	type fr struct {
		fn, file string
		line     int
		entry    uintptr
	}
	var frames []fr
	if addr != 0 && addr < 1<<60 {
		it := runtime.CallersFrames([]uintptr{uintptr(addr)})
		for len(frames) < 255 {
			f, more := it.Next()
			if f.Function != "" {
				frames = append(frames, fr{f.Function, f.File, f.Line, f.Entry})
			}
			if !more {
				break
			}
		}
	}
	if len(frames) == 0 {
		b = appendSingle(b, "[unknown]")
		b = protocol.AppendCallstackFrameSize(b, addr, 1)
		b = appendSingle(b, "[unknown]")
		b = appendSecond(b, "[unknown]")
		return protocol.AppendCallstackFrame(b, 0, 0, 0)
	}
	b = appendSingle(b, exePath)
	b = protocol.AppendCallstackFrameSize(b, addr, uint8(len(frames)))
	for i, f := range frames {
		addSourceFile(f.file)
		var sym uint64
		if i == len(frames)-1 {
			sym = uint64(f.entry) // the symbol itself; inlined frames have none
		}
		b = appendSingle(b, f.fn)
		b = appendSecond(b, f.file)
		b = protocol.AppendCallstackFrame(b, uint32(f.line), sym, 0)
	}
	return b
}

func appendSymbolAnswer(b []byte, addr uint64) []byte {
	file, line := "[unknown]", 0
	if addr != 0 && addr < 1<<60 {
		if f := runtime.FuncForPC(uintptr(addr)); f != nil && uint64(f.Entry()) == addr {
			file, line = f.FileLine(uintptr(addr))
			addSourceFile(file)
		}
	}
	b = appendSingle(b, file)
	return protocol.AppendSymbolInformation(b, uint32(line), addr)
}

// srcFiles is the set of source files the client will send: exactly the
// files it named to a server itself (locations, resolved frames, symbols),
// each taken from the binary's pclntab through the runtime. A server can
// only ask about files it learned from us, and any other path, however it
// is spelled, is refused.
var srcFiles sync.Map // string -> struct{}

func addSourceFile(f string) {
	if f != "" {
		srcFiles.LoadOrStore(f, struct{}{})
	}
}

// maxSourceSize is the C++ client's limit for source files.
const maxSourceSize = 262128

func (s *session) appendSourceAnswer(b []byte, id uint32) []byte {
	name := string(bytes.TrimRight(s.xfer, "\x00"))
	s.xfer, s.xferHeld, s.xferWant = nil, nil, 0
	if _, ok := srcFiles.Load(name); ok {
		if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() && st.Size() < maxSourceSize &&
			(s.p.execTime == 0 || uint64(st.ModTime().Unix()) <= s.p.execTime) {
			if data, err := os.ReadFile(name); err == nil && len(data) < maxSourceSize {
				b, _ = protocol.AppendSourceCode(b, uint64(id), data)
				return b
			}
		}
	}
	return protocol.AppendAckSourceCodeNotAvailable(b, id)
}
