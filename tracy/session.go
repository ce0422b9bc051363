//go:build !notracy

package tracy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gotracy/gotracy/protocol"
)

// A session is one server connection (or, before the first server connects
// in the default mode, the stream being prepared for it). Only the sender
// goroutine touches it.
type session struct {
	p       *profiler
	ep      uint32
	conn    net.Conn
	sw      switchWriter
	backlog *backlogBuf
	fw      *protocol.FrameWriter
	refs    protocol.TimeRefs
	curTid  uint32
	buf     []byte
	scratch []byte

	q       chan protocol.ServerQueryPacket
	quit    chan struct{}
	readErr atomic.Pointer[error]

	err        error
	ended      bool // the server ended the session (Terminate query or EOF)
	terminated bool // we sent Terminate
	drained    int  // record bytes the last pump consumed
	queries    int64

	// zones and others count what this session converted (for Stop's
	// report of what no server received).
	zones, others int64
	// frozen: the pre-connection backlog filled up and recording stopped
	// (see freeze); resumeDeferred is where the deferred items pushed since
	// then start.
	frozen         bool
	resumeDeferred int

	xfer     []byte // data transfer being received
	xferWant int
	xferHeld []byte // the previous complete transfer (the image name)

	// offlineFrames: the server asked for our image list (gotracy
	// extension) and resolves frames itself.
	offlineFrames bool

	// lastActive is when the sender last had something to send; after
	// keepAliveEvery without, it sends a KeepAlive, as Tracy's client does,
	// so a server can tell an idle program from a dead connection.
	lastActive time.Time
}

// withLine appends a line to a HostInfo text.
func withLine(hostInfo, line string) string {
	if hostInfo != "" && !strings.HasSuffix(hostInfo, "\n") {
		hostInfo += "\n"
	}
	return hostInfo + line + "\n"
}

// keepAliveEvery is Tracy's client's interval (500 idle passes of 10 ms);
// a variable only so a test can shorten it.
var keepAliveEvery = 5 * time.Second

// senderHook, when set (by tests), runs at the start of every pump.
var senderHook atomic.Pointer[func()]

// switchWriter lets the frame stream go to the backlog first and to the
// connection later without restarting the LZ4 stream.
type switchWriter struct{ w io.Writer }

