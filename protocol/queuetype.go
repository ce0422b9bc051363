package protocol

// QueueType is the one-byte tag that starts every item of the client-to-server
// stream (Tracy's QueueType enum, protocol 82). Each constant's comment lists
// the item's fields as "@offset type name" counted from the tag byte, the
// time kind (ABS absolute; T±/S±/C±/G± plain delta on the thread, serial,
// context-switch or GPU reference; T*/C* compact 16/32/64-bit delta, see
// TimeRefs) and whether the item is bound to the current ThreadContext.
// The same facts, machine-readable, are in the Specs table.
type QueueType uint8

// The 132 queue types of Tracy 0.14.0, numbered exactly as its enum.
const (
	// ZoneText (0): (none). Thread-bound. SingleString (text). Appends text to innermost open zone (joined with "\n" if text already set).
	ZoneText QueueType = iota
	// ZoneName (1): (none). Thread-bound. SingleString (name). Sets dynamic name of innermost open zone.
	ZoneName
	// Message (2): @1 i64 time, @9 u8 metadata. Time ABS. Thread-bound. SingleString (text). metadata = severity<<4 | source.
	Message
	// MessageColor (3): @1 i64 time, @9 u8 b, @10 u8 g, @11 u8 r, @12 u8 metadata. Time ABS. Thread-bound. SingleString (text). Color bytes b,g,r; metadata as above.
	MessageColor
	// MessageCallstack (4): @1 i64 time, @9 u8 metadata. Time ABS. Thread-bound. CallstackPayload+Callstack (earlier), then SingleString (text).
	MessageCallstack
	// MessageColorCallstack (5): @1 i64 time, @9 u8 b, @10 u8 g, @11 u8 r, @12 u8 metadata. Time ABS. Thread-bound. CallstackPayload+Callstack, then SingleString.
	MessageColorCallstack
	// MessageAppInfo (6): @1 i64 time. Time ABS. SingleString (text). Metadata not transmitted.
	MessageAppInfo
	// ZoneBeginAllocSrcLoc (7): @1 i64 time. Time T±. Thread-bound. SourceLocationPayload immediately before.
	ZoneBeginAllocSrcLoc
	// ZoneBeginAllocSrcLocCallstack (8): @1 i64 time. Time T±. Thread-bound. CallstackPayload+Callstack, then SourceLocationPayload.
	ZoneBeginAllocSrcLocCallstack
	// CallstackSerial (9): (none). CallstackPayload. Stores callstack for the next serial *Callstack event.
	CallstackSerial
	// Callstack (10): (none). Thread-bound. CallstackPayload. Stores callstack for the next *Callstack event of the current thread.
	Callstack
	// CallstackAlloc (11): (none). Thread-bound. optional CallstackPayload, then CallstackAllocPayload. Same role as Callstack.
	CallstackAlloc
	// CallstackSample (12): @1 u32 thread, @5 i64 time. Time C*. CallstackPayload (sampled stack). 64-bit compact form.
	CallstackSample
	// CallstackSample32 (13): @1 u32 thread, @5 u32 time. Time C*. CallstackPayload. time = delta − 2^16.
	CallstackSample32
	// CallstackSample16 (14): @1 u32 thread, @5 u16 time. Time C*. CallstackPayload. time = delta.
	CallstackSample16
	// CallstackSampleContextSwitch (15): @1 u32 thread, @5 i64 time. Time C*. CallstackPayload. Sample taken at a context switch.
	CallstackSampleContextSwitch
	// CallstackSampleContextSwitch32 (16): @1 u32 thread, @5 u32 time. Time C*. CallstackPayload.
	CallstackSampleContextSwitch32
	// CallstackSampleContextSwitch16 (17): @1 u32 thread, @5 u16 time. Time C*. CallstackPayload.
	CallstackSampleContextSwitch16
	// FrameImage (18): @1 u32 frame, @5 u16 w, @7 u16 h, @9 u8 flip. FrameImageData (DXT1 bytes). See package texture.
	FrameImage
	// ZoneBegin (19): @1 i64 time, @9 u64 srcloc. Time T*. Thread-bound. srcloc = static source-location key.
	ZoneBegin
	// ZoneBegin32 (20): @1 u32 time, @5 u64 srcloc. Time T*. Thread-bound. time = delta − 2^16.
	ZoneBegin32
	// ZoneBegin16 (21): @1 u16 time, @3 u64 srcloc. Time T*. Thread-bound. time = delta.
	ZoneBegin16
	// ZoneBeginCallstack (22): @1 i64 time, @9 u64 srcloc. Time T*. Thread-bound. CallstackPayload+Callstack earlier on this thread.
	ZoneBeginCallstack
	// ZoneBeginCallstack32 (23): @1 u32 time, @5 u64 srcloc. Time T*. Thread-bound. as above
	ZoneBeginCallstack32
	// ZoneBeginCallstack16 (24): @1 u16 time, @3 u64 srcloc. Time T*. Thread-bound. as above
	ZoneBeginCallstack16
	// ZoneEnd (25): @1 i64 time. Time T*. Thread-bound. Closes innermost open zone of current thread.
	ZoneEnd
	// ZoneEnd32 (26): @1 u32 time. Time T*. Thread-bound. time = delta − 2^16.
	ZoneEnd32
	// ZoneEnd16 (27): @1 u16 time. Time T*. Thread-bound. time = delta.
	ZoneEnd16
	// LockWait (28): @1 u32 thread, @5 u32 id, @9 i64 time. Time S±.
	LockWait
	// LockObtain (29): @1 u32 thread, @5 u32 id, @9 i64 time. Time S±.
	LockObtain
	// LockRelease (30): @1 u32 id, @5 i64 time. Time S±. No thread field: attributed to last obtaining thread.
	LockRelease
	// LockSharedWait (31): @1 u32 thread, @5 u32 id, @9 i64 time. Time S±. SharedLockable only.
	LockSharedWait
	// LockSharedObtain (32): @1 u32 thread, @5 u32 id, @9 i64 time. Time S±. SharedLockable only.
	LockSharedObtain
	// LockSharedRelease (33): @1 u32 id, @5 i64 time, @13 u32 thread. Time S±. SharedLockable only.
	LockSharedRelease
	// LockName (34): @1 u32 id. SingleString (name).
	LockName
	// MemAlloc (35): @1 i64 time, @9 u32 thread, @13 u64 ptr, @21 u8[6] size. Time S±. size = 48-bit LE unsigned. Default (unnamed) pool.
	MemAlloc
	// MemAllocNamed (36): @1 i64 time, @9 u32 thread, @13 u64 ptr, @21 u8[6] size. Time S±. MemNamePayload immediately before.
	MemAllocNamed
	// MemFree (37): @1 i64 time, @9 u32 thread, @13 u64 ptr. Time S±.
	MemFree
	// MemFreeNamed (38): @1 i64 time, @9 u32 thread, @13 u64 ptr. Time S±. MemNamePayload before.
	MemFreeNamed
	// MemAllocCallstack (39): @1 i64 time, @9 u32 thread, @13 u64 ptr, @21 u8[6] size. Time S±. CallstackPayload+CallstackSerial before.
	MemAllocCallstack
	// MemAllocCallstackNamed (40): @1 i64 time, @9 u32 thread, @13 u64 ptr, @21 u8[6] size. Time S±. CallstackPayload+CallstackSerial, then MemNamePayload.
	MemAllocCallstackNamed
	// MemFreeCallstack (41): @1 i64 time, @9 u32 thread, @13 u64 ptr. Time S±. CallstackPayload+CallstackSerial before.
	MemFreeCallstack
	// MemFreeCallstackNamed (42): @1 i64 time, @9 u32 thread, @13 u64 ptr. Time S±. CallstackPayload+CallstackSerial, then MemNamePayload.
	MemFreeCallstackNamed
	// MemDiscard (43): @1 i64 time, @9 u32 thread, @13 u64 name. Time S±. name = pool name key; frees everything in that pool.
	MemDiscard
	// MemDiscardCallstack (44): @1 i64 time, @9 u32 thread, @13 u64 name. Time S±. CallstackPayload+CallstackSerial before.
	MemDiscardCallstack
	// GpuZoneBegin (45): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context, @16 u64 srcloc. Time T±. Thread ref. cpuTime on thread ref.
	GpuZoneBegin
	// GpuZoneBeginCallstack (46): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context, @16 u64 srcloc. Time T±. Thread-bound. CallstackPayload+Callstack before.
	GpuZoneBeginCallstack
	// GpuZoneBeginAllocSrcLoc (47): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context. Time T±. Thread ref. SourceLocationPayload before.
	GpuZoneBeginAllocSrcLoc
	// GpuZoneBeginAllocSrcLocCallstack (48): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context. Time T±. Thread-bound. CallstackPayload+Callstack, then SourceLocationPayload.
	GpuZoneBeginAllocSrcLocCallstack
	// GpuZoneEnd (49): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context. Time T±. Thread ref.
	GpuZoneEnd
	// GpuZoneBeginSerial (50): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context, @16 u64 srcloc. Time S±. cpuTime on serial ref.
	GpuZoneBeginSerial
	// GpuZoneBeginCallstackSerial (51): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context, @16 u64 srcloc. Time S±. CallstackPayload+CallstackSerial before.
	GpuZoneBeginCallstackSerial
	// GpuZoneBeginAllocSrcLocSerial (52): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context. Time S±. SourceLocationPayload before.
	GpuZoneBeginAllocSrcLocSerial
	// GpuZoneBeginAllocSrcLocCallstackSerial (53): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context. Time S±. CallstackPayload+CallstackSerial, then SourceLocationPayload.
	GpuZoneBeginAllocSrcLocCallstackSerial
	// GpuZoneEndSerial (54): @1 i64 cpuTime, @9 u32 thread, @13 u16 queryId, @15 u8 context. Time S±.
	GpuZoneEndSerial
	// PlotDataInt (55): @1 u64 name, @9 i64 time, @17 i64 val. Time T±. Thread ref. name = plot key.
	PlotDataInt
	// PlotDataFloat (56): @1 u64 name, @9 i64 time, @17 f32 val. Time T±. Thread ref. Non-finite values are dropped by the server.
	PlotDataFloat
	// PlotDataDouble (57): @1 u64 name, @9 i64 time, @17 f64 val. Time T±. Thread ref. Non-finite values are dropped by the server.
	PlotDataDouble
	// ContextSwitch (58): @1 i64 time, @9 u32 oldThread, @13 u32 newThread, @17 u8 cpu, @18 u8 oldThreadWaitReason, @19 u8 oldThreadState, @20 u8 previousCState, @21 i8 newThreadPriority, @22 i8 oldThreadPriority. Time C±. OS thread ids; 0 = idle/none.
	ContextSwitch
	// ThreadWakeup (59): @1 i64 time, @9 u32 thread, @13 u8 cpu, @14 i8 adjustReason, @15 i8 adjustIncrement. Time C±.
	ThreadWakeup
	// GpuTime (60): @1 i64 gpuTime, @9 u16 queryId, @11 u8 context. Time G±. gpuTime in GPU ticks, delta on the single GPU ref.
	GpuTime
	// GpuContextName (61): @1 u8 context. SingleString (name).
	GpuContextName
	// GpuAnnotationName (62): @1 i64 noteId, @9 u8 context. SingleString (name).
	GpuAnnotationName
	// CallstackFrameSize (63): @1 u64 ptr, @9 u8 size. SingleString (image name). Followed by `size` CallstackFrame groups. Answer to ServerQueryCallstackFrame.
	CallstackFrameSize
	// SymbolInformation (64): @1 u32 line, @5 u64 symAddr. SingleString (file). Answer to ServerQuerySymbol.
	SymbolInformation
	// ExternalNameMetadata (65): (none). Client-internal only. Never on the wire.
	ExternalNameMetadata
	// SymbolCodeMetadata (66): (none). Client-internal only. Never on the wire.
	SymbolCodeMetadata
	// SourceCodeMetadata (67): (none). Client-internal only. Never on the wire.
	SourceCodeMetadata
	// FiberEnter (68): @1 i64 time, @9 u64 fiber, @17 u32 thread, @21 i32 groupHint. Time T±. Thread ref. fiber = fiber name key.
	FiberEnter
	// FiberLeave (69): @1 i64 time, @9 u32 thread. Time T±. Thread ref.
	FiberLeave
	// SectionEnter (70): @1 i64 time, @9 u32 id, @13 u16 category. Time T±. Thread ref. SingleString (text).
	SectionEnter
	// SectionLeave (71): @1 i64 time, @9 u32 id. Time T±. Thread ref.
	SectionLeave
	// SectionSetup (72): @1 u16 category. SingleString (category description).
	SectionSetup
	// Terminate (73): (none). Client is shutting down.
	Terminate
	// KeepAlive (74): (none). Ignored by server.
	KeepAlive
	// ThreadContext (75): @1 u32 thread. Switches current thread; ALWAYS resets thread ref to 0.
	ThreadContext
	// GpuCalibration (76): @1 i64 gpuTime, @9 i64 cpuTime, @17 i64 cpuDelta, @25 u8 context. Time ABS. gpuTime raw GPU ticks; cpuTime ABS; cpuDelta ns since previous calibration.
	GpuCalibration
	// GpuTimeSync (77): @1 i64 gpuTime, @9 i64 cpuTime, @17 u8 context. Time ABS. gpuTime raw GPU ticks; cpuTime ABS.
	GpuTimeSync
	// Crash (78): (none). Marks capture as crashed.
	Crash
	// CrashReport (79): @1 i64 time, @9 u64 text. Time ABS. Thread-bound. text = string key (queried). Uses pending Callstack of this thread if any.
	CrashReport
	// ZoneValidation (80): @1 u32 id. Thread-bound. Id for the next ZoneBegin* or must match the zone being ended/annotated.
	ZoneValidation
	// ZoneColor (81): @1 u8 b, @2 u8 g, @3 u8 r. Thread-bound. Color of innermost open zone.
	ZoneColor
	// ZoneValue (82): @1 u64 value. Thread-bound. Appended to zone text as "<dec> [0x<hex>]".
	ZoneValue
	// FrameMarkMsg (83): @1 i64 time, @9 u64 name. Time ABS. name 0 = main frame set "Frame".
	FrameMarkMsg
	// FrameMarkMsgStart (84): @1 i64 time, @9 u64 name. Time ABS. Discontinuous frame start; name must be non-zero.
	FrameMarkMsgStart
	// FrameMarkMsgEnd (85): @1 i64 time, @9 u64 name. Time ABS. Discontinuous frame end.
	FrameMarkMsgEnd
	// FrameVsync (86): @1 i64 time, @9 u32 id. Time ABS. id selects a vsync frame set (no name query).
	FrameVsync
	// SourceLocation (87): @1 u64 name, @9 u64 function, @17 u64 file, @25 u32 line, @29 u8 b, @30 u8 g, @31 u8 r. Answer to ServerQuerySourceLocation (no key: FIFO matched).
	SourceLocation
	// LockAnnounce (88): @1 u32 id, @5 i64 time, @13 u64 lckloc, @21 u8 type. Time ABS. lckloc = static source-location key; type 0=Lockable, 1=SharedLockable.
	LockAnnounce
	// LockTerminate (89): @1 u32 id, @5 i64 time. Time ABS.
	LockTerminate
	// LockMark (90): @1 u32 thread, @5 u32 id, @9 u64 srcloc. srcloc = static source-location key.
	LockMark
	// MessageLiteral (91): @1 i64 time, @9 u64 textAndMetadata. Time ABS. Thread-bound. textAndMetadata = (textKey<<8) | metadata; text queried as StringData.
	MessageLiteral
	// MessageLiteralColor (92): @1 i64 time, @9 u8 b, @10 u8 g, @11 u8 r, @12 u64 textAndMetadata. Time ABS. Thread-bound. as above + color.
	MessageLiteralColor
	// MessageLiteralCallstack (93): @1 i64 time, @9 u64 textAndMetadata. Time ABS. Thread-bound. CallstackPayload+Callstack before.
	MessageLiteralCallstack
	// MessageLiteralColorCallstack (94): @1 i64 time, @9 u8 b, @10 u8 g, @11 u8 r, @12 u64 textAndMetadata. Time ABS. Thread-bound. CallstackPayload+Callstack before.
	MessageLiteralColorCallstack
	// GpuNewContext (95): @1 i64 cpuTime, @9 i64 gpuTime, @17 u32 thread, @21 f32 period, @25 u8 context, @26 u8 flags, @27 u8 type. Time ABS. cpuTime ABS; gpuTime raw GPU ticks.
	GpuNewContext
	// CallstackFrame (96): @1 u32 line, @5 u64 symAddr, @13 u32 symLen. SingleString (function name) + SecondString (file) before.
	CallstackFrame
	// SysTimeReport (97): @1 i64 time, @9 f32 sysTime. Time ABS. sysTime = CPU usage percent.
	SysTimeReport
	// SysPowerReport (98): @1 i64 time, @9 u64 delta, @17 u64 name. Time ABS. delta in microjoules; name = string key (queried).
	SysPowerReport
	// TidToPid (99): @1 u64 tid, @9 u64 pid.
	TidToPid
	// HwSampleCpuCycle (100): @1 u64 ip, @9 i64 time. Time ABS. time 0 = unknown.
	HwSampleCpuCycle
	// HwSampleInstructionRetired (101): @1 u64 ip, @9 i64 time. Time ABS.
	HwSampleInstructionRetired
	// HwSampleCacheReference (102): @1 u64 ip, @9 i64 time. Time ABS.
	HwSampleCacheReference
	// HwSampleCacheMiss (103): @1 u64 ip, @9 i64 time. Time ABS.
	HwSampleCacheMiss
	// HwSampleBranchRetired (104): @1 u64 ip, @9 i64 time. Time ABS.
	HwSampleBranchRetired
	// HwSampleBranchMiss (105): @1 u64 ip, @9 i64 time. Time ABS.
	HwSampleBranchMiss
	// PlotConfig (106): @1 u64 name, @9 u8 type, @10 u8 step, @11 u8 fill, @12 u32 color. type: 0 Number,1 Memory,2 Percentage; step/fill 0/1; color 0xRRGGBB (0 = auto).
	PlotConfig
	// ParamSetup (107): @1 u32 idx, @5 u64 name, @13 u8 type, @14 i32 val. name = string key (queried); type 0 int,1 bool,2 trigger.
	ParamSetup
	// AckServerQueryNoop (108): (none). Generic query acknowledgement.
	AckServerQueryNoop
	// AckSourceCodeNotAvailable (109): @1 u32 id. Answer to ServerQuerySourceCode.
	AckSourceCodeNotAvailable
	// AckSymbolCodeNotAvailable (110): (none). Answer to ServerQuerySymbolCode.
	AckSymbolCodeNotAvailable
	// CpuTopology (111): @1 u32 package, @5 u32 die, @9 u32 core, @13 u32 thread. One per logical CPU.
	CpuTopology
	// SingleStringData (112): @1 u16 (len−256), @3 bytes[len]. For 256 ≤ len ≤ 65535. Sets the pending single string.
	SingleStringData
	// SecondStringData (113): @1 u16 (len−256), @3 bytes[len]. For 256 ≤ len ≤ 65535. Sets the pending second string.
	SecondStringData
	// SingleStringData8 (114): @1 u8 len, @2 bytes[len]. For len ≤ 255. Sets the pending single string.
	SingleStringData8
	// SecondStringData8 (115): @1 u8 len, @2 bytes[len]. For len ≤ 255. Sets the pending second string.
	SecondStringData8
	// MemNamePayload (116): @1 u64 name. name = pool name key (queried); consumed by next *Named mem event.
	MemNamePayload
	// ThreadGroupHint (117): @1 u32 thread, @5 i32 groupHint. Sent after a ThreadName answer when the thread has a group hint.
	ThreadGroupHint
	// GpuZoneAnnotation (118): @1 i64 noteId, @9 f64 value, @17 u32 thread, @21 u16 queryId, @23 u8 context.
	GpuZoneAnnotation
	// StringData (119): @1 u64 ptr, @9 u16 len, @11 bytes[len]. Answer to ServerQueryString; ptr = string key.
	StringData
	// ThreadName (120): @1 u64 ptr, @9 u16 len, @11 bytes[len]. Answer to ServerQueryThreadString; ptr = thread id.
	ThreadName
	// PlotName (121): @1 u64 ptr, @9 u16 len, @11 bytes[len]. Answer to ServerQueryPlotName; ptr = plot key.
	PlotName
	// SourceLocationPayload (122): @1 u64 ptr, @9 u16 len, @11 bytes[len]. Allocated source location; ptr ignored by server.
	SourceLocationPayload
	// CallstackPayload (123): @1 u64 ptr, @9 u16 len, @11 bytes[len]. len = 8·n, then n u64 return addresses; ptr ignored.
	CallstackPayload
	// CallstackAllocPayload (124): @1 u64 ptr, @9 u16 len, @11 bytes[len]. Lua-style frames; ptr ignored.
	CallstackAllocPayload
	// FrameName (125): @1 u64 ptr, @9 u16 len, @11 bytes[len]. Answer to ServerQueryFrameName; ptr = frame-set name key.
	FrameName
	// FrameImageData (126): @1 u64 ptr, @9 u32 len, @13 bytes[len]. DXT1 data, len = w·h/2; ptr ignored.
	FrameImageData
	// ExternalName (127): @1 u64 ptr, @9 u16 len, @11 bytes[len]. Answer to ServerQueryExternalName (process name); ptr = thread id.
	ExternalName
	// ExternalThreadName (128): @1 u64 ptr, @9 u16 len, @11 bytes[len]. Answer to ServerQueryExternalName (thread name); ptr = thread id. Sent BEFORE ExternalName.
	ExternalThreadName
	// SymbolCode (129): @1 u64 ptr, @9 u32 len, @13 bytes[len]. Answer to ServerQuerySymbolCode; ptr = symbol address.
	SymbolCode
	// SourceCode (130): @1 u64 ptr, @9 u32 len, @13 bytes[len]. Answer to ServerQuerySourceCode; ptr = query id.
	SourceCode
	// FiberName (131): @1 u64 ptr, @9 u16 len, @11 bytes[len]. Answer to ServerQueryFiberName; ptr = fiber key.
	FiberName

	// NumQueueTypes is the number of queue types; every tag >= NumQueueTypes
	// is a fatal protocol error.
	NumQueueTypes = 132
)

