package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// fakeClient is an in-process Tracy client written with the protocol
// package: it listens on loopback, performs the client's handshake, streams
// the events a test scripts, and answers the server's queries from tables.
type fakeClient struct {
	t       *testing.T
	ln      net.Listener
	welcome protocol.Welcome

	strings  map[uint64]string
	threads  map[uint64]string
	srclocs  map[uint64][4]uint64 // name, function, file, line
	answerCS bool                 // answer call-stack frame and symbol queries
	code     map[uint64][]byte    // symbol code served to SymbolCode queries

	mu          sync.Mutex
	queries     map[protocol.ServerQuery]int
	outstanding int // counted queries sent by the server, not answered yet
	maxOut      int
	gotTerm     bool
	done        chan struct{}
}

func newFakeClient(t *testing.T) *fakeClient {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return &fakeClient{
		t:  t,
		ln: ln,
		welcome: protocol.Welcome{
			TimerMul: 1, InitBegin: 1_000_000, InitEnd: 1_500_000, Resolution: 10,
			Epoch: 1_750_000_000, PID: 4242, CPUArch: protocol.CPUArchX64, ProgramName: "fake",
			HostInfo: "OS: test",
		},
		strings:  map[uint64]string{},
		threads:  map[uint64]string{},
		srclocs:  map[uint64][4]uint64{},
		answerCS: true,
		queries:  map[protocol.ServerQuery]int{},
		done:     make(chan struct{}),
	}
}

func (c *fakeClient) addr() string { return c.ln.Addr().String() }

// session is one accepted connection of the fake client.
type session struct {
	c    *fakeClient
	conn net.Conn
	fw   *protocol.FrameWriter
	refs protocol.TimeRefs
	wmu  sync.Mutex // FrameWriter is shared by the script and the answerer
	qs   chan protocol.ServerQueryPacket
}

// serve accepts one connection and runs script; the query answerer runs
// beside it until the server sends Terminate or the connection closes.
func (c *fakeClient) serve(script func(s *session)) {
	go func() {
		defer close(c.done)
		conn, err := c.ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		if err := protocol.ClientHandshake(conn, &c.welcome, nil); err != nil {
			c.t.Errorf("fake client handshake: %v", err)
			return
		}
		s := &session{c: c, conn: conn, fw: protocol.NewFrameWriter(conn), qs: make(chan protocol.ServerQueryPacket, 1024)}
		go s.readQueries()
		answered := make(chan struct{})
		go func() {
			defer close(answered)
			s.answer()
		}()
		script(s)
		<-answered
	}()
}

func (s *session) readQueries() {
	defer close(s.qs)
	var b [protocol.ServerQueryPacketSize]byte
	for {
		if _, err := io.ReadFull(s.conn, b[:]); err != nil {
			return
		}
		var q protocol.ServerQueryPacket
		if err := q.UnmarshalBinary(b[:]); err != nil {
			s.c.t.Errorf("bad query: %v", err)
			return
		}
		s.c.mu.Lock()
		s.c.queries[q.Type]++
		if q.Type != protocol.ServerQueryTerminate {
			s.c.outstanding++
			s.c.maxOut = max(s.c.maxOut, s.c.outstanding)
		} else {
			s.c.gotTerm = true
		}
		s.c.mu.Unlock()
		s.qs <- q
	}
}

// send writes items as one flushed frame (or more if large).
func (s *session) send(items []byte) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.fw.WriteItems(items); err != nil {
		s.c.t.Errorf("fake client write: %v", err)
		return
	}
	s.fw.Flush()
}

