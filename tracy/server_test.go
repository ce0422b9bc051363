//go:build !notracy

package tracy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/protocol"
)

// testServer is a small Tracy server written against the protocol package:
// it connects, handshakes, decodes every item, keeps the cross-item state a
// real server keeps (thread context, time references, pending strings and
// payloads, zone stacks), asks for every unknown key (source locations in
// FIFO order) and ends the session as Tracy's server does: after Terminate, once
// nothing is pending and every zone stack is empty.

type capZone struct {
	loc        uint64
	start, end int64
	text       string
	name       string
	color      uint32
	value      uint64
	hasValue   bool
	children   []*capZone
	callstack  []uint64
}

type capThread struct {
	id    uint32
	roots []*capZone
	stack []*capZone
}

type capLoc struct {
	name, function, file uint64
	line                 uint32
	color                uint32
}

type capMsg struct {
	thread   uint32
	text     string
	color    uint32
	hasColor bool
	literal  bool
	stack    []uint64
	t        int64
}

type capMem struct {
	alloc bool
	ptr   uint64
	size  uint64
	pool  uint64
	tid   uint32
	stack []uint64
}

type capLock struct {
	typ    QueueTypeName
	id     uint32
	thread uint32
	t      int64
}

// QueueTypeName keeps lock event kinds readable in failures.
type QueueTypeName = protocol.QueueType

type capFrameMark struct {
	kind protocol.QueueType
	name uint64
	t    int64
}

type capImage struct {
	frame uint32
	w, h  uint16
	flip  uint8
	data  []byte
}

type capPlot struct {
	name uint64
	t    int64
	v    float64
}

type capFrame struct {
	image, function, file string
	line                  uint32
	symAddr               uint64
}

type captured struct {
	sysTimes    int // SysTimeReport items
	welcome     protocol.Welcome
	onDemand    *protocol.OnDemandPayload
	threads     map[uint32]*capThread
	threadNames map[uint32]string
	locs        map[uint64]capLoc
	strs        map[uint64]string
	plotNames   map[uint64]string
	frameNames  map[uint64]string
	messages    []capMsg
	appInfo     []string
	mem         []capMem
	locks       []capLock
	lockAnn     map[uint32]uint64
	lockNames   map[uint32]string
	frames      []capFrameMark
	images      []capImage
	plots       []capPlot
	plotCfg     map[uint64][4]uint32
	callFrames  map[uint64][]capFrame
	symbols     map[uint64]string
	sources     map[uint32][]byte // source id -> content (nil: not available)
	params      [][3]uint64       // idx, name key, value
	discards    []uint64          // pool keys
	items       int
	terminate   bool
	lastTimes   map[uint32]int64
}

type testServer struct {
	t       testing.TB
	conn    net.Conn
	cap     *captured
	done    chan struct{}
	err     error
	mu      sync.Mutex
	wbuf    []byte
	pending int // queries sent, not yet answered
	// FIFO of queried source locations
	slocQ []uint64
	asked map[[2]uint64]bool // (space, key) already queried
	// requestSource asks the client for these files once learned
	requestSource []string
	srcIDs        map[uint32]string
	nextSrc       uint32
	refs          protocol.TimeRefs
	curThread     uint32
	single        []byte
	hasSingle     bool
	second        []byte
	hasSecond     bool
	callstack     []uint64
	threadStack   map[uint32][]uint64
	serialStack   []uint64
	memName       uint64
	imageData     []byte
	frameAnswer   *struct {
		ptr    uint64
		n      int
		image  string
		frames []capFrame
	}
	maxWait time.Duration
	// countOnly keeps zone counts per location instead of zone trees, so
	// the server's own memory stays flat over millions of zones.
	countOnly  bool
	frameDelay time.Duration // a slow server
	termAlone  bool          // the Terminate came in a frame of its own
	locCounts  map[uint64]int
	nameCounts map[string]int
	depth      map[uint32][]uint64
}