func (s *switchWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

// setRec switches recording to epoch ep (0 = off) atomically with the
// serial queue: the queue then holds exactly the deferred items to replay.
func setRec(ep uint32) {
	serial.mu.Lock()
	rec.Store(ep)
	clear(serial.q)
	serial.q = serial.q[:0]
	if ep != 0 {
		serial.q = append(serial.q, serial.deferred...)
	}
	serial.mu.Unlock()
}

func (p *profiler) beginSession(conn net.Conn) *session {
	p.nextEp++
	if conn != nil {
		// Stop reports the error that ended the last session; an earlier
		// session's end (a server that stopped the capture) is not it.
		p.setErr(nil)
	}
	s := &session{p: p, ep: p.nextEp, conn: conn, buf: make([]byte, 0, 256<<10)}
	if conn == nil {
		s.backlog = new(backlogBuf)
		s.sw.w = s.backlog
	} else {
		s.sw.w = deadlineWriter{conn}
	}
	s.fw = protocol.NewFrameWriter(&s.sw)
	for _, g := range *gstates.Load() {
		g.depth = 0
		g.fiber = false
	}
	setRec(s.ep)
	return s
}

func (p *profiler) welcome(onDemand bool) []byte {
	arch, vendor, id := cpuArchInfo()
	w := protocol.Welcome{
		TimerMul:        p.cal.timerMul(),
		InitBegin:       p.initBegin,
		InitEnd:         p.initEnd,
		Resolution:      p.resolution,
		Epoch:           uint64(p.startUnix),
		ExecTime:        p.execTime,
		PID:             uint64(os.Getpid()),
		Flags:           protocol.FlagCodeTransfer,
		CPUArch:         protocol.CPUArch(arch),
		CPUManufacturer: vendor,
		CPUID:           id,
		ProgramName:     p.program,
		HostInfo:        withLine(advertise(p.hostInfo), protocol.ExtKeepAliveHostInfo),
	}
	if onDemand {
		w.Flags |= protocol.FlagOnDemand
	}
	b := []byte{byte(protocol.HandshakeWelcome)}
	b, _ = w.AppendBinary(b)
	return b
}

// connect starts serving c: the welcome, then (default mode) the backlog
// prepared since Start, or (on-demand) the on-demand payload and a fresh
// recording session. stopping: Stop is delivering, so a frozen backlog
// does not resume recording.
func (p *profiler) connect(s *session, c net.Conn, stopping bool) (*session, error) {
	w := deadlineWriter{c}
	if p.cfg.onDemand {
		hello := p.welcome(true)
		od := protocol.OnDemandPayload{Frames: frameCount.Load(), CurrentTime: now()}
		hello, _ = od.AppendBinary(hello)
		if _, err := w.Write(hello); err != nil {
			c.Close()
			return nil, err
		}
		s = p.beginSession(c)
	} else {
		hello := p.welcome(false)
		if _, err := w.Write(hello); err != nil {
			c.Close()
			return s, err
		}
		if err := s.backlog.writeTo(w); err != nil {
			c.Close()
			return s, err
		}
		s.backlog = nil
		p.backlogLen.Store(0)
		s.conn = c
		s.sw.w = w
		if s.frozen && !stopping {
			p.resume(s)
		}
	}
	s.q = make(chan protocol.ServerQueryPacket, 4096)
	s.quit = make(chan struct{})
	go s.readQueries()
	p.curConn.Store(&c)
	p.connected.Store(true)
	p.busy.Store(true)
	p.statsMu.Lock()
	p.stats.Sessions++
	p.statsMu.Unlock()
	return s, nil
}

func (s *session) readQueries() {
	defer close(s.q)
	var b [protocol.ServerQueryPacketSize]byte
	// Buffered: a server asks about every new thread (a Go program's
	// goroutines under tracy/goruntime: thousands a second), and a read
	// per 13-byte query was a syscall each.
	r := bufio.NewReaderSize(s.conn, 4096)
	for {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			s.readErr.Store(&err)
			return
		}
		var pkt protocol.ServerQueryPacket
		if err := pkt.UnmarshalBinary(b[:]); err != nil && pkt.Type != protocol.ServerQueryGotracyImages {
			continue // an unknown query has no answer we could give
		}
		select {
		case s.q <- pkt:
		case <-s.quit:
			return
		}
	}
}

// run is the sender goroutine: the only writer of the network stream.
func (p *profiler) run(sess *session) {
	defer close(p.done)
	idle := 0
	nextRetire := time.Now().Add(retireInterval)
	p.poolMin = len(freeChunks)
	p.resolution = resolution()
	for {
		if n := len(freeChunks); n < p.poolMin {
			p.poolMin = n
		}
		if time.Now().After(nextRetire) {
			p.retireIdle()
			p.trimChunkPool()
			nextRetire = time.Now().Add(retireInterval)
		}
		select {
		case c := <-p.conns:
			var err error
			if p.cfg.onDemand || (sess != nil && sess.conn == nil) {
				sess, err = p.connect(sess, c, false)
			} else {
				c.Close()
				err = errors.New("tracy: no session to serve")
			}
			if err != nil {
				p.setErr(err)
				p.endSession(sess)
				sess = nil
			}
		case <-p.stop:
			p.shutdown(sess)
			return
		default:
		}
		if sess == nil || sess.frozen {
			// Nothing is recorded: drop what producers wrote just before
			// recording stopped.
			discardAll()
			time.Sleep(2 * time.Millisecond)
			continue
		}
		p.reportSysTime(sess)
		worked := sess.pump()
		if sess.conn == nil {
			p.backlogLen.Store(int64(sess.backlog.Len()))
			if sess.err == nil && sess.backlog.Len() >= p.cfg.backlogLimit {
				p.freeze(sess)
				continue
			}
		}
		if sess.err != nil || sess.ended {
			if sess.err != nil {
				p.setErr(sess.err)
			}
			p.endSession(sess)
			sess = nil
			continue
		}
		// Pace the sender: reading a queue's published length while its
		// goroutine is writing the next record moves that cache line
		// between cores, which costs the producer more than the record
		// itself. So after a pump the sender waits a little unless it
		// found a lot to do; records then arrive in batches of whole cache
		// lines the producer has left behind.
		var d time.Duration
		switch {
		case worked && chunkBytes.Load() > chunkLimit.Load()/4:
			idle = 0
			continue // memory is filling up: no pause
		case worked:
			idle = 0
			d = 500 * time.Microsecond
		default:
			idle++
			d = 500 * time.Microsecond
			if idle > 50 {
				d = 2 * time.Millisecond
			}
		}
		if sess.q != nil {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case pkt, ok := <-sess.q:
				t.Stop()
				if ok {
					sess.answer(pkt)
				} else {
					sess.noteReadEnd()
				}
			}
		} else {
			time.Sleep(d)
		}
	}
}

