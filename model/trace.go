package model

// StrID is a reference to [Trace.Strings]. 0 means "no string"; otherwise
// the string is Strings[id]. It equals the file's 24-bit "sidx" value
// (string-table index + 1).
type StrID uint32

// NoString is the StrID of an absent string.
const NoString StrID = 0

// String reference flags, as stored in the file's 9-byte "sref".
const (
	RefIsIdx  uint8 = 1 << 0 // Str is a string-table index (0-based)
	RefActive uint8 = 1 << 1 // the reference names a string at all
)

// StringRef is Tracy's tagged string reference, kept exactly as in the file
// so writing it back is lossless. Use [Trace.RefString] to resolve it.
//
//   - Flags 0: no string.
//   - Flags RefActive: Str is a client pointer key, resolved through
//     [Trace.PtrStrings] (unresolved keys print as "???").
//   - Flags RefActive|RefIsIdx: Str is a 0-based string-table index, i.e.
//     the string is Strings[Str+1].
type StringRef struct {
	Str   uint64
	Flags uint8
}

// IdxRef returns an index reference to an interned string.
func IdxRef(id StrID) StringRef {
	if id == NoString {
		return StringRef{}
	}
	return StringRef{Str: uint64(id) - 1, Flags: RefActive | RefIsIdx}
}

// PtrRef returns a reference through the client pointer key key.
func PtrRef(key uint64) StringRef { return StringRef{Str: key, Flags: RefActive} }

// SrcLocID identifies a source location the way zones and locks do (int16):
// values >= 0 index [Trace.SrcLocIndex] (static locations, 0 reserved);
// negative values -(i+1) name [Trace.DynSrcLocs][i].
type SrcLocID = int16

// EmptySrcLoc is the server's overflow value meaning "empty source location".
const EmptySrcLoc SrcLocID = 32767

// SourceLocation is the 35-byte "srcloc" body of the file.
type SourceLocation struct {
	Name     StringRef
	Function StringRef
	File     StringRef
	Line     uint32
	Color    uint32 // 0x00BBGGRR, 0 = default
}

// CPU architectures (Metadata.CPUArch).
const (
	CPUArchUnknown uint8 = iota
	CPUArchX86
	CPUArchX64
	CPUArchARM32
	CPUArchARM64
)

// Metadata is the capture-wide header of a trace.
type Metadata struct {
	Resolution      int64   // timer resolution, ns
	TimerMul        float64 // ns per client tick
	LastTime        int64   // end of the timeline, ns; >= every timestamp
	FrameOffset     uint64  // on-demand frame-number offset
	PID             uint64
	SamplingPeriod  int64 // ns, 0 = no sampling
	CPUArch         uint8
	CPUID           uint32
	CPUManufacturer [12]byte
	OnDemand        bool
	CaptureName     string // < 1024 bytes for Tracy
	CaptureProgram  string // < 1024 bytes for Tracy
	CaptureTime     uint64 // Unix seconds
	ExecutableTime  uint64 // Unix seconds, 0 = unknown
	HostInfo        string // < 1024 bytes for Tracy
}

// CPUPackage, CPUDie and CPUCore are the CPU topology.
type CPUPackage struct {
	ID   uint32
	Dies []CPUDie
}

type CPUDie struct {
	ID    uint32
	Cores []CPUCore
}

type CPUCore struct {
	ID      uint32
	Threads []uint32 // logical CPU numbers
}

// Crash is the crash event. Thread 0 means "no crash".
type Crash struct {
	Thread    uint64
	Time      int64
	Message   uint64 // client pointer key into PtrStrings
	CallStack uint32
}

// Frame is one frame of a frame set. For continuous sets End is -1 (a frame
// ends where the next begins, the last at Metadata.LastTime); for
// discontinuous sets End is the end time or -1 when unfinished.
type Frame struct {
	Start int64
	End   int64
	Image int32 // index into Trace.FrameImages, -1 = none
}

