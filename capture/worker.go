package capture

import (
	"fmt"
	"time"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/symbolize"
)

// worker is Tracy's single-consumer server worker: it applies the decoded
// client stream, item by item and in stream order, to a model.Trace, and
// queues the queries for every key it meets for the first time. All of its
// state belongs to the consumer goroutine, so nothing here is locked.
//
// The state splits in three: the trace being built (t), the protocol state
// of the connection (time references, thread context, the one-item "payload
// before event" slots), and the bookkeeping that maps client
// keys (pointers, thread ids, addresses) to model indices and tracks what
// has been asked and not yet answered (the termination check needs it).
type worker struct {
	t *model.Trace
	q *queryQueue

	// Options that change what is stored or asked.
	localSources bool           // read source files from this machine when valid (Tracy's capture does)
	sym          *serverSymbols // server-side resolution, nil unless SymbolsServer
	negotiate    bool           // ask a gotracy client for its image list (SymbolsServer, SymbolsNone)

	// gotracy image-list extension (protocol.ServerQueryGotracyImages).
	imagesPending bool                    // asked, not answered
	extImages     []symbolize.ImageRecord // the client's images, with ids

	// Welcome-derived.
	timerMul       float64
	baseTime       int64
	onDemand       bool
	codeTransfer   bool
	combineSamples bool
	ignoreMemFree  bool
	ignoreMemAlloc bool
	ignoreFrameEnd bool
	frameOffset    uint64
	executableTime uint64
	captureTime    uint64

	refs protocol.TimeRefs

	// Thread context.
	threadCtx   uint32
	ctxData     *threadState // cached thread of threadCtx, nil until noticed
	threads     map[uint64]*threadState
	lastThread  *threadState      // one-entry cache for noticeThread
	threadLocal map[uint64]uint16 // thread id -> index in t.ThreadIndex

	// Strings.
	strIdx     map[string]model.StrID // content -> interned id (Tracy's StoreString)
	strPending map[uint64]struct{}    // pointer keys asked, not answered
	single     model.StrID            // pending SingleString, 0 = empty
	second     model.StrID            // pending SecondString
	hasSingle  bool
	hasSecond  bool
	singleMemo strMemo // storeStringMemo's memos of the two slots
	secondMemo strMemo
	strAdded   uint64 // strings interned so far (tells a new string from a known one)

	// With a flight recorder (flight_reclaim.go): per string its state or
	// its count of zone-extra and message references, the emptied string
	// slots and the zone extras dropped zones left, for reuse.
	strUse    []int32
	strFree   []model.StrID
	extraFree []uint32

	// Thread names asked, not answered.
	threadNamePending map[uint64]struct{}

	// Source locations.
	srclocShrink    map[uint64]model.SrcLocID // key -> index in t.SrcLocIndex
	srclocQueue     fifoU64                   // keys asked, answers come in this order
	checkSrclocLast uint64
	shrinkLastKey   uint64
	shrinkLastID    model.SrcLocID
	dynSrcLocs      map[model.SourceLocation]model.SrcLocID
	pendingPayload  model.SrcLocID // allocated source location waiting for its zone, 0 = none

	// Call stacks.
	cs              callstacks
	pendingCS       uint32 // CallstackPayload waiting for Callstack/CallstackSerial/sample
	serialNextCS    uint32
	frameQueried    map[uint64]uint8 // packed frame id -> frameAsked/frameResolved
	csScratch       []uint64
	pendingFrames   int // CallstackFrame queries unanswered
	frameStaging    *model.FrameData
	frameStagingPtr uint64
	subframes       int // CallstackFrame items still expected for the staged answer
	symbolPending   map[uint64]symbolPending
	symbolKnown     map[uint64]struct{}
	lastSymbol      uint64 // the last symbol found known or asked for (0: none)
	symCodePending  int
	allocFrameNext  uint64                 // next id of a synthetic (Lua-style) frame
	allocFrameRev   map[string]uint64      // synthetic frame content -> id
	checkedRefs     map[fileCheck]struct{} // source-file references already looked at
	lastChecked     model.StrID            // the last file index checked (lastCheckedOK)
	lastCheckedOK   bool
	pendingFiles    map[uint64]struct{} // file string keys waiting for their text
	sourceQueries   map[uint32]string   // SourceCode query id -> file name
	sourceCached    map[string]struct{} // files already in t.SourceCache
	nextSourceQuery uint32

	// Frames, plots, memory, locks.
	frameSets    map[uint64]int // name key -> index in t.FrameSets
	framePending map[uint64]*model.FrameSet
	vsync        map[uint32]int
	imageStaging map[int64]int32
	// A frame image's blocks arrive (FrameImageData) before its size
	// (FrameImage): they wait in imgStage, which then becomes the stored
	// image (images.go); images compresses them on another goroutine.
	pendingImage  bool
	imgStage      []byte
	images        *imagePacker
	plots         map[uint64]int // name key -> index in t.Plots
	plotPending   map[uint64]*model.Plot
	plotByName    map[model.StrID]int
	frameByName   map[model.StrID]int
	sysTimePlot   int // index in t.Plots, -1 = none
	memPools      map[uint64]*memPool
	memNamePay    uint64
	hasMemNamePay bool
	locks         map[uint32]*lockState
	extPending    int
	extNames      map[uint64]struct{}
	fibersPending int
	fibers        map[uint64]*threadState // fiber key -> virtual thread
	fiberKeys     map[uint64]uint64       // fiber key -> virtual thread id, name asked
	sections      map[uint32]sectionRef
	params        []param
	msgUnsorted   bool

	badImages int // frame images dropped because their size is inconsistent
	gpu       [256]*gpuCtx
	power     map[uint64]*powerDomain

	ctx     *model.CtxSwitchBuilder // context switches, CPU timelines
	hwIndex map[uint64]int          // instruction address -> index in t.HwSamples

	flight *flight // flight.go: the flight recorder, nil when off

	terminate bool
	crashed   bool
	fail      error // first instrumentation failure

	// Counters for the status line.
	events uint64
	zones  uint64
	// lastTime mirrors t.Metadata.LastTime.
	lastTime int64
}