func dialTestServer(t testing.TB, port int) *testServer {
	t.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("dial client: %v", err)
	}
	ts := &testServer{t: t, conn: c, done: make(chan struct{}), asked: map[[2]uint64]bool{},
		threadStack: map[uint32][]uint64{}, srcIDs: map[uint32]string{}, maxWait: 60 * time.Second}
	ts.cap = &captured{threads: map[uint32]*capThread{}, threadNames: map[uint32]string{}, locs: map[uint64]capLoc{},
		strs: map[uint64]string{}, plotNames: map[uint64]string{}, frameNames: map[uint64]string{},
		lockAnn: map[uint32]uint64{}, lockNames: map[uint32]string{}, plotCfg: map[uint64][4]uint32{},
		callFrames: map[uint64][]capFrame{}, symbols: map[uint64]string{}, sources: map[uint32][]byte{},
		lastTimes: map[uint32]int64{}}
	hs := append([]byte(protocol.Shibboleth), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(hs[8:], protocol.ProtocolVersion)
	if _, err := c.Write(hs); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	return ts
}

// serve runs the session in the background; result waits for its end.
func (ts *testServer) counting() *testServer {
	ts.countOnly = true
	ts.locCounts = map[uint64]int{}
	ts.nameCounts = map[string]int{}
	ts.depth = map[uint32][]uint64{}
	return ts
}

func (ts *testServer) serve() *testServer {
	go func() {
		defer close(ts.done)
		ts.err = ts.run()
		ts.conn.Close()
	}()
	return ts
}

func (ts *testServer) result() *captured {
	ts.t.Helper()
	select {
	case <-ts.done:
	case <-time.After(ts.maxWait):
		ts.conn.Close()
		<-ts.done
		ts.t.Fatalf("test server: session did not end in %v", ts.maxWait)
	}
	if ts.err != nil {
		ts.t.Fatalf("test server: %v", ts.err)
	}
	if !ts.cap.terminate {
		ts.t.Fatalf("test server: no Terminate received")
	}
	return ts.cap
}

func (ts *testServer) query(typ protocol.ServerQuery, ptr uint64, extra uint32) {
	ts.wbuf = protocol.ServerQueryPacket{Type: typ, Ptr: ptr, Extra: extra}.Append(ts.wbuf)
	if typ != protocol.ServerQueryTerminate {
		ts.pending++
	}
}

// ask queries key in a key space once per connection.
func (ts *testServer) ask(typ protocol.ServerQuery, key uint64) {
	if key == 0 {
		return
	}
	space := uint64(typ)
	if typ == protocol.ServerQueryPlotName || typ == protocol.ServerQueryFrameName {
		space = uint64(protocol.ServerQueryString) // one key space
	}
	k := [2]uint64{space, key}
	if ts.asked[k] {
		return
	}
	ts.asked[k] = true
	if typ == protocol.ServerQuerySourceLocation {
		ts.slocQ = append(ts.slocQ, key)
	}
	ts.query(typ, key, 0)
}

func (ts *testServer) flushQueries() error {
	if len(ts.wbuf) == 0 {
		return nil
	}
	_, err := ts.conn.Write(ts.wbuf)
	ts.wbuf = ts.wbuf[:0]
	return err
}

func (ts *testServer) run() error {
	br := bufio.NewReader(ts.conn)
	sess, err := protocol.ReadSession(br)
	if err != nil {
		return err
	}
	ts.cap.welcome = sess.Welcome
	ts.cap.onDemand = sess.OnDemand
	fr := protocol.NewFrameReader(br, sess.Size)
	var dec protocol.ItemDecoder
	for {
		frame, err := fr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("client closed before the session ended")
			}
			return err
		}
		if ts.frameDelay > 0 {
			time.Sleep(ts.frameDelay)
		}
		if len(frame) == 1 && protocol.QueueType(frame[0]) == protocol.Terminate {
			ts.termAlone = true
		}
		dec.Reset(frame, 0)
		for it, ok := dec.Next(); ok; it, ok = dec.Next() {
			if err := ts.item(it); err != nil {
				return err
			}
		}
		if err := dec.Err(); err != nil {
			return err
		}
		if ts.cap.terminate && ts.pending == 0 && !ts.hasSingle && !ts.hasSecond && len(ts.slocQ) == 0 && ts.stacksEmpty() {
			ts.query(protocol.ServerQueryTerminate, 0, 0)
			return ts.flushQueries()
		}
		if err := ts.flushQueries(); err != nil {
			return err
		}
	}
}

func (ts *testServer) stacksEmpty() bool {
	for _, th := range ts.cap.threads {
		if len(th.stack) > 0 {
			return false
		}
	}
	return true
}

func (ts *testServer) thread() *capThread {
	th := ts.cap.threads[ts.curThread]
	if th == nil {
		th = &capThread{id: ts.curThread}
		ts.cap.threads[ts.curThread] = th
		ts.ask(protocol.ServerQueryThreadString, uint64(ts.curThread))
	}
	return th
}