func (p *profiler) setErr(err error) {
	p.statsMu.Lock()
	p.stats.LastError = err
	p.statsMu.Unlock()
}

// endSession closes a session that ended; in the default mode it was the one
// session, so recording stops for good.
func (p *profiler) endSession(s *session) {
	p.curConn.Store(nil)
	setRec(0)
	discardAll()
	if s != nil {
		s.close()
		if s.conn != nil || !p.cfg.onDemand {
			p.served.Store(!p.cfg.onDemand)
		}
	}
	p.connected.Store(false)
	p.busy.Store(false)
	select {
	case p.sessDone <- struct{}{}:
	default:
	}
}

func (s *session) close() {
	if s.fw != nil {
		f, raw, w := s.fw.Stats()
		s.p.statsMu.Lock()
		s.p.stats.Frames += f
		s.p.stats.RawBytes += raw
		s.p.stats.BytesSent += w
		s.p.stats.Queries += s.queries
		s.p.statsMu.Unlock()
		s.fw = nil
	}
	if s.quit != nil {
		close(s.quit)
		s.quit = nil
	}
	if s.conn != nil {
		s.conn.Close()
	}
}

func (s *session) noteReadEnd() {
	s.ended = true
	if e := s.readErr.Load(); e != nil && !errors.Is(*e, io.EOF) && !s.terminated {
		s.err = fmt.Errorf("tracy: reading server queries: %w", *e)
	}
}

// pump answers waiting queries and moves recorded events to the stream; it
// reports whether there was anything to do.
func (s *session) pump() bool {
	if h := senderHook.Load(); h != nil {
		(*h)()
	}
	s.drained = 0
	worked := s.answerPending()
	if s.ended {
		return worked
	}
	if !s.terminated && s.drainAll() {
		worked = true
	}
	if s.conn != nil && !s.terminated {
		now := time.Now()
		if worked || s.lastActive.IsZero() {
			s.lastActive = now
		} else if now.Sub(s.lastActive) >= keepAliveEvery {
			s.buf = protocol.AppendKeepAlive(s.buf)
			s.lastActive = now
		}
	}
	s.flush()
	return worked
}

func (s *session) answerPending() bool {
	worked := false
	for s.q != nil {
		select {
		case pkt, ok := <-s.q:
			if !ok {
				s.noteReadEnd()
				return worked
			}
			s.answer(pkt)
			worked = true
			if len(s.buf) > batchLimit {
				s.writeBuf()
			}
		default:
			return worked
		}
	}
	return worked
}

func (s *session) writeBuf() {
	if len(s.buf) == 0 || s.fw == nil || s.err != nil {
		s.buf = s.buf[:0]
		return
	}
	// The sender built every item of s.buf itself, through protocol's
	// Append functions, and writes a batch only between records; so the
	// writer need not check each item again (about a fifth of the sender's
	// time): WriteTrustedItems starts a new frame when the batch does not
	// fit the pending one and never splits it. Batches stay below
	// TargetFrameSize (see batchLimit) except when a query answer is huge
	// (a source file), and those take WriteItems' checked path.
	if err := s.fw.WriteTrustedItems(s.buf); err != nil && s.err == nil {
		s.err = err
	}
	s.buf = s.buf[:0]
}

