package protocol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Version constants of Tracy 0.14.0.
const (
	// ProtocolVersion is the wire protocol version a server sends after the
	// shibboleth; a client answers HandshakeProtocolMismatch to any other.
	ProtocolVersion = 82
	// BroadcastVersion is the version of the UDP discovery datagram a
	// 0.14.0 client sends; the GUI parses 0..3.
	BroadcastVersion = 3
	// TracyVersion is the Tracy release this package speaks.
	TracyVersion = "0.14.0"
)

// Shibboleth is the 8 bytes a server sends first ("TracyPrf"), followed by
// the protocol version as a little-endian u32.
const Shibboleth = "TracyPrf"

// HandshakeSize is the length of the server's opening: shibboleth + version.
const HandshakeSize = len(Shibboleth) + 4

// Frame size limits of the client-to-server stream.
const (
	// TargetFrameSize is the largest decompressed frame (256 KiB).
	TargetFrameSize = 262144
	// LZ4Size is the largest compressed block: LZ4's bound for
	// TargetFrameSize (262144 + 262144/255 + 16).
	LZ4Size = TargetFrameSize + TargetFrameSize/255 + 16
	// DictSize is how far back an LZ4 match may reach across frames.
	DictSize = 65536
)

// HandshakeStatus is the one byte a client answers the server's opening with.
type HandshakeStatus uint8

const (
	HandshakePending          HandshakeStatus = 0 // server-internal, never on the wire
	HandshakeWelcome          HandshakeStatus = 1 // the session begins; a Welcome follows
	HandshakeProtocolMismatch HandshakeStatus = 2 // client speaks another protocol version
	HandshakeNotAvailable     HandshakeStatus = 3 // client already served its one session
	HandshakeDropped          HandshakeStatus = 4 // server-internal: closed during handshake
)

func (s HandshakeStatus) String() string {
	switch s {
	case HandshakePending:
		return "HandshakePending"
	case HandshakeWelcome:
		return "HandshakeWelcome"
	case HandshakeProtocolMismatch:
		return "HandshakeProtocolMismatch"
	case HandshakeNotAvailable:
		return "HandshakeNotAvailable"
	case HandshakeDropped:
		return "HandshakeDropped"
	}
	return "HandshakeStatus(" + strconv.Itoa(int(s)) + ")"
}

// WelcomeFlag bits of Welcome.Flags.
type WelcomeFlag uint8

const (
	// FlagOnDemand: the 16-byte OnDemandPayload follows the welcome; the
	// server tolerates frees of unknown memory and drops early frame images.
	FlagOnDemand WelcomeFlag = 1 << 0
	// FlagIgnoreMemFaults: frees of unknown pointers and double allocations
	// are not capture failures.
	FlagIgnoreMemFaults WelcomeFlag = 1 << 1
	// FlagCodeTransfer: the client answers SymbolCode/SourceCode queries.
	FlagCodeTransfer WelcomeFlag = 1 << 2
	// FlagCombineSamples: same-time samples of a thread merge into one stack.
	FlagCombineSamples WelcomeFlag = 1 << 3
	// FlagIdentifySamples enables context-switch sample identification.
	FlagIdentifySamples WelcomeFlag = 1 << 4
)

// CPUArch is Welcome.CPUArch; the server disassembles symbol code only for a
// known architecture.
type CPUArch uint8

const (
	CPUArchUnknown CPUArch = 0
	CPUArchX86     CPUArch = 1
	CPUArchX64     CPUArch = 2
	CPUArchArm32   CPUArch = 3
	CPUArchArm64   CPUArch = 4
)

func (a CPUArch) String() string {
	switch a {
	case CPUArchUnknown:
		return "Unknown"
	case CPUArchX86:
		return "X86"
	case CPUArchX64:
		return "X64"
	case CPUArchArm32:
		return "Arm32"
	case CPUArchArm64:
		return "Arm64"
	}
	return "CPUArch(" + strconv.Itoa(int(a)) + ")"
}

// WelcomeSize is the exact wire size of Welcome.
const WelcomeSize = 1170

// Welcome is the WelcomeMessage a client sends raw after HandshakeWelcome.
// Strings are kept as Go strings; on the wire they are NUL-padded fixed
// arrays, so ProgramName is cut to 63 bytes and HostInfo to 1023 bytes.
type Welcome struct {
	TimerMul        float64 // nanoseconds per client tick
	InitBegin       int64   // tick at profiler start (time 0 of the capture)
	InitEnd         int64   // tick when the profiler finished initializing
	Resolution      uint64  // smallest timer step, ticks
	Epoch           uint64  // Unix seconds at profiler start
	ExecTime        uint64  // executable mtime, Unix seconds; 0 disables source queries
	PID             uint64
	SamplingPeriod  int64 // ns between CPU samples, 0 without sampling
	Flags           WelcomeFlag
	CPUArch         CPUArch
	CPUManufacturer [12]byte // x86 CPUID vendor, not NUL-terminated
	CPUID           uint32
	ProgramName     string // at most 63 bytes on the wire
	HostInfo        string // at most 1023 bytes on the wire
}