func (s *session) answer() {
	for q := range s.qs {
		if q.Type == protocol.ServerQueryTerminate {
			return
		}
		var b []byte
		var err error
		c := s.c
		switch q.Type {
		case protocol.ServerQueryString:
			b, err = protocol.AppendStringData(b, q.Ptr, c.strings[q.Ptr])
		case protocol.ServerQueryThreadString:
			name, ok := c.threads[q.Ptr]
			if !ok {
				name = "Main thread"
			}
			b, err = protocol.AppendThreadName(b, q.Ptr, name)
		case protocol.ServerQuerySourceLocation:
			sl := c.srclocs[q.Ptr]
			b = protocol.AppendSourceLocation(b, sl[0], sl[1], sl[2], uint32(sl[3]), 0, 0, 0)
		case protocol.ServerQueryPlotName:
			b, err = protocol.AppendPlotName(b, q.Ptr, c.strings[q.Ptr])
		case protocol.ServerQueryFrameName:
			b, err = protocol.AppendFrameName(b, q.Ptr, c.strings[q.Ptr])
		case protocol.ServerQueryCallstackFrame:
			if !c.answerCS {
				continue
			}
			b, err = protocol.AppendCallstackFrameAnswer(b, q.Ptr, "fakeimage", []protocol.CallstackFrameInfo{
				{Name: fmt.Sprintf("inl_%x", q.Ptr), File: "inl.h", Line: 3},
				{Name: fmt.Sprintf("fn_%x", q.Ptr), File: "fake.go", Line: 7, SymAddr: q.Ptr &^ 0xFF, SymLen: 64},
			})
		case protocol.ServerQuerySymbol:
			b, err = protocol.AppendSymbolAnswer(b, q.Ptr, "fake.go", 5)
		case protocol.ServerQuerySymbolCode:
			if code, ok := c.code[q.Ptr]; ok {
				b, err = protocol.AppendSymbolCode(b, q.Ptr, code)
			} else {
				b = protocol.AppendAckSymbolCodeNotAvailable(b)
			}
		case protocol.ServerQuerySourceCode:
			b = protocol.AppendAckSourceCodeNotAvailable(b, uint32(q.Ptr))
		default:
			b = protocol.AppendAckServerQueryNoop(b)
		}
		if err != nil {
			c.t.Errorf("answer %v: %v", q.Type, err)
			continue
		}
		c.mu.Lock()
		c.outstanding--
		c.mu.Unlock()
		s.send(b)
	}
}

// A small but complete session: zones (one with a call stack), a literal
// message, a plot, a frame mark, then Terminate. Every kind of key query
// must be answered and the capture must end on its own.
func TestLiveCapture(t *testing.T) {
	c := newFakeClient(t)
	c.strings = map[uint64]string{0x2000: "DemoZone", 0x2010: "main", 0x2020: "demo.go", 0x2030: "Inner", 0x3000: "hello literal", 0x4000: "my plot"}
	c.srclocs = map[uint64][4]uint64{0x1000: {0x2000, 0x2010, 0x2020, 42}, 0x1010: {0x2030, 0x2010, 0x2020, 43}}
	c.threads = map[uint64]string{7: "worker seven"}
	c.serve(func(s *session) {
		var b []byte
		b = s.refs.AppendThreadContext(b, 1)
		b = s.refs.AppendZoneBegin(b, 2_000_000, 0x1000)
		var err error
		if b, err = protocol.AppendCallstackPayloadFrames(b, 1, []uint64{0x401010, 0x402020}); err != nil {
			t.Error(err)
		}
		b = protocol.AppendCallstack(b)
		b = s.refs.AppendZoneBeginCallstack(b, 2_000_100, 0x1010)
		b = s.refs.AppendZoneEnd(b, 2_000_300)
		b = protocol.AppendPlotDataInt(b, 0x4000, s.refs.Delta(protocol.TimeThread, 2_000_350), 17)
		b = s.refs.AppendZoneEnd(b, 2_000_500)
		b = protocol.AppendMessageLiteral(b, 2_000_600, 0x3000<<8|0x20)
		s.send(b)
		b = s.refs.AppendThreadContext(b[:0], 7)
		b = s.refs.AppendZoneBegin(b, 2_100_000, 0x1000)
		b = s.refs.AppendZoneEnd(b, 2_200_000)
		b = protocol.AppendFrameMarkMsg(b, 3_000_000, 0)
		s.send(b)
		s.send(protocol.AppendTerminate(nil))
	})
	res, err := Connect(context.Background(), c.addr(), WithTimeLimit(20*time.Second), func(cf *config) { cf.budget = 3 })
	if err != nil {
		t.Fatalf("capture: %v", err)
	}
	<-c.done
	if res.Stop != StopClientExit {
		t.Fatalf("stop = %v, want client exit", res.Stop)
	}
	c.mu.Lock()
	if !c.gotTerm {
		t.Error("client never got ServerQueryTerminate")
	}
	if c.maxOut > 3 {
		t.Errorf("server had %d queries in flight, budget 3", c.maxOut)
	}
	for _, q := range []protocol.ServerQuery{protocol.ServerQueryString, protocol.ServerQueryThreadString, protocol.ServerQuerySourceLocation, protocol.ServerQueryCallstackFrame, protocol.ServerQuerySymbol, protocol.ServerQueryPlotName} {
		if c.queries[q] == 0 {
			t.Errorf("no %v query", q)
		}
	}
	c.mu.Unlock()

	tr := res.Trace
	checkLiveTrace(t, tr)

	// The capture saves and loads back with the same content.
	var file bytes.Buffer
	if err := tracefile.Write(&file, tr); err != nil {
		t.Fatal(err)
	}
	back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		t.Fatal(err)
	}
	checkLiveTrace(t, back)
}