func (s *session) flush() {
	s.writeBuf()
	if s.fw != nil && s.err == nil {
		if err := s.fw.Flush(); err != nil {
			s.err = err
		}
	}
}

// drainAll moves everything the goroutines and the serial queue recorded
// into the stream.
func (s *session) drainAll() bool {
	worked := false
	for _, g := range retiredStates {
		if s.drainState(g) {
			worked = true
		}
	}
	for _, g := range *gstates.Load() {
		if s.drainState(g) {
			worked = true
		}
		if len(s.buf) > batchLimit {
			s.writeBuf()
		}
		if s.conn == nil && s.backlog.Len() >= s.p.cfg.backlogLimit {
			return worked
		}
	}
	if q := takeSerial(); len(q) > 0 {
		worked = true
		for i := range q {
			if !q[i].kind.deferred() {
				s.others++
			}
			s.encodeSerial(&q[i])
			if len(s.buf) > batchLimit {
				s.writeBuf()
			}
		}
		giveBackSerial(q)
	}
	if s.drainRuntime() { // runtimeev.go
		worked = true
	}
	return worked
}

// drainState consumes g's published records. The producer publishes a
// chunk's final length before linking the next chunk, so reading next
// first and the length second sees the whole chunk.
func (s *session) drainState(g *gstate) bool {
	worked := false
	for {
		c := g.head
		next := c.next.Load()
		pub := int(atomic.LoadUint64(&c.pub))
		if g.r < pub {
			s.records(g, c.buf[g.r:pub])
			s.drained += pub - g.r
			g.r = pub
			worked = true
			if len(s.buf) > batchLimit {
				s.writeBuf()
			}
		}
		if next == nil {
			return worked
		}
		g.head, g.r = next, 0
		freeChunk(c)
		if s.drained >= pumpBudget || s.conn == nil && s.backlog.Len() >= s.p.cfg.backlogLimit {
			// A producer that writes as fast as the sender converts
			// would keep it here for good: return, so the sender checks
			// the backlog limit, Stop and the server's queries.
			return worked
		}
	}
}

// drainRest drains until the queues are empty, once recording has stopped
// (or the backlog is full).
func (s *session) drainRest() {
	for {
		s.drained = 0
		if !s.drainAll() || s.err != nil || s.conn == nil && s.backlog.Len() >= s.p.cfg.backlogLimit {
			return
		}
	}
}

// pumpBudget bounds the record bytes one pump converts.
const pumpBudget = 8 << 20

// discardAll drops whatever was recorded (no session).
func discardAll() {
	for _, g := range append(retiredStates, *gstates.Load()...) {
		for {
			c := g.head
			next := c.next.Load()
			g.r = int(atomic.LoadUint64(&c.pub))
			if next == nil {
				break
			}
			g.head, g.r = next, 0
			freeChunk(c)
		}
		g.depth = 0
	}
	giveBackSerial(takeSerial())
}

// recSize returns the size of the record at b[0].
func recSize(b []byte) int {
	switch b[0] {
	case rEpoch, rZoneColor:
		return 5
	case rZoneBegin, rFiberEnter:
		return 17
	case rZoneBeginCS:
		return 19 + 8*int(binary.LittleEndian.Uint16(b[17:]))
	case rZoneEnd, rZoneValue, rFiberLeave:
		return 9
	case rZoneText, rZoneName:
		return 3 + int(binary.LittleEndian.Uint16(b[1:]))
	case rMessage, rMessageLit:
		n := 17 + 8*int(binary.LittleEndian.Uint16(b[15:]))
		if b[0] == rMessageLit {
			return n + 8
		}
		return n + 2 + int(binary.LittleEndian.Uint16(b[n:]))
	case rPlotInt, rPlotDouble:
		return 25
	case rPlotFloat:
		return 21
	}
	panic(fmt.Sprintf("tracy: corrupt queue record kind %d", b[0]))
}

// batchLimit is the item batch size at which the sender hands s.buf to the
// frame writer. It is checked before every record and every zone run, and
// one record or run adds less than TargetFrameSize-batchLimit bytes of
// items (a run converts at most runLimit record bytes into fewer item
// bytes; the largest record, a 64 KiB text, becomes 64 KiB of items), so a
// batch always fits one frame and WriteTrustedItems never needs to split.
const (
	batchLimit = 128 << 10
	runLimit   = 32 << 10
)