// AppendBinary appends the 1170-byte wire form of w.
func (w *Welcome) AppendBinary(dst []byte) ([]byte, error) {
	le := binary.LittleEndian
	dst = le.AppendUint64(dst, math.Float64bits(w.TimerMul))
	dst = le.AppendUint64(dst, uint64(w.InitBegin))
	dst = le.AppendUint64(dst, uint64(w.InitEnd))
	dst = le.AppendUint64(dst, w.Resolution)
	dst = le.AppendUint64(dst, w.Epoch)
	dst = le.AppendUint64(dst, w.ExecTime)
	dst = le.AppendUint64(dst, w.PID)
	dst = le.AppendUint64(dst, uint64(w.SamplingPeriod))
	dst = append(dst, byte(w.Flags), byte(w.CPUArch))
	dst = append(dst, w.CPUManufacturer[:]...)
	dst = le.AppendUint32(dst, w.CPUID)
	dst = appendCString(dst, w.ProgramName, 64)
	dst = appendCString(dst, w.HostInfo, 1024)
	return dst, nil
}

// MarshalBinary returns the 1170-byte wire form of w.
func (w *Welcome) MarshalBinary() ([]byte, error) {
	return w.AppendBinary(make([]byte, 0, WelcomeSize))
}

// UnmarshalBinary decodes exactly WelcomeSize bytes.
func (w *Welcome) UnmarshalBinary(b []byte) error {
	if len(b) != WelcomeSize {
		return fmt.Errorf("protocol: welcome is %d bytes, want %d: %w", len(b), WelcomeSize, ErrTruncated)
	}
	le := binary.LittleEndian
	w.TimerMul = math.Float64frombits(le.Uint64(b[0:]))
	w.InitBegin = int64(le.Uint64(b[8:]))
	w.InitEnd = int64(le.Uint64(b[16:]))
	w.Resolution = le.Uint64(b[24:])
	w.Epoch = le.Uint64(b[32:])
	w.ExecTime = le.Uint64(b[40:])
	w.PID = le.Uint64(b[48:])
	w.SamplingPeriod = int64(le.Uint64(b[56:]))
	w.Flags = WelcomeFlag(b[64])
	w.CPUArch = CPUArch(b[65])
	copy(w.CPUManufacturer[:], b[66:78])
	w.CPUID = le.Uint32(b[78:])
	w.ProgramName = cString(b[82:146])
	w.HostInfo = cString(b[146:1170])
	return nil
}