func (ts *testServer) takeSingle() (string, error) {
	if !ts.hasSingle {
		return "", errors.New("consumer without SingleString")
	}
	ts.hasSingle = false
	return string(ts.single), nil
}

func (ts *testServer) noteThread(tid uint32) {
	if _, ok := ts.cap.threadNames[tid]; !ok {
		ts.ask(protocol.ServerQueryThreadString, uint64(tid))
	}
}

func (ts *testServer) item(it protocol.Item) error {
	ts.cap.items++
	t, hasTime := ts.refs.Time(it)
	c := ts.cap
	switch it.Type {
	case protocol.ThreadContext:
		ts.curThread = it.U32(1)
	case protocol.ZoneBegin, protocol.ZoneBegin32, protocol.ZoneBegin16,
		protocol.ZoneBeginCallstack, protocol.ZoneBeginCallstack32, protocol.ZoneBeginCallstack16:
		th := ts.thread()
		loc := it.U64(it.Len() - 8)
		ts.ask(protocol.ServerQuerySourceLocation, loc)
		if ts.countOnly {
			ts.locCounts[loc]++
			ts.depth[ts.curThread] = append(ts.depth[ts.curThread], loc)
			th.stack = append(th.stack, nil)
			return nil
		}
		z := &capZone{loc: loc, start: t, end: -1}
		if it.Type >= protocol.ZoneBeginCallstack {
			z.callstack = ts.threadStack[ts.curThread]
			if z.callstack == nil {
				return errors.New("ZoneBeginCallstack without Callstack")
			}
			delete(ts.threadStack, ts.curThread)
		}
		if last, ok := c.lastTimes[ts.curThread]; ok && t < last {
			return fmt.Errorf("thread %d: zone begin at %d before previous event at %d", ts.curThread, t, last)
		}
		c.lastTimes[ts.curThread] = t
		if n := len(th.stack); n > 0 {
			th.stack[n-1].children = append(th.stack[n-1].children, z)
		} else {
			th.roots = append(th.roots, z)
		}
		th.stack = append(th.stack, z)
	case protocol.ZoneEnd, protocol.ZoneEnd32, protocol.ZoneEnd16:
		th := ts.thread()
		if len(th.stack) == 0 {
			return fmt.Errorf("thread %d: zone ended twice", ts.curThread)
		}
		if ts.countOnly {
			th.stack = th.stack[:len(th.stack)-1]
			d := ts.depth[ts.curThread]
			ts.depth[ts.curThread] = d[:len(d)-1]
			return nil
		}
		z := th.stack[len(th.stack)-1]
		if t < z.start {
			return fmt.Errorf("thread %d: zone ends at %d before it begins at %d", ts.curThread, t, z.start)
		}
		z.end = t
		c.lastTimes[ts.curThread] = t
		th.stack = th.stack[:len(th.stack)-1]
	case protocol.ZoneText, protocol.ZoneName:
		s, err := ts.takeSingle()
		if err != nil {
			return err
		}
		th := ts.thread()
		if len(th.stack) == 0 {
			return errors.New("zone text/name without open zone")
		}
		if ts.countOnly {
			if it.Type == protocol.ZoneName {
				ts.nameCounts[s]++
			}
			return nil
		}
		z := th.stack[len(th.stack)-1]
		if it.Type == protocol.ZoneText {
			if z.text != "" {
				z.text += "\n"
			}
			z.text += s
		} else {
			z.name = s
		}
	case protocol.ZoneColor:
		th := ts.thread()
		if len(th.stack) == 0 {
			return errors.New("zone color without open zone")
		}
		th.stack[len(th.stack)-1].color = uint32(it.U8(1)) | uint32(it.U8(2))<<8 | uint32(it.U8(3))<<16
	case protocol.ZoneValue:
		th := ts.thread()
		if len(th.stack) == 0 {
			return errors.New("zone value without open zone")
		}
		z := th.stack[len(th.stack)-1]
		z.value, z.hasValue = it.U64(1), true
	case protocol.SingleStringData, protocol.SingleStringData8:
		if ts.hasSingle {
			return errors.New("second SingleString before its consumer")
		}
		ts.single, ts.hasSingle = append(ts.single[:0], it.Payload()...), true
	case protocol.SecondStringData, protocol.SecondStringData8:
		if ts.hasSecond {
			return errors.New("second SecondString before its consumer")
		}
		ts.second, ts.hasSecond = append(ts.second[:0], it.Payload()...), true
	case protocol.CallstackPayload:
		if ts.callstack != nil {
			return errors.New("CallstackPayload while another is pending")
		}
		p := it.Payload()
		cs := make([]uint64, len(p)/8)
		for i := range cs {
			cs[i] = binary.LittleEndian.Uint64(p[8*i:])
			ts.ask(protocol.ServerQueryCallstackFrame, cs[i])
		}
		ts.callstack = cs
	case protocol.Callstack:
		ts.threadStack[ts.curThread] = ts.callstack
		ts.callstack = nil
	case protocol.CallstackSerial:
		ts.serialStack = ts.callstack
		ts.callstack = nil
	case protocol.Message, protocol.MessageColor, protocol.MessageCallstack, protocol.MessageColorCallstack:
		s, err := ts.takeSingle()
		if err != nil {
			return err
		}
		m := capMsg{thread: ts.curThread, text: s, t: t}
		if it.Type == protocol.MessageColor || it.Type == protocol.MessageColorCallstack {
			m.hasColor = true
			m.color = uint32(it.U8(9)) | uint32(it.U8(10))<<8 | uint32(it.U8(11))<<16
		}
		if it.Type == protocol.MessageCallstack || it.Type == protocol.MessageColorCallstack {
			m.stack = ts.threadStack[ts.curThread]
			delete(ts.threadStack, ts.curThread)
		}
		ts.thread()
		c.messages = append(c.messages, m)
	case protocol.MessageLiteral, protocol.MessageLiteralColor, protocol.MessageLiteralCallstack, protocol.MessageLiteralColorCallstack:
		var tm uint64
		m := capMsg{thread: ts.curThread, literal: true, t: t}
		if it.Type == protocol.MessageLiteralColor || it.Type == protocol.MessageLiteralColorCallstack {
			tm = it.U64(12)
			m.hasColor = true
			m.color = uint32(it.U8(9)) | uint32(it.U8(10))<<8 | uint32(it.U8(11))<<16
		} else {
			tm = it.U64(9)
		}
		if it.Type == protocol.MessageLiteralCallstack || it.Type == protocol.MessageLiteralColorCallstack {
			m.stack = ts.threadStack[ts.curThread]
			delete(ts.threadStack, ts.curThread)
		}
		key := tm >> 8
		ts.ask(protocol.ServerQueryString, key)
		m.text = "#" + strconv.FormatUint(key, 10) // resolved at the end
		ts.thread()
		c.messages = append(c.messages, m)
	case protocol.MessageAppInfo:
		s, err := ts.takeSingle()
		if err != nil {
			return err
		}
		c.appInfo = append(c.appInfo, s)
	case protocol.PlotDataInt, protocol.PlotDataFloat, protocol.PlotDataDouble:
		name := it.U64(1)
		ts.ask(protocol.ServerQueryPlotName, name)
		var v float64
		switch it.Type {
		case protocol.PlotDataInt:
			v = float64(it.I64(17))
		case protocol.PlotDataFloat:
			v = float64(math.Float32frombits(it.U32(17)))
		default:
			v = math.Float64frombits(it.U64(17))
		}
		c.plots = append(c.plots, capPlot{name, t, v})
	case protocol.PlotConfig:
		name := it.U64(1)
		ts.ask(protocol.ServerQueryPlotName, name)
		c.plotCfg[name] = [4]uint32{uint32(it.U8(9)), uint32(it.U8(10)), uint32(it.U8(11)), it.U32(12)}
	case protocol.ParamSetup:
		ts.ask(protocol.ServerQueryString, it.U64(5))
		c.params = append(c.params, [3]uint64{uint64(it.U32(1)), it.U64(5), uint64(it.U32(14))})
	case protocol.FrameMarkMsg, protocol.FrameMarkMsgStart, protocol.FrameMarkMsgEnd:
		name := it.U64(9)
		ts.ask(protocol.ServerQueryFrameName, name)
		c.frames = append(c.frames, capFrameMark{it.Type, name, t})
	case protocol.FrameImageData:
		ts.imageData = append([]byte(nil), it.Payload()...)
	case protocol.FrameImage:
		if ts.imageData == nil {
			return errors.New("FrameImage without data")
		}
		img := capImage{frame: it.U32(1), w: it.U16(5), h: it.U16(7), flip: it.U8(9), data: ts.imageData}
		if len(img.data) != int(img.w)*int(img.h)/2 {
			return fmt.Errorf("frame image %dx%d with %d bytes", img.w, img.h, len(img.data))
		}
		ts.imageData = nil
		c.images = append(c.images, img)
	case protocol.MemNamePayload:
		ts.memName = it.U64(1)
		ts.ask(protocol.ServerQueryString, ts.memName)
	case protocol.MemAlloc, protocol.MemAllocNamed, protocol.MemAllocCallstack, protocol.MemAllocCallstackNamed,
		protocol.MemFree, protocol.MemFreeNamed, protocol.MemFreeCallstack, protocol.MemFreeCallstackNamed:
		m := capMem{tid: it.U32(9), ptr: it.U64(13)}
		ts.noteThread(m.tid)
		switch it.Type {
		case protocol.MemAlloc, protocol.MemAllocNamed, protocol.MemAllocCallstack, protocol.MemAllocCallstackNamed:
			m.alloc = true
			m.size = it.U48(21)
		}
		switch it.Type {
		case protocol.MemAllocNamed, protocol.MemAllocCallstackNamed, protocol.MemFreeNamed, protocol.MemFreeCallstackNamed:
			if ts.memName == 0 {
				return errors.New("named memory event without MemNamePayload")
			}
			m.pool = ts.memName
			ts.memName = 0
		}
		switch it.Type {
		case protocol.MemAllocCallstack, protocol.MemAllocCallstackNamed, protocol.MemFreeCallstack, protocol.MemFreeCallstackNamed:
			if ts.serialStack == nil {
				return errors.New("memory callstack event without CallstackSerial")
			}
			m.stack = ts.serialStack
			ts.serialStack = nil
		}
		c.mem = append(c.mem, m)
	case protocol.MemDiscard:
		ts.noteThread(it.U32(9))
		ts.ask(protocol.ServerQueryString, it.U64(13))
		c.discards = append(c.discards, it.U64(13))
	case protocol.LockAnnounce:
		c.lockAnn[it.U32(1)] = it.U64(13)
		ts.ask(protocol.ServerQuerySourceLocation, it.U64(13))
	case protocol.LockName:
		s, err := ts.takeSingle()
		if err != nil {
			return err
		}
		c.lockNames[it.U32(1)] = s
	case protocol.LockWait, protocol.LockObtain, protocol.LockSharedWait, protocol.LockSharedObtain:
		if _, ok := c.lockAnn[it.U32(5)]; !ok {
			return fmt.Errorf("lock %d event before LockAnnounce", it.U32(5))
		}
		ts.noteThread(it.U32(1))
		c.locks = append(c.locks, capLock{it.Type, it.U32(5), it.U32(1), t})
	case protocol.LockRelease:
		c.locks = append(c.locks, capLock{it.Type, it.U32(1), 0, t})
	case protocol.LockSharedRelease:
		c.locks = append(c.locks, capLock{it.Type, it.U32(1), it.U32(13), t})
	case protocol.StringData:
		c.strs[it.Ptr()] = string(it.Payload())
		ts.pending--
	case protocol.ThreadName:
		c.threadNames[uint32(it.Ptr())] = string(it.Payload())
		ts.pending--
	case protocol.PlotName:
		c.plotNames[it.Ptr()] = string(it.Payload())
		c.strs[it.Ptr()] = string(it.Payload())
		ts.pending--
	case protocol.FrameName:
		c.frameNames[it.Ptr()] = string(it.Payload())
		c.strs[it.Ptr()] = string(it.Payload())
		ts.pending--
	case protocol.SourceLocation:
		if len(ts.slocQ) == 0 {
			return errors.New("unsolicited SourceLocation")
		}
		key := ts.slocQ[0]
		ts.slocQ = ts.slocQ[1:]
		l := capLoc{name: it.U64(1), function: it.U64(9), file: it.U64(17), line: it.U32(25),
			color: uint32(it.U8(29)) | uint32(it.U8(30))<<8 | uint32(it.U8(31))<<16}
		c.locs[key] = l
		ts.pending--
		ts.ask(protocol.ServerQueryString, l.name)
		ts.ask(protocol.ServerQueryString, l.file)
		ts.ask(protocol.ServerQueryString, l.function)
	case protocol.CallstackFrameSize:
		if ts.frameAnswer != nil {
			return errors.New("CallstackFrameSize while frames pending")
		}
		img, err := ts.takeSingle()
		if err != nil {
			return err
		}
		n := int(it.U8(9))
		if n == 0 {
			return fmt.Errorf("CallstackFrameSize with 0 frames for %#x", it.U64(1))
		}
		ts.frameAnswer = &struct {
			ptr    uint64
			n      int
			image  string
			frames []capFrame
		}{ptr: it.U64(1), n: n, image: img}
		ts.pending--
	case protocol.CallstackFrame:
		fa := ts.frameAnswer
		if fa == nil {
			return errors.New("CallstackFrame without CallstackFrameSize")
		}
		fn, err := ts.takeSingle()
		if err != nil {
			return err
		}
		if !ts.hasSecond {
			return errors.New("CallstackFrame without SecondString")
		}
		ts.hasSecond = false
		f := capFrame{image: fa.image, function: fn, file: string(ts.second), line: it.U32(1), symAddr: it.U64(5)}
		fa.frames = append(fa.frames, f)
		if f.symAddr != 0 {
			ts.ask(protocol.ServerQuerySymbol, f.symAddr)
		}
		if len(fa.frames) == fa.n {
			c.callFrames[fa.ptr] = fa.frames
			ts.frameAnswer = nil
			for _, want := range ts.requestSource {
				if f.file == want {
					ts.requestSourceFile(want)
				}
			}
		}
	case protocol.SymbolInformation:
		file, err := ts.takeSingle()
		if err != nil {
			return err
		}
		c.symbols[it.U64(5)] = file
		ts.pending--
	case protocol.SourceCode:
		c.sources[uint32(it.Ptr())] = append([]byte(nil), it.Payload()...)
		ts.pending--
	case protocol.AckSourceCodeNotAvailable:
		c.sources[it.U32(1)] = nil
		ts.pending--
	case protocol.AckServerQueryNoop, protocol.AckSymbolCodeNotAvailable, protocol.SymbolCode:
		ts.pending--
	case protocol.ExternalName, protocol.FiberName:
		ts.pending--
	case protocol.Terminate:
		c.terminate = true
	case protocol.KeepAlive, protocol.ExternalThreadName, protocol.ThreadGroupHint:
	case protocol.SysTimeReport:
		if _, pct := it.SysTimeReport(); pct < 0 || pct > 100 {
			return fmt.Errorf("test server: CPU usage %v%%", pct)
		}
		c.sysTimes++
	default:
		if hasTime {
			_ = t
		}
		return fmt.Errorf("test server: unexpected item %v", it.Type)
	}
	return nil
}