func (s *session) records(g *gstate, b []byte) {
	le := binary.LittleEndian
	for len(b) > 0 {
		if len(s.buf) > batchLimit {
			s.writeBuf()
		}
		if k := b[0]; g.sep == s.ep && (k == rZoneBegin || k == rZoneEnd && g.depth > 0) {
			if s.curTid != g.tid {
				s.buf = s.refs.AppendThreadContext(s.buf, g.tid)
				s.curTid = g.tid
			}
			if n := s.zoneRun(g, b[:min(len(b), runLimit)]); n > 0 {
				b = b[n:]
				continue
			}
		}
		n := recSize(b)
		r := b[:n]
		b = b[n:]
		if r[0] == rEpoch {
			g.sep = le.Uint32(r[1:])
			continue
		}
		if g.sep != s.ep {
			continue // recorded for an earlier session
		}
		switch r[0] {
		case rZoneEnd, rZoneText, rZoneName, rZoneColor, rZoneValue:
			if g.depth == 0 {
				continue // its zone began before this session
			}
		case rFiberLeave:
			if !g.fiber {
				continue // entered before this session, or never: the server refuses it
			}
		}
		if s.curTid != g.tid {
			s.buf = s.refs.AppendThreadContext(s.buf, g.tid)
			s.curTid = g.tid
		}
		switch r[0] {
		case rZoneBegin, rZoneBeginCS:
			s.zones++
		case rZoneEnd:
		default:
			s.others++
		}
		switch r[0] {
		case rZoneBegin:
			g.depth++
			s.buf = s.refs.AppendZoneBegin(s.buf, int64(le.Uint64(r[1:])), le.Uint64(r[9:]))
		case rZoneBeginCS:
			g.depth++
			s.appendCallstack(r[17:])
			s.buf = protocol.AppendCallstack(s.buf)
			s.buf = s.refs.AppendZoneBeginCallstack(s.buf, int64(le.Uint64(r[1:])), le.Uint64(r[9:]))
		case rZoneEnd:
			g.depth--
			s.buf = s.refs.AppendZoneEnd(s.buf, int64(le.Uint64(r[1:])))
		case rZoneText:
			s.buf = appendSingle(s.buf, r[3:])
			s.buf = protocol.AppendZoneText(s.buf)
		case rZoneName:
			s.buf = appendSingle(s.buf, r[3:])
			s.buf = protocol.AppendZoneName(s.buf)
		case rZoneColor:
			c := le.Uint32(r[1:])
			s.buf = protocol.AppendZoneColor(s.buf, uint8(c), uint8(c>>8), uint8(c>>16))
		case rZoneValue:
			s.buf = protocol.AppendZoneValue(s.buf, le.Uint64(r[1:]))
		case rMessage, rMessageLit:
			s.message(r)
		case rPlotInt:
			s.buf = protocol.AppendPlotDataInt(s.buf, le.Uint64(r[1:]), s.refs.Delta(protocol.TimeThread, int64(le.Uint64(r[9:]))), int64(le.Uint64(r[17:])))
		case rPlotFloat:
			s.buf = protocol.AppendPlotDataFloat(s.buf, le.Uint64(r[1:]), s.refs.Delta(protocol.TimeThread, int64(le.Uint64(r[9:]))), f32frombits(le.Uint32(r[17:])))
		case rPlotDouble:
			s.buf = protocol.AppendPlotDataDouble(s.buf, le.Uint64(r[1:]), s.refs.Delta(protocol.TimeThread, int64(le.Uint64(r[9:]))), f64frombits(le.Uint64(r[17:])))
		case rFiberEnter:
			g.fiber = true
			s.buf = protocol.AppendFiberEnter(s.buf, s.refs.Delta(protocol.TimeThread, int64(le.Uint64(r[1:]))), le.Uint64(r[9:]), g.tid, 0)
		case rFiberLeave:
			g.fiber = false
			s.buf = protocol.AppendFiberLeave(s.buf, s.refs.Delta(protocol.TimeThread, int64(le.Uint64(r[1:]))), g.tid)
		}
	}
}