// FrameSet is a named sequence of frames. Name 0 is the base "Frame" set,
// which must be Trace.FrameSets[0].
type FrameSet struct {
	Name       uint64 // client pointer key into PtrStrings
	Continuous bool
	Frames     []Frame
}

// SectionItem is one TracySection span (times absolute; End < 0 = open).
type SectionItem struct {
	Start int64
	End   int64
	Text  StrID
}

type SectionCategory struct {
	Category uint16
	Items    []SectionItem
}

type SectionDesc struct {
	Category uint16
	Text     StrID
}

// Lock types.
const (
	LockLockable       uint8 = 0
	LockSharedLockable uint8 = 1
)

// Lock event types.
const (
	LockWait uint8 = iota
	LockObtain
	LockRelease
	LockWaitShared
	LockObtainShared
	LockReleaseShared
)

// LockEvent is one lock transition; Thread indexes Lock.Threads.
type LockEvent struct {
	Time   int64
	SrcLoc SrcLocID
	Thread uint8
	Type   uint8
}

// Lock is a TracyLockable and its history.
type Lock struct {
	ID            uint32
	CustomName    StrID
	SrcLoc        SrcLocID
	Type          uint8
	Valid         bool
	TimeAnnounce  int64
	TimeTerminate int64    // 0 = not terminated
	Threads       []uint64 // thread ids; position = LockEvent.Thread (<= 64)
	Events        []LockEvent
}

// Message sources and severities.
const (
	MsgSourceUser  uint8 = 0
	MsgSourceTracy uint8 = 1

	SeverityTrace   uint8 = 0
	SeverityDebug   uint8 = 1
	SeverityInfo    uint8 = 2
	SeverityWarning uint8 = 3
	SeverityError   uint8 = 4
	SeverityFatal   uint8 = 5
)

// Message is a TracyMessage. Thread is the local thread index
// ([Trace.ThreadIndex]); the thread's Thread.Messages lists it.
type Message struct {
	Time      int64
	Text      StringRef
	Color     uint32 // 0xFFBBGGRR
	CallStack uint32
	Thread    uint16
	Source    uint8
	Severity  uint8
}

// ZoneExtra holds the rarely used per-zone data.
type ZoneExtra struct {
	CallStack uint32 // 24-bit
	Text      StrID  // ZoneText / ZoneValue text
	Name      StrID  // ZoneName override
	Color     uint32 // 24-bit 0x00BBGGRR, 0 = none
}

// Sample is a sampled call stack (or context-switch sample) of a thread.
type Sample struct {
	Time      int64
	CallStack uint32
}

// Thread is one CPU thread (or fiber) and its zone tree.
type Thread struct {
	ID              uint64
	KernelSampleCnt uint64
	IsFiber         bool
	GroupHint       int32
	// Zones is the zone tree in depth-first pre-order; see [Zone] and
	// [ZoneList].
	Zones ZoneList
	// Messages are indices into Trace.Messages of this thread's messages,
	// in time order.
	Messages []uint32
	// CtxSwitchSamples and Samples are time-sorted sampled call stacks.
	CtxSwitchSamples []Sample
	Samples          []Sample
}

// GPU context types.
const (
	GpuInvalid uint8 = iota
	GpuOpenGL
	GpuVulkan
	GpuOpenCL
	GpuDirect3D12
	GpuDirect3D11
	GpuMetal
	GpuCustom
	GpuCUDA
	GpuRocprof
	GpuWebGPU
)

// GpuZone is a GPU zone. Like [Zone], a timeline's zones are in depth-first
// pre-order and Next is the index just past the zone's subtree.
type GpuZone struct {
	CPUStart  int64
	CPUEnd    int64
	GPUStart  int64
	GPUEnd    int64 // -1 = never ended
	CallStack uint32
	Next      uint32
	SrcLoc    SrcLocID
	Thread    uint16 // local thread index of the issuing thread
	QueryID   uint16
}