// requestSourceFile sends a file name through DataTransfer and asks for it.
func (ts *testServer) requestSourceFile(name string) {
	ts.sendTransfer(name)
	id := ts.nextSrc
	ts.nextSrc++
	ts.srcIDs[id] = name
	ts.query(protocol.ServerQuerySourceCode, uint64(id), 0)
}

func (ts *testServer) sendTransfer(s string) {
	b := append([]byte(s), 0)
	ts.query(protocol.ServerQueryDataTransfer, uint64(len(b)), 0)
	for i := 0; i < len(b); i += 12 {
		var part [12]byte
		copy(part[:], b[i:])
		ts.query(protocol.ServerQueryDataTransferPart, binary.LittleEndian.Uint64(part[:]), binary.LittleEndian.Uint32(part[8:]))
	}
}

// zoneName resolves a zone's displayed name.
func (c *captured) zoneName(z *capZone) string {
	if z.name != "" {
		return z.name
	}
	l := c.locs[z.loc]
	if l.name != 0 {
		return c.strs[l.name]
	}
	return c.strs[l.function]
}

func (c *captured) walk(f func(tid uint32, z *capZone, depth int)) {
	var rec func(tid uint32, zs []*capZone, d int)
	rec = func(tid uint32, zs []*capZone, d int) {
		for _, z := range zs {
			f(tid, z, d)
			rec(tid, z.children, d+1)
		}
	}
	for tid, th := range c.threads {
		rec(tid, th.roots, 0)
	}
}

func (c *captured) zoneCounts() map[string]int {
	m := map[string]int{}
	c.walk(func(_ uint32, z *capZone, _ int) { m[c.zoneName(z)]++ })
	return m
}

func (c *captured) messageText(m capMsg) string {
	if m.literal {
		k, _ := strconv.ParseUint(m.text[1:], 10, 64)
		return c.strs[k]
	}
	return m.text
}