type threadState struct {
	id       uint64
	idx      int // index in t.Threads
	zones    model.ZoneList
	stack    []uint32
	ids      []uint32 // zone validation ids, parallel to stack
	nextID   uint32
	nextCS   uint32 // callstack for the next *Callstack event of this thread
	fiber    *threadState
	isFiber  bool
	hasLocal bool // has its local thread index (see localThread)

	pendingSample    model.Sample // CombineSamples: waiting for its twin
	hasPendingSample bool

	// With a flight recorder: the zones given an extra, in the order the
	// extras were made, from logHead on (flight_reclaim.go).
	extraLog []extraRef
	logHead  int
	logBase  int64
}

type symbolPending struct {
	name, image, file model.StrID
	line, size        uint32
	inline            bool
}

type lockState struct {
	idx           int // index in t.Locks
	threadMap     map[uint64]uint8
	lockingThread uint64
}

type memPool struct {
	idx    int               // index in t.MemPools
	active map[uint64]uint32 // ptr -> event index
}

type param struct {
	idx  uint32
	name uint64
	typ  uint8
	val  int32
}

func newWorker(t *model.Trace, q *queryQueue) *worker {
	w := &worker{
		t:                 t,
		q:                 q,
		threads:           map[uint64]*threadState{},
		threadLocal:       map[uint64]uint16{0: 0},
		strIdx:            map[string]model.StrID{},
		strPending:        map[uint64]struct{}{},
		threadNamePending: map[uint64]struct{}{},
		srclocShrink:      map[uint64]model.SrcLocID{},
		dynSrcLocs:        map[model.SourceLocation]model.SrcLocID{},
		frameQueried:      map[uint64]uint8{},
		symbolPending:     map[uint64]symbolPending{},
		symbolKnown:       map[uint64]struct{}{},
		allocFrameRev:     map[string]uint64{},
		checkedRefs:       map[fileCheck]struct{}{},
		pendingFiles:      map[uint64]struct{}{},
		sourceQueries:     map[uint32]string{},
		sourceCached:      map[string]struct{}{},
		frameSets:         map[uint64]int{0: 0},
		framePending:      map[uint64]*model.FrameSet{},
		vsync:             map[uint32]int{},
		imageStaging:      map[int64]int32{},
		plots:             map[uint64]int{},
		plotPending:       map[uint64]*model.Plot{},
		plotByName:        map[model.StrID]int{},
		frameByName:       map[model.StrID]int{},
		sysTimePlot:       -1,
		memPools:          map[uint64]*memPool{},
		locks:             map[uint32]*lockState{},
		extNames:          map[uint64]struct{}{},
		fibers:            map[uint64]*threadState{},
		fiberKeys:         map[uint64]uint64{},
		power:             map[uint64]*powerDomain{},
		ctx:               model.NewCtxSwitchBuilder(t, false),
		hwIndex:           map[uint64]int{},
		checkSrclocLast:   0,
	}
	w.cs.init(t)
	for i, s := range t.Strings {
		if i > 0 {
			if _, dup := w.strIdx[s]; !dup {
				w.strIdx[s] = model.StrID(i)
			}
		}
	}
	if id, ok := t.PtrStrings[0]; ok {
		w.frameByName[id] = 0
	}
	for i := range t.MemPools {
		w.memPools[t.MemPools[i].Name] = &memPool{idx: i, active: map[uint64]uint32{}}
	}
	return w
}