// zoneRun converts the leading zone begin and end records of b, the bulk
// of any capture, straight into ZoneBegin16 and ZoneEnd16 items, and
// returns the record bytes it consumed. It stops at any other record, at a
// delta that needs the 32- or 64-bit variant, and at an end without an
// open zone; records() handles those one by one. It is the same encoding
// as protocol.TimeRefs.AppendZoneBegin/End (R_T advances to each item's
// time, and a delta in [0, 65536) takes the 16-bit variant), done inline:
// no call or append per item, and one bounds check per item because the
// output is sized up front (each item is shorter than its record).
func (s *session) zoneRun(g *gstate, b []byte) int {
	le := binary.LittleEndian
	out := s.buf
	out = slices.Grow(out, len(b))
	o := len(out)
	out = out[:cap(out)]
	ref := s.refs.Thread
	depth := g.depth
	i, nz := 0, int64(0)
loop:
	for i < len(b) {
		switch b[i] {
		case rZoneBegin:
			r := b[i:]
			if len(r) < 17 {
				break loop
			}
			t := int64(le.Uint64(r[1:9]))
			d := uint64(t - ref)
			if d >= protocol.CompactOff16 {
				break loop
			}
			w := out[o : o+11]
			w[0] = byte(protocol.ZoneBegin16)
			w[1] = byte(d)
			w[2] = byte(d >> 8)
			le.PutUint64(w[3:11], le.Uint64(r[9:17]))
			o += 11
			i += 17
			ref = t
			depth++
			nz++
		case rZoneEnd:
			r := b[i:]
			if len(r) < 9 || depth == 0 {
				break loop
			}
			t := int64(le.Uint64(r[1:9]))
			d := uint64(t - ref)
			if d >= protocol.CompactOff16 {
				break loop
			}
			w := out[o : o+3]
			w[0] = byte(protocol.ZoneEnd16)
			w[1] = byte(d)
			w[2] = byte(d >> 8)
			o += 3
			i += 9
			ref = t
			depth--
		default:
			break loop
		}
	}
	s.buf = out[:o]
	s.refs.Thread = ref
	g.depth = depth
	s.zones += nz
	return i
}

func (s *session) message(r []byte) {
	le := binary.LittleEndian
	t := int64(le.Uint64(r[1:]))
	c := le.Uint32(r[9:])
	hasColor := r[13] != 0
	meta := r[14]
	npcs := int(le.Uint16(r[15:]))
	o := 17 + 8*npcs
	cs := npcs > 0
	if cs {
		s.appendCallstack(r[15:])
		s.buf = protocol.AppendCallstack(s.buf)
	}
	b, g, rr := uint8(c), uint8(c>>8), uint8(c>>16)
	if r[0] == rMessageLit {
		tm := le.Uint64(r[o:])<<8 | uint64(meta)
		switch {
		case hasColor && cs:
			s.buf = protocol.AppendMessageLiteralColorCallstack(s.buf, t, b, g, rr, tm)
		case hasColor:
			s.buf = protocol.AppendMessageLiteralColor(s.buf, t, b, g, rr, tm)
		case cs:
			s.buf = protocol.AppendMessageLiteralCallstack(s.buf, t, tm)
		default:
			s.buf = protocol.AppendMessageLiteral(s.buf, t, tm)
		}
		return
	}
	n := int(le.Uint16(r[o:]))
	s.buf = appendSingle(s.buf, r[o+2:o+2+n])
	switch {
	case hasColor && cs:
		s.buf = protocol.AppendMessageColorCallstack(s.buf, t, b, g, rr, meta)
	case hasColor:
		s.buf = protocol.AppendMessageColor(s.buf, t, b, g, rr, meta)
	case cs:
		s.buf = protocol.AppendMessageCallstack(s.buf, t, meta)
	default:
		s.buf = protocol.AppendMessage(s.buf, t, meta)
	}
}

// appendCallstack appends a CallstackPayload from a record's u16 count and
// addresses.
func (s *session) appendCallstack(r []byte) {
	n := int(binary.LittleEndian.Uint16(r))
	s.buf, _ = protocol.AppendCallstackPayload(s.buf, 0, r[2:2+8*n])
}