// GpuTimeline is the GPU zones issued from one thread of a context.
type GpuTimeline struct {
	Thread uint64
	Zones  []GpuZone
}

type GpuNoteName struct {
	ID   int64
	Name StrID
}

type GpuNote struct {
	ID    int64
	Value float64
}

type GpuNoteGroup struct {
	QueryID uint16
	Notes   []GpuNote
}

// GpuContext is a GPU timeline source.
type GpuContext struct {
	Thread     uint64
	Calibrated bool
	Count      uint64 // number of GPU zones, as Tracy counts them
	Period     float32
	Type       uint8
	Name       StrID
	Overflow   uint64
	NoteNames  []GpuNoteName
	Timelines  []GpuTimeline
	Notes      []GpuNoteGroup
}

// Plot types and formats.
const (
	PlotUser    uint8 = 0
	PlotMemory  uint8 = 1 // never stored
	PlotSysTime uint8 = 2
	PlotPower   uint8 = 3

	PlotFormatNumber     uint8 = 0
	PlotFormatMemory     uint8 = 1
	PlotFormatPercentage uint8 = 2
	PlotFormatWatt       uint8 = 3
)

type PlotPoint struct {
	Time  int64
	Value float64
}

// Plot is a TracyPlot and its points.
type Plot struct {
	Name      uint64 // client pointer key; 0 for SysTime
	Type      uint8
	Format    uint8
	ShowSteps bool
	Fill      bool
	Color     uint32 // 0x00RRGGBB as sent (the 0.14.0 quirk)
	Min       float64
	Max       float64
	Sum       float64
	Points    []PlotPoint
}

// MemEvent is one allocation, and its free when TimeFree >= 0.
type MemEvent struct {
	Ptr         uint64
	Size        uint64
	TimeAlloc   int64
	TimeFree    int64 // absolute; -1 = never freed
	CSAlloc     uint32
	CSFree      uint32
	ThreadAlloc uint16 // local thread index
	ThreadFree  uint16 // local thread index, 0 when not freed
}

// MemPool is a memory pool; Name 0 is the default pool.
type MemPool struct {
	Name        uint64
	ActiveCount uint64 // hint: allocations never freed
	High        uint64
	Low         uint64
	Usage       uint64
	Events      []MemEvent // sorted by TimeAlloc
}

// InlineFrame is one level of a resolved call-stack frame.
type InlineFrame struct {
	Name    StrID
	File    StrID
	Line    uint32
	SymAddr uint64
}

// FrameData is a resolved call-stack frame.
type FrameData struct {
	ImageName StrID
	Frames    []InlineFrame
}

// FrameImage is a frame screenshot in standard BC1 after Tracy's FixOrder
// and rate-distortion pass: W*H/2 bytes, or their Zstd frame when Packed.
type FrameImage struct {
	W, H uint16
	Flip bool
	// Packed says Data holds the Zstd-compressed image (texture.Pack
	// output) rather than the W*H/2 BC1 bytes. A capture keeps images
	// packed, as Tracy's server does, because they are read rarely and
	// a 320x180 frame shrinks from 28,800 bytes to about 9.4 KB; a file
	// stores them unpacked, so a loaded trace has Packed false. Readers
	// of Data unpack first (texture.ImageData).
	Packed bool
	Data   []byte
}

// CtxSwitch is one context-switch span of a thread.
type CtxSwitch struct {
	Wakeup    int64
	Start     int64
	End       int64 // -1 = still running
	Thread    uint64
	CPU       uint8
	Reason    int8
	State     int8
	WakeupCPU uint8
}

type ThreadCtxSwitches struct {
	Thread uint64
	Events []CtxSwitch
}

// CPUEntry is one span on a CPU; Thread indexes Trace.ExtThreadIndex.
type CPUEntry struct {
	Start  int64
	End    int64
	Thread uint16
}

type CPUThreadData struct {
	Thread         uint64
	RunningTime    int64
	RunningRegions uint32
	Migrations     uint32
}