// start applies the welcome (and on-demand payload) as Tracy's worker does
// at connection time: the time base, the synthetic frames of the base frame
// set, the capture's metadata.
func (w *worker) start(h hello) {
	wl := &h.welcome
	// readHello refused a multiplier that is not positive and finite.
	w.timerMul = wl.TimerMul
	w.baseTime = wl.InitBegin
	w.onDemand = wl.Flags&protocol.FlagOnDemand != 0
	w.codeTransfer = wl.Flags&protocol.FlagCodeTransfer != 0
	w.combineSamples = wl.Flags&protocol.FlagCombineSamples != 0
	w.ignoreMemFree = w.onDemand || wl.Flags&protocol.FlagIgnoreMemFaults != 0
	w.ignoreMemAlloc = wl.Flags&protocol.FlagIgnoreMemFaults != 0
	w.ignoreFrameEnd = w.onDemand
	w.executableTime = wl.ExecTime
	w.captureTime = wl.Epoch

	m := &w.t.Metadata
	m.TimerMul = wl.TimerMul
	m.Resolution = int64(float64(wl.Resolution) * w.timerMul)
	m.PID = wl.PID
	m.SamplingPeriod = wl.SamplingPeriod
	m.CPUArch = uint8(wl.CPUArch)
	m.CPUID = wl.CPUID
	m.CPUManufacturer = wl.CPUManufacturer
	m.OnDemand = w.onDemand
	m.CaptureProgram = wl.ProgramName
	m.CaptureTime = wl.Epoch
	m.ExecutableTime = wl.ExecTime
	m.HostInfo = wl.HostInfo
	date := time.Unix(int64(wl.Epoch), 0).Format("2006-01-02 15:04:05")
	m.CaptureName = fmt.Sprintf("%s @ %s", wl.ProgramName, date)

	if w.negotiate && protocol.HasExtImages(wl.HostInfo) {
		// Before any other query, so that every frame answer comes after
		// the image list.
		w.imagesPending = true
		w.q.push(protocol.ServerQueryGotracyImages, protocol.ExtImagesKey, 0)
	}

	base := &w.t.FrameSets[0]
	initEnd := w.tscTime(wl.InitEnd)
	base.Frames = append(base.Frames, model.Frame{Start: 0, End: -1, Image: -1}, model.Frame{Start: initEnd, End: -1, Image: -1})
	w.setLast(initEnd)
	if h.onDemand != nil {
		w.frameOffset = h.onDemand.Frames
		m.FrameOffset = h.onDemand.Frames
		base.Frames = append(base.Frames, model.Frame{Start: w.tscTime(h.onDemand.CurrentTime), End: -1, Image: -1})
	}
}