func (s *session) appendPCs(pcs []uintptr) {
	s.scratch = s.scratch[:0]
	for _, pc := range pcs {
		s.scratch = binary.LittleEndian.AppendUint64(s.scratch, uint64(pc))
	}
	s.buf, _ = protocol.AppendCallstackPayload(s.buf, 0, s.scratch)
}

func (s *session) encodeSerial(ev *serialEv) {
	b := s.buf
	ds := func() int64 { return s.refs.Delta(protocol.TimeSerial, ev.t) }
	switch ev.kind {
	case sLockAnnounce:
		b = protocol.AppendLockAnnounce(b, ev.id, ev.t, ev.ptr, uint8(ev.size))
	case sLockName:
		b = appendSingle(b, ev.str)
		b = protocol.AppendLockName(b, ev.id)
	case sLockTerminate:
		b = protocol.AppendLockTerminate(b, ev.id, ev.t)
	case sLockWait:
		b = protocol.AppendLockWait(b, ev.tid, ev.id, ds())
	case sLockObtain:
		b = protocol.AppendLockObtain(b, ev.tid, ev.id, ds())
	case sLockRelease:
		b = protocol.AppendLockRelease(b, ev.id, ds())
	case sLockSharedWait:
		b = protocol.AppendLockSharedWait(b, ev.tid, ev.id, ds())
	case sLockSharedObtain:
		b = protocol.AppendLockSharedObtain(b, ev.tid, ev.id, ds())
	case sLockSharedRelease:
		b = protocol.AppendLockSharedRelease(b, ev.id, ds(), ev.tid)
	case sMemAlloc, sMemFree:
		cs := len(ev.pcs) > 0
		if cs {
			s.buf = b
			s.appendPCs(ev.pcs)
			b = protocol.AppendCallstackSerial(s.buf)
		}
		named := ev.key != 0
		if named {
			b = protocol.AppendMemNamePayload(b, ev.key)
		}
		t := ds()
		if ev.kind == sMemAlloc {
			switch {
			case cs && named:
				b = protocol.AppendMemAllocCallstackNamed(b, t, ev.tid, ev.ptr, ev.size)
			case cs:
				b = protocol.AppendMemAllocCallstack(b, t, ev.tid, ev.ptr, ev.size)
			case named:
				b = protocol.AppendMemAllocNamed(b, t, ev.tid, ev.ptr, ev.size)
			default:
				b = protocol.AppendMemAlloc(b, t, ev.tid, ev.ptr, ev.size)
			}
		} else {
			switch {
			case cs && named:
				b = protocol.AppendMemFreeCallstackNamed(b, t, ev.tid, ev.ptr)
			case cs:
				b = protocol.AppendMemFreeCallstack(b, t, ev.tid, ev.ptr)
			case named:
				b = protocol.AppendMemFreeNamed(b, t, ev.tid, ev.ptr)
			default:
				b = protocol.AppendMemFree(b, t, ev.tid, ev.ptr)
			}
		}
	case sMemDiscard:
		b = protocol.AppendMemDiscard(b, ds(), ev.tid, ev.key)
	case sFrameMark:
		switch ev.id {
		case 0:
			b = protocol.AppendFrameMarkMsg(b, ev.t, ev.ptr)
		case 1:
			b = protocol.AppendFrameMarkMsgStart(b, ev.t, ev.ptr)
		default:
			b = protocol.AppendFrameMarkMsgEnd(b, ev.t, ev.ptr)
		}
	case sFrameImage:
		b, _ = protocol.AppendFrameImageData(b, 0, ev.data)
		b = protocol.AppendFrameImage(b, ev.id, uint16(ev.size>>16), uint16(ev.size), uint8(ev.key))
	case sPlotConfig:
		b = protocol.AppendPlotConfig(b, ev.ptr, uint8(ev.size), uint8(ev.size>>8), uint8(ev.size>>16), ev.id)
	case sParamSetup:
		b = protocol.AppendParamSetup(b, ev.id, ev.ptr, uint8(ev.size), int32(uint32(ev.key)))
	case sAppInfo:
		b = appendSingle(b, ev.str)
		b = protocol.AppendMessageAppInfo(b, ev.t)
	}
	s.buf = b
}