// Symbol is a resolved symbol.
type Symbol struct {
	Addr      uint64
	Name      StrID
	File      StrID
	Line      uint32
	ImageName StrID
	CallFile  StrID
	CallLine  uint32
	IsInline  bool
	Size      uint32 // 24-bit
}

type SymbolCode struct {
	Addr uint64
	Code []byte
}

type CodeSymbol struct {
	CodeAddr uint64
	SymAddr  uint64
}

// HwSample holds hardware sample times for one address. The vectors are, in
// order: cycles, retired instructions, cache references, cache misses,
// branches retired, branch misses.
type HwSample struct {
	Addr  uint64
	Times [6][]int64
}

type SourceFile struct {
	Name string
	Data []byte
}

// Trace is a whole trace: the contents of one .tracy file.
type Trace struct {
	Metadata Metadata
	Topology []CPUPackage
	Crash    Crash

	// FrameSets[0] is the base frame set (name 0, "Frame").
	FrameSets      []FrameSet
	Sections       []SectionCategory
	SectionDescs   []SectionDesc
	Strings        []string            // Strings[0] is "" and unused (StrID 0 = none)
	PtrStrings     map[uint64]StrID    // client pointer key -> string
	ThreadNames    map[uint64]StrID    // thread id -> name
	ExtThreadNames map[uint64][2]StrID // thread id -> {process name, thread name}
	ThreadIndex    []uint64            // local thread table; [0] = 0
	ExtThreadIndex []uint64            // external thread table (per-CPU data)

	// Static source locations: a zone's srcloc i >= 0 means the location
	// with key SrcLocIndex[i] in StaticSrcLocs. SrcLocIndex[0] is 0.
	StaticSrcLocs map[uint64]SourceLocation
	SrcLocIndex   []uint64
	DynSrcLocs    []SourceLocation

	Locks       []Lock
	Messages    []Message   // time order
	ZoneExtras  []ZoneExtra // [0] is blank
	Threads     []Thread
	GpuContexts []GpuContext
	Plots       []Plot // no Memory-type plots
	MemPools    []MemPool

	// Call stacks: index i (1-based, 0 = none) has frames
	// CallStackFrames[CallStackOffsets[i-1]:CallStackOffsets[i]], frame 0
	// innermost. len(CallStackOffsets) is the number of call stacks.
	CallStackFrames  []uint64
	CallStackOffsets []uint32
	Frames           map[uint64]FrameData // CallstackFrameId -> resolved frame

	AppInfo        []StringRef
	FrameImageDict []byte
	FrameImages    []FrameImage
	CtxSwitches    []ThreadCtxSwitches
	CPUData        [256][]CPUEntry
	TidToPid       map[uint64]uint64
	CPUThreadData  []CPUThreadData
	Symbols        []Symbol
	SymbolCode     []SymbolCode
	CodeSymbols    []CodeSymbol
	HwSamples      []HwSample
	SourceCache    []SourceFile
}

// New returns an empty trace with Tracy's reserved entries in place: the
// empty string, the string "Frame" under client key 0, local thread 0, source-location index entry 0, the blank
// zone extra, the base frame set and the default memory pool.
func New() *Trace {
	return &Trace{
		FrameSets:      []FrameSet{{Name: 0, Continuous: true}},
		Strings:        []string{"", "Frame"},
		PtrStrings:     map[uint64]StrID{0: 1},
		ThreadNames:    map[uint64]StrID{},
		ExtThreadNames: map[uint64][2]StrID{},
		ThreadIndex:    []uint64{0},
		StaticSrcLocs:  map[uint64]SourceLocation{},
		SrcLocIndex:    []uint64{0},
		ZoneExtras:     []ZoneExtra{{}},
		MemPools:       []MemPool{{Name: 0, Low: ^uint64(0)}},
		Frames:         map[uint64]FrameData{},
		TidToPid:       map[uint64]uint64{},
	}
}