func checkLiveTrace(t *testing.T, tr *model.Trace) {
	t.Helper()
	var names []string
	for i := range tr.Threads {
		for _, z := range tr.Threads[i].Zones.All() {
			names = append(names, fmt.Sprintf("%s:%s@%d-%d", tr.ThreadName(tr.Threads[i].ID), tr.ZoneName(z), z.Start(), z.End()))
		}
	}
	want := []string{"Main thread:DemoZone@1000000-1000500", "Main thread:Inner@1000100-1000300", "worker seven:DemoZone@1100000-1200000"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("zones %v\nwant %v", names, want)
	}
	if len(tr.Messages) != 1 || tr.RefString(tr.Messages[0].Text) != "hello literal" || tr.Messages[0].Time != 1_000_600 {
		t.Errorf("messages %+v", tr.Messages)
	}
	base := tr.FrameSets[0].Frames
	if len(base) != 3 || base[0].Start != 0 || base[1].Start != 500_000 || base[2].Start != 2_000_000 {
		t.Errorf("base frames %+v", base)
	}
	if tr.NumCallStacks() != 1 {
		t.Fatalf("%d call stacks", tr.NumCallStacks())
	}
	for _, f := range tr.CallStack(1) {
		fd, ok := tr.Frames[f]
		if !ok || len(fd.Frames) != 2 || tr.Str(fd.Frames[1].Name) != fmt.Sprintf("fn_%x", f) || tr.Str(fd.ImageName) != "fakeimage" {
			t.Errorf("frame %#x: %+v", f, fd)
		}
	}
	if len(tr.Symbols) != 2 {
		t.Errorf("%d symbols, want 2", len(tr.Symbols))
	}
	var plot *model.Plot
	for i := range tr.Plots {
		if s, _ := tr.PtrString(tr.Plots[i].Name); s == "my plot" {
			plot = &tr.Plots[i]
		}
	}
	if plot == nil || len(plot.Points) != 1 || plot.Points[0].Value != 17 || plot.Points[0].Time != 1_000_350 {
		t.Errorf("plot %+v", plot)
	}
}

// A client that dies in the middle of a frame: everything in the frames
// before the cut is kept, and the error says the connection was lost.
func TestLiveDisconnectMidFrame(t *testing.T) {
	c := newFakeClient(t)
	c.srclocs = map[uint64][4]uint64{0x1000: {0, 0x2010, 0x2020, 1}}
	c.strings = map[uint64]string{0x2010: "f", 0x2020: "x.go"}
	c.serve(func(s *session) {
		var b []byte
		b = s.refs.AppendThreadContext(b, 1)
		for i := range 5 {
			b = s.refs.AppendZoneBegin(b, int64(2_000_000+i*1000), 0x1000)
			b = s.refs.AppendZoneEnd(b, int64(2_000_500+i*1000))
		}
		s.send(b)
		time.Sleep(50 * time.Millisecond) // let the answers flow
		// Half a frame: a size header promising more than follows.
		s.wmu.Lock()
		var hdr [4]byte
		binary.LittleEndian.PutUint32(hdr[:], 100)
		s.conn.Write(hdr[:])
		s.conn.Write([]byte{0xF0, 1, 2, 3})
		s.conn.Close()
		s.wmu.Unlock()
	})
	res, err := Connect(context.Background(), c.addr(), WithTimeLimit(20*time.Second))
	<-c.done
	if !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("err = %v, want ErrConnectionLost", err)
	}
	if res == nil || res.Trace == nil {
		t.Fatal("no partial trace")
	}
	var file bytes.Buffer
	if err := tracefile.Write(&file, res.Trace); err != nil {
		t.Fatal(err)
	}
	back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if n := back.ZoneCount(); n != 5 {
		t.Fatalf("saved %d zones, want the 5 sent before the cut", n)
	}
	z := back.Threads[0].Zones.At(4)
	if z.Start() != 1_004_000 || z.End() != 1_004_500 {
		t.Errorf("last zone %d-%d", z.Start(), z.End())
	}
}