// Specs is the one table that describes every queue type; decoding, encoding,
// the text form and the size test are all driven by it. Entries are indexed
// by QueueType. Size is the fixed part including the tag byte (and, for
// variable items, the length field).
var Specs = [NumQueueTypes]Spec{
	ZoneText:                               {ZoneText, "ZoneText", 1, LenFixed, TimeNone, CtxThread, true, nil},
	ZoneName:                               {ZoneName, "ZoneName", 1, LenFixed, TimeNone, CtxThread, true, nil},
	Message:                                {Message, "Message", 10, LenFixed, TimeAbs, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU8, "metadata"}}},
	MessageColor:                           {MessageColor, "MessageColor", 13, LenFixed, TimeAbs, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU8, "b"}, {10, KindU8, "g"}, {11, KindU8, "r"}, {12, KindU8, "metadata"}}},
	MessageCallstack:                       {MessageCallstack, "MessageCallstack", 10, LenFixed, TimeAbs, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU8, "metadata"}}},
	MessageColorCallstack:                  {MessageColorCallstack, "MessageColorCallstack", 13, LenFixed, TimeAbs, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU8, "b"}, {10, KindU8, "g"}, {11, KindU8, "r"}, {12, KindU8, "metadata"}}},
	MessageAppInfo:                         {MessageAppInfo, "MessageAppInfo", 9, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "time"}}},
	ZoneBeginAllocSrcLoc:                   {ZoneBeginAllocSrcLoc, "ZoneBeginAllocSrcLoc", 9, LenFixed, TimeThread, CtxThread, true, []Field{{1, KindI64, "time"}}},
	ZoneBeginAllocSrcLocCallstack:          {ZoneBeginAllocSrcLocCallstack, "ZoneBeginAllocSrcLocCallstack", 9, LenFixed, TimeThread, CtxThread, true, []Field{{1, KindI64, "time"}}},
	CallstackSerial:                        {CallstackSerial, "CallstackSerial", 1, LenFixed, TimeNone, CtxNone, true, nil},
	Callstack:                              {Callstack, "Callstack", 1, LenFixed, TimeNone, CtxThread, true, nil},
	CallstackAlloc:                         {CallstackAlloc, "CallstackAlloc", 1, LenFixed, TimeNone, CtxThread, true, nil},
	CallstackSample:                        {CallstackSample, "CallstackSample", 13, LenFixed, TimeContextCompact, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindI64, "time"}}},
	CallstackSample32:                      {CallstackSample32, "CallstackSample32", 9, LenFixed, TimeContextCompact, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindU32, "time"}}},
	CallstackSample16:                      {CallstackSample16, "CallstackSample16", 7, LenFixed, TimeContextCompact, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindU16, "time"}}},
	CallstackSampleContextSwitch:           {CallstackSampleContextSwitch, "CallstackSampleContextSwitch", 13, LenFixed, TimeContextCompact, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindI64, "time"}}},
	CallstackSampleContextSwitch32:         {CallstackSampleContextSwitch32, "CallstackSampleContextSwitch32", 9, LenFixed, TimeContextCompact, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindU32, "time"}}},
	CallstackSampleContextSwitch16:         {CallstackSampleContextSwitch16, "CallstackSampleContextSwitch16", 7, LenFixed, TimeContextCompact, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindU16, "time"}}},
	FrameImage:                             {FrameImage, "FrameImage", 10, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "frame"}, {5, KindU16, "w"}, {7, KindU16, "h"}, {9, KindU8, "flip"}}},
	ZoneBegin:                              {ZoneBegin, "ZoneBegin", 17, LenFixed, TimeThreadCompact, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU64, "srcloc"}}},
	ZoneBegin32:                            {ZoneBegin32, "ZoneBegin32", 13, LenFixed, TimeThreadCompact, CtxThread, true, []Field{{1, KindU32, "time"}, {5, KindU64, "srcloc"}}},
	ZoneBegin16:                            {ZoneBegin16, "ZoneBegin16", 11, LenFixed, TimeThreadCompact, CtxThread, true, []Field{{1, KindU16, "time"}, {3, KindU64, "srcloc"}}},
	ZoneBeginCallstack:                     {ZoneBeginCallstack, "ZoneBeginCallstack", 17, LenFixed, TimeThreadCompact, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU64, "srcloc"}}},
	ZoneBeginCallstack32:                   {ZoneBeginCallstack32, "ZoneBeginCallstack32", 13, LenFixed, TimeThreadCompact, CtxThread, true, []Field{{1, KindU32, "time"}, {5, KindU64, "srcloc"}}},
	ZoneBeginCallstack16:                   {ZoneBeginCallstack16, "ZoneBeginCallstack16", 11, LenFixed, TimeThreadCompact, CtxThread, true, []Field{{1, KindU16, "time"}, {3, KindU64, "srcloc"}}},
	ZoneEnd:                                {ZoneEnd, "ZoneEnd", 9, LenFixed, TimeThreadCompact, CtxThread, true, []Field{{1, KindI64, "time"}}},
	ZoneEnd32:                              {ZoneEnd32, "ZoneEnd32", 5, LenFixed, TimeThreadCompact, CtxThread, true, []Field{{1, KindU32, "time"}}},
	ZoneEnd16:                              {ZoneEnd16, "ZoneEnd16", 3, LenFixed, TimeThreadCompact, CtxThread, true, []Field{{1, KindU16, "time"}}},
	LockWait:                               {LockWait, "LockWait", 17, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindU32, "id"}, {9, KindI64, "time"}}},
	LockObtain:                             {LockObtain, "LockObtain", 17, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindU32, "id"}, {9, KindI64, "time"}}},
	LockRelease:                            {LockRelease, "LockRelease", 13, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindU32, "id"}, {5, KindI64, "time"}}},
	LockSharedWait:                         {LockSharedWait, "LockSharedWait", 17, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindU32, "id"}, {9, KindI64, "time"}}},
	LockSharedObtain:                       {LockSharedObtain, "LockSharedObtain", 17, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindU32, "id"}, {9, KindI64, "time"}}},
	LockSharedRelease:                      {LockSharedRelease, "LockSharedRelease", 17, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindU32, "id"}, {5, KindI64, "time"}, {13, KindU32, "thread"}}},
	LockName:                               {LockName, "LockName", 5, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "id"}}},
	MemAlloc:                               {MemAlloc, "MemAlloc", 27, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "ptr"}, {21, KindU48, "size"}}},
	MemAllocNamed:                          {MemAllocNamed, "MemAllocNamed", 27, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "ptr"}, {21, KindU48, "size"}}},
	MemFree:                                {MemFree, "MemFree", 21, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "ptr"}}},
	MemFreeNamed:                           {MemFreeNamed, "MemFreeNamed", 21, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "ptr"}}},
	MemAllocCallstack:                      {MemAllocCallstack, "MemAllocCallstack", 27, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "ptr"}, {21, KindU48, "size"}}},
	MemAllocCallstackNamed:                 {MemAllocCallstackNamed, "MemAllocCallstackNamed", 27, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "ptr"}, {21, KindU48, "size"}}},
	MemFreeCallstack:                       {MemFreeCallstack, "MemFreeCallstack", 21, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "ptr"}}},
	MemFreeCallstackNamed:                  {MemFreeCallstackNamed, "MemFreeCallstackNamed", 21, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "ptr"}}},
	MemDiscard:                             {MemDiscard, "MemDiscard", 21, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "name"}}},
	MemDiscardCallstack:                    {MemDiscardCallstack, "MemDiscardCallstack", 21, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU64, "name"}}},
	GpuZoneBegin:                           {GpuZoneBegin, "GpuZoneBegin", 24, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}, {16, KindU64, "srcloc"}}},
	GpuZoneBeginCallstack:                  {GpuZoneBeginCallstack, "GpuZoneBeginCallstack", 24, LenFixed, TimeThread, CtxThread, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}, {16, KindU64, "srcloc"}}},
	GpuZoneBeginAllocSrcLoc:                {GpuZoneBeginAllocSrcLoc, "GpuZoneBeginAllocSrcLoc", 16, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}}},
	GpuZoneBeginAllocSrcLocCallstack:       {GpuZoneBeginAllocSrcLocCallstack, "GpuZoneBeginAllocSrcLocCallstack", 16, LenFixed, TimeThread, CtxThread, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}}},
	GpuZoneEnd:                             {GpuZoneEnd, "GpuZoneEnd", 16, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}}},
	GpuZoneBeginSerial:                     {GpuZoneBeginSerial, "GpuZoneBeginSerial", 24, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}, {16, KindU64, "srcloc"}}},
	GpuZoneBeginCallstackSerial:            {GpuZoneBeginCallstackSerial, "GpuZoneBeginCallstackSerial", 24, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}, {16, KindU64, "srcloc"}}},
	GpuZoneBeginAllocSrcLocSerial:          {GpuZoneBeginAllocSrcLocSerial, "GpuZoneBeginAllocSrcLocSerial", 16, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}}},
	GpuZoneBeginAllocSrcLocCallstackSerial: {GpuZoneBeginAllocSrcLocCallstackSerial, "GpuZoneBeginAllocSrcLocCallstackSerial", 16, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}}},
	GpuZoneEndSerial:                       {GpuZoneEndSerial, "GpuZoneEndSerial", 16, LenFixed, TimeSerial, CtxNone, true, []Field{{1, KindI64, "cpuTime"}, {9, KindU32, "thread"}, {13, KindU16, "queryId"}, {15, KindU8, "context"}}},
	PlotDataInt:                            {PlotDataInt, "PlotDataInt", 25, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindU64, "name"}, {9, KindI64, "time"}, {17, KindI64, "val"}}},
	PlotDataFloat:                          {PlotDataFloat, "PlotDataFloat", 21, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindU64, "name"}, {9, KindI64, "time"}, {17, KindF32, "val"}}},
	PlotDataDouble:                         {PlotDataDouble, "PlotDataDouble", 25, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindU64, "name"}, {9, KindI64, "time"}, {17, KindF64, "val"}}},
	ContextSwitch:                          {ContextSwitch, "ContextSwitch", 23, LenFixed, TimeContext, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "oldThread"}, {13, KindU32, "newThread"}, {17, KindU8, "cpu"}, {18, KindU8, "oldThreadWaitReason"}, {19, KindU8, "oldThreadState"}, {20, KindU8, "previousCState"}, {21, KindI8, "newThreadPriority"}, {22, KindI8, "oldThreadPriority"}}},
	ThreadWakeup:                           {ThreadWakeup, "ThreadWakeup", 16, LenFixed, TimeContext, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}, {13, KindU8, "cpu"}, {14, KindI8, "adjustReason"}, {15, KindI8, "adjustIncrement"}}},
	GpuTime:                                {GpuTime, "GpuTime", 12, LenFixed, TimeGPU, CtxNone, true, []Field{{1, KindI64, "gpuTime"}, {9, KindU16, "queryId"}, {11, KindU8, "context"}}},
	GpuContextName:                         {GpuContextName, "GpuContextName", 2, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU8, "context"}}},
	GpuAnnotationName:                      {GpuAnnotationName, "GpuAnnotationName", 10, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindI64, "noteId"}, {9, KindU8, "context"}}},
	CallstackFrameSize:                     {CallstackFrameSize, "CallstackFrameSize", 10, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU8, "size"}}},
	SymbolInformation:                      {SymbolInformation, "SymbolInformation", 13, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "line"}, {5, KindU64, "symAddr"}}},
	ExternalNameMetadata:                   {ExternalNameMetadata, "ExternalNameMetadata", 1, LenFixed, TimeNone, CtxNone, false, nil},
	SymbolCodeMetadata:                     {SymbolCodeMetadata, "SymbolCodeMetadata", 1, LenFixed, TimeNone, CtxNone, false, nil},
	SourceCodeMetadata:                     {SourceCodeMetadata, "SourceCodeMetadata", 1, LenFixed, TimeNone, CtxNone, false, nil},
	FiberEnter:                             {FiberEnter, "FiberEnter", 25, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindI64, "time"}, {9, KindU64, "fiber"}, {17, KindU32, "thread"}, {21, KindI32, "groupHint"}}},
	FiberLeave:                             {FiberLeave, "FiberLeave", 13, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindI64, "time"}, {9, KindU32, "thread"}}},
	SectionEnter:                           {SectionEnter, "SectionEnter", 15, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindI64, "time"}, {9, KindU32, "id"}, {13, KindU16, "category"}}},
	SectionLeave:                           {SectionLeave, "SectionLeave", 13, LenFixed, TimeThread, CtxThreadRef, true, []Field{{1, KindI64, "time"}, {9, KindU32, "id"}}},
	SectionSetup:                           {SectionSetup, "SectionSetup", 3, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU16, "category"}}},
	Terminate:                              {Terminate, "Terminate", 1, LenFixed, TimeNone, CtxNone, true, nil},
	KeepAlive:                              {KeepAlive, "KeepAlive", 1, LenFixed, TimeNone, CtxNone, true, nil},
	ThreadContext:                          {ThreadContext, "ThreadContext", 5, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "thread"}}},
	GpuCalibration:                         {GpuCalibration, "GpuCalibration", 26, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "gpuTime"}, {9, KindI64, "cpuTime"}, {17, KindI64, "cpuDelta"}, {25, KindU8, "context"}}},
	GpuTimeSync:                            {GpuTimeSync, "GpuTimeSync", 18, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "gpuTime"}, {9, KindI64, "cpuTime"}, {17, KindU8, "context"}}},
	Crash:                                  {Crash, "Crash", 1, LenFixed, TimeNone, CtxNone, true, nil},
	CrashReport:                            {CrashReport, "CrashReport", 17, LenFixed, TimeAbs, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU64, "text"}}},
	ZoneValidation:                         {ZoneValidation, "ZoneValidation", 5, LenFixed, TimeNone, CtxThread, true, []Field{{1, KindU32, "id"}}},
	ZoneColor:                              {ZoneColor, "ZoneColor", 4, LenFixed, TimeNone, CtxThread, true, []Field{{1, KindU8, "b"}, {2, KindU8, "g"}, {3, KindU8, "r"}}},
	ZoneValue:                              {ZoneValue, "ZoneValue", 9, LenFixed, TimeNone, CtxThread, true, []Field{{1, KindU64, "value"}}},
	FrameMarkMsg:                           {FrameMarkMsg, "FrameMarkMsg", 17, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU64, "name"}}},
	FrameMarkMsgStart:                      {FrameMarkMsgStart, "FrameMarkMsgStart", 17, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU64, "name"}}},
	FrameMarkMsgEnd:                        {FrameMarkMsgEnd, "FrameMarkMsgEnd", 17, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU64, "name"}}},
	FrameVsync:                             {FrameVsync, "FrameVsync", 13, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU32, "id"}}},
	SourceLocation:                         {SourceLocation, "SourceLocation", 32, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU64, "name"}, {9, KindU64, "function"}, {17, KindU64, "file"}, {25, KindU32, "line"}, {29, KindU8, "b"}, {30, KindU8, "g"}, {31, KindU8, "r"}}},
	LockAnnounce:                           {LockAnnounce, "LockAnnounce", 22, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindU32, "id"}, {5, KindI64, "time"}, {13, KindU64, "lckloc"}, {21, KindU8, "type"}}},
	LockTerminate:                          {LockTerminate, "LockTerminate", 13, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindU32, "id"}, {5, KindI64, "time"}}},
	LockMark:                               {LockMark, "LockMark", 17, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindU32, "id"}, {9, KindU64, "srcloc"}}},
	MessageLiteral:                         {MessageLiteral, "MessageLiteral", 17, LenFixed, TimeAbs, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU64, "textAndMetadata"}}},
	MessageLiteralColor:                    {MessageLiteralColor, "MessageLiteralColor", 20, LenFixed, TimeAbs, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU8, "b"}, {10, KindU8, "g"}, {11, KindU8, "r"}, {12, KindU64, "textAndMetadata"}}},
	MessageLiteralCallstack:                {MessageLiteralCallstack, "MessageLiteralCallstack", 17, LenFixed, TimeAbs, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU64, "textAndMetadata"}}},
	MessageLiteralColorCallstack:           {MessageLiteralColorCallstack, "MessageLiteralColorCallstack", 20, LenFixed, TimeAbs, CtxThread, true, []Field{{1, KindI64, "time"}, {9, KindU8, "b"}, {10, KindU8, "g"}, {11, KindU8, "r"}, {12, KindU64, "textAndMetadata"}}},
	GpuNewContext:                          {GpuNewContext, "GpuNewContext", 28, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "cpuTime"}, {9, KindI64, "gpuTime"}, {17, KindU32, "thread"}, {21, KindF32, "period"}, {25, KindU8, "context"}, {26, KindU8, "flags"}, {27, KindU8, "type"}}},
	CallstackFrame:                         {CallstackFrame, "CallstackFrame", 17, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "line"}, {5, KindU64, "symAddr"}, {13, KindU32, "symLen"}}},
	SysTimeReport:                          {SysTimeReport, "SysTimeReport", 13, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindF32, "sysTime"}}},
	SysPowerReport:                         {SysPowerReport, "SysPowerReport", 25, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindI64, "time"}, {9, KindU64, "delta"}, {17, KindU64, "name"}}},
	TidToPid:                               {TidToPid, "TidToPid", 17, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU64, "tid"}, {9, KindU64, "pid"}}},
	HwSampleCpuCycle:                       {HwSampleCpuCycle, "HwSampleCpuCycle", 17, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindU64, "ip"}, {9, KindI64, "time"}}},
	HwSampleInstructionRetired:             {HwSampleInstructionRetired, "HwSampleInstructionRetired", 17, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindU64, "ip"}, {9, KindI64, "time"}}},
	HwSampleCacheReference:                 {HwSampleCacheReference, "HwSampleCacheReference", 17, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindU64, "ip"}, {9, KindI64, "time"}}},
	HwSampleCacheMiss:                      {HwSampleCacheMiss, "HwSampleCacheMiss", 17, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindU64, "ip"}, {9, KindI64, "time"}}},
	HwSampleBranchRetired:                  {HwSampleBranchRetired, "HwSampleBranchRetired", 17, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindU64, "ip"}, {9, KindI64, "time"}}},
	HwSampleBranchMiss:                     {HwSampleBranchMiss, "HwSampleBranchMiss", 17, LenFixed, TimeAbs, CtxNone, true, []Field{{1, KindU64, "ip"}, {9, KindI64, "time"}}},
	PlotConfig:                             {PlotConfig, "PlotConfig", 16, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU64, "name"}, {9, KindU8, "type"}, {10, KindU8, "step"}, {11, KindU8, "fill"}, {12, KindU32, "color"}}},
	ParamSetup:                             {ParamSetup, "ParamSetup", 18, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "idx"}, {5, KindU64, "name"}, {13, KindU8, "type"}, {14, KindI32, "val"}}},
	AckServerQueryNoop:                     {AckServerQueryNoop, "AckServerQueryNoop", 1, LenFixed, TimeNone, CtxNone, true, nil},
	AckSourceCodeNotAvailable:              {AckSourceCodeNotAvailable, "AckSourceCodeNotAvailable", 5, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "id"}}},
	AckSymbolCodeNotAvailable:              {AckSymbolCodeNotAvailable, "AckSymbolCodeNotAvailable", 1, LenFixed, TimeNone, CtxNone, true, nil},
	CpuTopology:                            {CpuTopology, "CpuTopology", 17, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "package"}, {5, KindU32, "die"}, {9, KindU32, "core"}, {13, KindU32, "thread"}}},
	SingleStringData:                       {SingleStringData, "SingleStringData", 3, LenString16, TimeNone, CtxNone, true, []Field{{1, KindU16, "lenMinus256"}}},
	SecondStringData:                       {SecondStringData, "SecondStringData", 3, LenString16, TimeNone, CtxNone, true, []Field{{1, KindU16, "lenMinus256"}}},
	SingleStringData8:                      {SingleStringData8, "SingleStringData8", 2, LenString8, TimeNone, CtxNone, true, []Field{{1, KindU8, "len"}}},
	SecondStringData8:                      {SecondStringData8, "SecondStringData8", 2, LenString8, TimeNone, CtxNone, true, []Field{{1, KindU8, "len"}}},
	MemNamePayload:                         {MemNamePayload, "MemNamePayload", 9, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU64, "name"}}},
	ThreadGroupHint:                        {ThreadGroupHint, "ThreadGroupHint", 9, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindU32, "thread"}, {5, KindI32, "groupHint"}}},
	GpuZoneAnnotation:                      {GpuZoneAnnotation, "GpuZoneAnnotation", 24, LenFixed, TimeNone, CtxNone, true, []Field{{1, KindI64, "noteId"}, {9, KindF64, "value"}, {17, KindU32, "thread"}, {21, KindU16, "queryId"}, {23, KindU8, "context"}}},
	StringData:                             {StringData, "StringData", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
	ThreadName:                             {ThreadName, "ThreadName", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
	PlotName:                               {PlotName, "PlotName", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
	SourceLocationPayload:                  {SourceLocationPayload, "SourceLocationPayload", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
	CallstackPayload:                       {CallstackPayload, "CallstackPayload", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
	CallstackAllocPayload:                  {CallstackAllocPayload, "CallstackAllocPayload", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
	FrameName:                              {FrameName, "FrameName", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
	FrameImageData:                         {FrameImageData, "FrameImageData", 13, LenKey32, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU32, "len"}}},
	ExternalName:                           {ExternalName, "ExternalName", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
	ExternalThreadName:                     {ExternalThreadName, "ExternalThreadName", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
	SymbolCode:                             {SymbolCode, "SymbolCode", 13, LenKey32, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU32, "len"}}},
	SourceCode:                             {SourceCode, "SourceCode", 13, LenKey32, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU32, "len"}}},
	FiberName:                              {FiberName, "FiberName", 11, LenKey16, TimeNone, CtxNone, true, []Field{{1, KindU64, "ptr"}, {9, KindU16, "len"}}},
}