// tscTime converts a client tick to capture nanoseconds, as Tracy does: in
// double precision, truncated.
func (w *worker) tscTime(t int64) int64 {
	return int64(float64(t-w.baseTime) * w.timerMul)
}

func (w *worker) setLast(t int64) {
	if t > w.lastTime {
		w.lastTime = t
	}
}

// failf records the first instrumentation failure; the consumer stops after
// the current item.
func (w *worker) failf(reason string, thread uint64, detail string) {
	if w.fail == nil {
		w.fail = &InstrumentationError{Reason: reason, Thread: thread, Detail: detail}
	}
}

// finish completes what a saved trace needs from the open state: subtree
// ends of zones that never ended, sorted messages, the last time.
func (w *worker) finish() {
	t := w.t
	for _, td := range w.threads {
		for _, zi := range td.stack {
			td.zones.SetNextOf(td.zones.At(int(zi)), td.zones.Len())
		}
	}
	for _, td := range w.threads {
		if td.zones.Len() > 0 {
			// The zones stay where they were written: no copy.
			td.zones.Trim()
			t.Threads[td.idx].Zones = td.zones
			td.zones = model.ZoneList{}
		}
	}
	if w.msgUnsorted {
		w.sortMessages()
	}
	for _, im := range w.extImages {
		symbolize.AddImage(t, im, w.storeStringS)
	}
	w.finishGPU()
	w.pendingImage = false
	w.imgStage = nil
	w.stopImages()
	t.Metadata.LastTime = w.lastTime
}

// idle reports whether nothing is outstanding, the condition (with empty
// zone stacks) under which Tracy's server answers Terminate.
func (w *worker) idle() bool {
	if len(w.strPending) != 0 || len(w.threadNamePending) != 0 || w.srclocQueue.len() != 0 ||
		w.pendingFrames != 0 || len(w.plotPending) != 0 || w.pendingCS != 0 || w.extPending != 0 ||
		w.subframes != 0 || w.pendingImage || len(w.symbolPending) != 0 || w.symCodePending != 0 ||
		!w.q.empty() || w.pendingPayload != 0 || w.hasSingle || w.hasSecond ||
		len(w.sourceQueries) != 0 || w.fibersPending != 0 || w.imagesPending {
		return false
	}
	if w.crashed {
		return true
	}
	for _, td := range w.threads {
		if len(td.stack) != 0 {
			return false
		}
	}
	return true
}

// pendingQueries lists what the server asked and the client has not
// answered yet (the query part of idle), for UnansweredError.
func (w *worker) pendingQueries() []Pending {
	var p []Pending
	add := func(what string, n int) {
		if n > 0 {
			p = append(p, Pending{What: what, Count: n})
		}
	}
	add("call-stack frames", w.pendingFrames)
	add("strings", len(w.strPending))
	add("thread names", len(w.threadNamePending))
	add("source locations", w.srclocQueue.len())
	add("plot names", len(w.plotPending))
	add("symbols", len(w.symbolPending))
	add("symbol code", w.symCodePending)
	add("source files", len(w.sourceQueries))
	add("external thread names", w.extPending)
	add("fiber names", w.fibersPending)
	if w.imagesPending {
		add("image lists", 1)
	}
	add("queries never sent", w.q.backlog())
	return p
}

// fifoU64 is a FIFO of keys.
type fifoU64 struct {
	items []uint64
	head  int
}

func (f *fifoU64) len() int { return len(f.items) - f.head }
func (f *fifoU64) push(v uint64) {
	if f.head > 0 && f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	}
	f.items = append(f.items, v)
}
func (f *fifoU64) pop() uint64 {
	v := f.items[f.head]
	f.head++
	if f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	}
	return v
}