// appendSingle appends the SingleString item for s, cut to the 65535 bytes
// a 0.14.0 server takes (protocol.AppendSingleString refuses longer ones).
func appendSingle[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst, _ = protocol.AppendSingleString(dst, s[:min(len(s), maxText)])
	return dst
}

// appendSecond is appendSingle for the second-string slot.
func appendSecond[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst, _ = protocol.AppendSecondString(dst, s[:min(len(s), maxText)])
	return dst
}

// shutdown is Stop's work on the sender goroutine: the client's end of a session.
func (p *profiler) shutdown(s *session) {
	if s == nil {
		p.endSession(s)
		return
	}
	if s.conn == nil {
		// No server yet (default mode): complete the backlog, then wait
		// for one as configured, or say what is discarded.
		if !s.frozen {
			p.waitImages()
			setRecKeepQueue(0)
			s.drainRest()
			if s.backlog.Len() >= p.cfg.backlogLimit {
				p.freeze(s)
			}
			s.closeOpenZones()
			s.flush()
		}
		if s.zones == 0 && s.others == 0 {
			p.endSession(s)
			return
		}
		c := p.awaitExitConn(s)
		if c == nil {
			fmt.Fprintf(stderr, "tracy: no Tracy server connected; discarding %d zones and %d other events (%s compressed) recorded since Start. "+
				"To keep them, run a capture (gotracy capture, tracy-capture, the viewer), set TRACY_NO_EXIT=1 or use tracy.WithExitWait to wait at exit, or record to a file with tracyfile.Start\n",
				s.zones, s.others, sizeText(int64(s.backlog.Len())))
			p.endSession(s)
			return
		}
		var err error
		if s, err = p.connect(s, c, true); err != nil {
			p.setErr(err)
			p.endSession(s)
			return
		}
	} else {
		p.waitImages()
		setRecKeepQueue(0)
	}
	p.stopBy.CompareAndSwap(0, time.Now().Add(p.cfg.shutdownTimeout+time.Second).UnixNano())
	s.answerPending()
	s.drainRest()
	s.closeOpenZones()
	s.flush()
	if s.err == nil && !s.ended {
		s.buf = protocol.AppendTerminate(s.buf)
		s.flush()
		s.terminated = true
		deadline := time.NewTimer(p.cfg.shutdownTimeout)
		defer deadline.Stop()
	loop:
		for !s.ended && s.err == nil {
			select {
			case pkt, ok := <-s.q:
				if !ok {
					s.noteReadEnd()
					break loop
				}
				s.answer(pkt)
				s.answerPending()
				s.flush()
			case <-deadline.C:
				s.err = fmt.Errorf("tracy: server did not end the session within %v of Terminate", p.cfg.shutdownTimeout)
				break loop
			}
		}
	}
	if s.err != nil {
		p.setErr(s.err)
	}
	p.endSession(s)
}

// waitImages lets images already handed to FrameImage reach the stream:
// they belong to the capture.
func (p *profiler) waitImages() {
	for deadline := time.Now().Add(2 * time.Second); imagesPending.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// setRecKeepQueue stops recording but leaves queued serial events for the
// final drain.
func setRecKeepQueue(ep uint32) {
	serial.mu.Lock()
	rec.Store(ep)
	serial.mu.Unlock()
}

// closeOpenZones ends, at the current time, zones that are still open, so
// the server can complete the capture (it waits for every zone stack to be
// empty before it accepts Terminate).
func (s *session) closeOpenZones() {
	t := now()
	for _, g := range append(retiredStates, *gstates.Load()...) {
		if g.depth <= 0 || g.sep != s.ep {
			continue
		}
		if s.curTid != g.tid {
			s.buf = s.refs.AppendThreadContext(s.buf, g.tid)
			s.curTid = g.tid
		}
		for ; g.depth > 0; g.depth-- {
			s.buf = s.refs.AppendZoneEnd(s.buf, t)
		}
	}
	s.closeRuntimeZones(t) // runtimeev.go
}