// appendCString writes s NUL-terminated into a zero-padded field of n bytes,
// truncating s to n-1 bytes.
func appendCString(dst []byte, s string, n int) []byte {
	if len(s) > n-1 {
		s = s[:n-1]
	}
	dst = append(dst, s...)
	for i := len(s); i < n; i++ {
		dst = append(dst, 0)
	}
	return dst
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// OnDemandSize is the exact wire size of OnDemandPayload.
const OnDemandSize = 16

// OnDemandPayload follows the welcome when FlagOnDemand is set.
type OnDemandPayload struct {
	Frames      uint64 // main frame marks emitted before this connection
	CurrentTime int64  // client tick at connection time
}

// AppendBinary appends the 16-byte wire form.
func (p *OnDemandPayload) AppendBinary(dst []byte) ([]byte, error) {
	dst = binary.LittleEndian.AppendUint64(dst, p.Frames)
	return binary.LittleEndian.AppendUint64(dst, uint64(p.CurrentTime)), nil
}

// MarshalBinary returns the 16-byte wire form.
func (p *OnDemandPayload) MarshalBinary() ([]byte, error) {
	return p.AppendBinary(make([]byte, 0, OnDemandSize))
}

// UnmarshalBinary decodes exactly 16 bytes.
func (p *OnDemandPayload) UnmarshalBinary(b []byte) error {
	if len(b) != OnDemandSize {
		return fmt.Errorf("protocol: on-demand payload is %d bytes, want %d: %w", len(b), OnDemandSize, ErrTruncated)
	}
	p.Frames = binary.LittleEndian.Uint64(b)
	p.CurrentTime = int64(binary.LittleEndian.Uint64(b[8:]))
	return nil
}

// ServerQuery is the type byte of a server-to-client query packet.
type ServerQuery uint8

// Server queries. Types up to ServerQueryExternalName are priority queries;
// the server sends them before the others.
const (
	ServerQueryTerminate        ServerQuery = 0  // ptr 0: end the session
	ServerQueryString           ServerQuery = 1  // ptr string key -> StringData
	ServerQueryThreadString     ServerQuery = 2  // ptr thread id -> ThreadName
	ServerQuerySourceLocation   ServerQuery = 3  // ptr srcloc key -> SourceLocation (FIFO, no key)
	ServerQueryPlotName         ServerQuery = 4  // ptr plot key -> PlotName
	ServerQueryFrameName        ServerQuery = 5  // ptr frame-set key -> FrameName
	ServerQueryParameter        ServerQuery = 6  // ptr (idx<<32)|u32(value) -> AckServerQueryNoop
	ServerQueryFiberName        ServerQuery = 7  // ptr fiber key -> FiberName
	ServerQueryExternalName     ServerQuery = 8  // ptr OS thread id -> ExternalThreadName, ExternalName
	ServerQueryDisconnect       ServerQuery = 9  // never sent by 0.14.0 servers
	ServerQueryCallstackFrame   ServerQuery = 10 // ptr address -> SingleString, CallstackFrameSize, frames
	ServerQuerySymbol           ServerQuery = 11 // ptr symbol address -> SingleString, SymbolInformation
	ServerQuerySymbolCode       ServerQuery = 12 // ptr symbol address, extra size -> SymbolCode or AckSymbolCodeNotAvailable
	ServerQuerySourceCode       ServerQuery = 13 // ptr query id -> SourceCode or AckSourceCodeNotAvailable
	ServerQueryDataTransfer     ServerQuery = 14 // ptr total length -> AckServerQueryNoop
	ServerQueryDataTransferPart ServerQuery = 15 // ptr 8 bytes, extra 4 bytes -> AckServerQueryNoop

	// NumServerQueries is the number of query types.
	NumServerQueries = 16
)

var serverQueryNames = [NumServerQueries]string{
	"ServerQueryTerminate", "ServerQueryString", "ServerQueryThreadString", "ServerQuerySourceLocation",
	"ServerQueryPlotName", "ServerQueryFrameName", "ServerQueryParameter", "ServerQueryFiberName",
	"ServerQueryExternalName", "ServerQueryDisconnect", "ServerQueryCallstackFrame", "ServerQuerySymbol",
	"ServerQuerySymbolCode", "ServerQuerySourceCode", "ServerQueryDataTransfer", "ServerQueryDataTransferPart",
}

func (q ServerQuery) String() string {
	if q < NumServerQueries {
		return serverQueryNames[q]
	}
	return "ServerQuery(" + strconv.Itoa(int(q)) + ")"
}

// Priority reports whether the server queues q in its priority queue.
func (q ServerQuery) Priority() bool { return q <= ServerQueryExternalName }

// ServerQueryPacketSize is the exact wire size of a query.
const ServerQueryPacketSize = 13

// ServerQueryPacket is one raw, uncompressed server-to-client query.
type ServerQueryPacket struct {
	Type  ServerQuery
	Ptr   uint64 // key or argument
	Extra uint32 // argument, usually 0
}

// Append appends the 13-byte wire form.
func (p ServerQueryPacket) Append(dst []byte) []byte {
	dst = append(dst, byte(p.Type))
	dst = binary.LittleEndian.AppendUint64(dst, p.Ptr)
	return binary.LittleEndian.AppendUint32(dst, p.Extra)
}

// MarshalBinary returns the 13-byte wire form.
func (p ServerQueryPacket) MarshalBinary() ([]byte, error) {
	return p.Append(make([]byte, 0, ServerQueryPacketSize)), nil
}

// UnmarshalBinary decodes exactly 13 bytes. Unknown query types are an
// ErrUnknownItem error (the packet is still decoded).
func (p *ServerQueryPacket) UnmarshalBinary(b []byte) error {
	if len(b) != ServerQueryPacketSize {
		return fmt.Errorf("protocol: server query is %d bytes, want %d: %w", len(b), ServerQueryPacketSize, ErrTruncated)
	}
	p.Type = ServerQuery(b[0])
	p.Ptr = binary.LittleEndian.Uint64(b[1:])
	p.Extra = binary.LittleEndian.Uint32(b[9:])
	if p.Type >= NumServerQueries {
		return fmt.Errorf("protocol: server query type %d: %w", b[0], ErrUnknownItem)
	}
	return nil
}

func (p ServerQueryPacket) String() string {
	return fmt.Sprintf("%v ptr=%#x extra=%d", p.Type, p.Ptr, p.Extra)
}