// Handshake refusals give typed errors that name the protocol versions.
func TestHandshakeRefused(t *testing.T) {
	for _, tc := range []struct {
		reply []byte
		want  error
		text  string
	}{
		{[]byte{byte(protocol.HandshakeProtocolMismatch)}, ErrProtocolMismatch, "protocol 82"},
		{[]byte{byte(protocol.HandshakeNotAvailable)}, ErrNotAvailable, "TRACY_ON_DEMAND"},
		{nil, ErrHandshakeDropped, "closed the connection"},
		{[]byte{byte(protocol.HandshakeWelcome), 1, 2, 3}, ErrHandshakeDropped, "closed the connection"},
	} {
		t.Run(tc.want.Error(), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			stopUDP := make(chan struct{})
			defer close(stopUDP)
			if tc.want == ErrProtocolMismatch {
				// A refused client keeps broadcasting its presence; the
				// capture listens for it to name the client's version.
				go func() {
					port := ln.Addr().(*net.TCPAddr).Port
					b := protocol.Broadcast{Version: 3, ListenPort: uint16(port), ProtocolVersion: 81, ProgramName: "old"}
					dg, _ := b.MarshalBinary()
					for {
						select {
						case <-stopUDP:
							return
						case <-time.After(50 * time.Millisecond):
						}
						if u, err := net.Dial("udp4", "127.0.0.1:8086"); err == nil {
							u.Write(dg)
							u.Close()
						}
					}
				}()
			}
			go func() {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				var hello [protocol.HandshakeSize]byte
				io.ReadFull(conn, hello[:])
				conn.Write(tc.reply)
				conn.Close()
			}()
			_, err = Connect(context.Background(), ln.Addr().String(), func(c *config) { c.broadcastWait = 500 * time.Millisecond })
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var he *HandshakeError
			if !errors.As(err, &he) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q lacks %q", err, tc.text)
			}
			if he != nil && he.ClientProtocol != 0 && !strings.Contains(err.Error(), "protocol 81") {
				t.Errorf("client protocol %d learnt, but error %q does not name it", he.ClientProtocol, err)
			}
			t.Log(err)
		})
	}
}

// Connect waits for a client that is not listening yet, and ends cleanly
// when cancelled: the client gets ServerQueryTerminate, the trace is kept.
func TestConnectWaitsAndCancel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	c := &fakeClient{t: t, strings: map[uint64]string{}, threads: map[uint64]string{}, srclocs: map[uint64][4]uint64{},
		queries: map[protocol.ServerQuery]int{}, done: make(chan struct{}),
		welcome: protocol.Welcome{TimerMul: 1, InitEnd: 10, ProgramName: "late"}}
	go func() {
		time.Sleep(300 * time.Millisecond)
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("listen again: %v", err)
			close(c.done)
			return
		}
		c.ln = l
		c.serve(func(s *session) {
			s.send(protocol.AppendKeepAlive(nil))
		})
	}()
	ctx, cancel := context.WithCancel(context.Background())
	connected := make(chan struct{})
	go func() {
		<-connected
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	res, err := Connect(ctx, addr, WithRetryInterval(20*time.Millisecond), WithConnected(func(protocol.Welcome) { close(connected) }))
	<-c.done
	if c.ln != nil {
		c.ln.Close()
	}
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	if res.Stop != StopCancelled {
		t.Errorf("stop = %v", res.Stop)
	}
	if res.Trace.Metadata.CaptureProgram != "late" {
		t.Errorf("program %q", res.Trace.Metadata.CaptureProgram)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.gotTerm {
		t.Error("client never got ServerQueryTerminate")
	}
}
