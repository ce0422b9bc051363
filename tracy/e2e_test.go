//go:build !notracy

package tracy

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/protocol"
)

// startWithServer starts the profiler on a free loopback port and connects a
// test server to it.
func startWithServer(t testing.TB, opts ...Option) *testServer {
	t.Helper()
	opts = append([]Option{WithPort(0), WithBroadcast(false), WithShutdownTimeout(20 * time.Second)}, opts...)
	if err := Start(opts...); err != nil {
		t.Fatalf("Start: %v", err)
	}
	ts := dialTestServer(t, Port())
	ts.serve()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitConnected(ctx); err != nil {
		Stop()
		t.Fatalf("WaitConnected: %v", err)
	}
	return ts
}

func stopAndCollect(t testing.TB, ts *testServer) *captured {
	t.Helper()
	if err := Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	return ts.result()
}

var (
	locOuter = NewLoc("outer")
	locInner = NewColorLoc("inner", 0x123456)
)

func TestEndToEndZonesNesting(t *testing.T) {
	ts := startWithServer(t)
	SetThreadName("tester")
	for i := 0; i < 3; i++ {
		z := Begin(locOuter)
		z.Text(fmt.Sprintf("iteration %d", i))
		z.Value(uint64(i))
		for j := 0; j < 2; j++ {
			zi := Begin(locInner)
			zi.Color(0xFF0000)
			zi.End()
		}
		n := BeginNamed("dyn")
		n.End()
		z.End()
	}
	c := stopAndCollect(t, ts)

	if len(c.threads) != 1 {
		t.Fatalf("threads = %d, want 1", len(c.threads))
	}
	for tid, th := range c.threads {
		if got := c.threadNames[tid]; got != "tester" {
			t.Errorf("thread name = %q, want tester", got)
		}
		if len(th.roots) != 3 {
			t.Fatalf("root zones = %d, want 3", len(th.roots))
		}
		for i, z := range th.roots {
			if got := c.zoneName(z); got != "outer" {
				t.Errorf("root %d name %q", i, got)
			}
			if z.text != fmt.Sprintf("iteration %d", i) || !z.hasValue || z.value != uint64(i) {
				t.Errorf("root %d text %q value %d/%v", i, z.text, z.value, z.hasValue)
			}
			if len(z.children) != 3 {
				t.Fatalf("root %d children = %d, want 3", i, len(z.children))
			}
			for j, ch := range z.children[:2] {
				if c.zoneName(ch) != "inner" || ch.color != 0xFF0000 {
					t.Errorf("child %d: %q color %#x", j, c.zoneName(ch), ch.color)
				}
				if ch.start < z.start || ch.end > z.end {
					t.Errorf("child %d not inside parent", j)
				}
			}
			if c.zoneName(z.children[2]) != "dyn" {
				t.Errorf("dynamic zone name %q", c.zoneName(z.children[2]))
			}
		}
	}
	// Source locations carry the call site.
	l := c.locs[locInner.key]
	if c.strs[l.file] != locInner.file || !strings.HasSuffix(c.strs[l.file], "e2e_test.go") || l.color != 0x123456 {
		t.Errorf("inner location: file %q color %#x", c.strs[l.file], l.color)
	}
	// A package-level Loc takes the site of its first Begin.
	if !strings.HasSuffix(c.strs[l.function], "tracy.TestEndToEndZonesNesting") {
		t.Errorf("inner location function %q", c.strs[l.function])
	}
	if c.welcome.TimerMul <= 0 || c.welcome.ProgramName == "" {
		t.Errorf("welcome: %+v", c.welcome)
	}
}

// TestEndToEndEverything checks each event group arrives exactly as emitted.
// appInfoLines are the app info lines this test process has given.
var appInfoLines []string

func TestEndToEndEverything(t *testing.T) {
	ts := startWithServer(t)
	const frames = 5
	mu := NewMutex("shared lock")
	var wg sync.WaitGroup
	var lockOps sync.WaitGroup
	counter := 0
	for w := 0; w < 2; w++ {
		wg.Add(1)
		lockOps.Add(1)
		go func() {
			defer wg.Done()
			defer lockOps.Done()
			SetThreadName(fmt.Sprintf("worker-%d", w))
			for i := 0; i < 10; i++ {
				mu.Lock()
				counter++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	img := make([]byte, 16*8*4)
	for f := 0; f < frames; f++ {
		z := BeginHere()
		PlotInt("ints", int64(f))
		PlotFloat("floats", float32(f)/2)
		Plot("doubles", float64(f)*1.5)
		Message(fmt.Sprintf("frame %d", f))
		MessageL("literal")
		MessageColor("colored", 0xFF00FF)
		AllocNamed(uintptr(0x1000+f), uint64(100+f), "pool")
		FreeNamed(uintptr(0x1000+f), "pool")
		Alloc(uintptr(0x9000+f), 64)
		Free(uintptr(0x9000 + f))
		for i := range img {
			img[i] = byte(i + f)
		}
		if err := FrameImage(img, 16, 8, 0, f%2 == 1); err != nil {
			t.Fatal(err)
		}
		z.End()
		for imagesPending.Load() > 0 {
			time.Sleep(time.Millisecond)
		}
		FrameMark()
	}
	FrameMarkStart("disc")
	FrameMarkEnd("disc")
	FrameMarkNamed("named")
	// App info is deferred, as in Tracy's client: every session gets every
	// line the process gave, so a rerun in one process (-count) sees them all.
	appInfoLines = append(appInfoLines, fmt.Sprintf("app info line %d", len(appInfoLines)+1))
	AppInfo(appInfoLines[len(appInfoLines)-1])
	PlotConfig("ints", PlotNumber, true, false, 0x00FF00)
	c := stopAndCollect(t, ts)

	// plots
	byName := map[string][]float64{}
	for _, p := range c.plots {
		byName[c.plotNames[p.name]] = append(byName[c.plotNames[p.name]], p.v)
	}
	for f := 0; f < frames; f++ {
		if byName["ints"][f] != float64(f) || byName["floats"][f] != float64(f)/2 || byName["doubles"][f] != float64(f)*1.5 {
			t.Fatalf("plots = %v", byName)
		}
	}
	if cfg, ok := c.plotCfg[strKey("ints")]; !ok || cfg != [4]uint32{0, 1, 0, 0x00FF00} {
		t.Errorf("plot config %v", cfg)
	}
	// messages
	var texts []string
	for _, m := range c.messages {
		texts = append(texts, c.messageText(m))
	}
	if len(texts) != 3*frames || texts[0] != "frame 0" || texts[1] != "literal" || texts[2] != "colored" || c.messages[2].color != 0xFF00FF || !c.messages[2].hasColor {
		t.Errorf("messages %q", texts)
	}
	if !slices.Equal(c.appInfo, appInfoLines) {
		t.Errorf("app info %q, want %q", c.appInfo, appInfoLines)
	}
	// memory
	var named, unnamed int
	for _, m := range c.mem {
		if m.pool != 0 {
			if c.strs[m.pool] != "pool" {
				t.Errorf("pool name %q", c.strs[m.pool])
			}
			named++
		} else {
			unnamed++
		}
	}
	if named != 2*frames || unnamed != 2*frames {
		t.Errorf("memory events named %d unnamed %d", named, unnamed)
	}
	if m := c.mem[0]; !m.alloc || m.ptr != 0x1000 || m.size != 100 {
		t.Errorf("first alloc %+v", m)
	}
	// frames and images
	var main, starts, ends, namedMarks int
	for _, f := range c.frames {
		switch {
		case f.kind == protocol.FrameMarkMsg && f.name == 0:
			main++
		case f.kind == protocol.FrameMarkMsgStart:
			starts++
		case f.kind == protocol.FrameMarkMsgEnd:
			ends++
		default:
			namedMarks++
		}
	}
	if main != frames || starts != 1 || ends != 1 || namedMarks != 1 {
		t.Errorf("frame marks main %d start %d end %d named %d", main, starts, ends, namedMarks)
	}
	if len(c.images) != frames {
		t.Fatalf("images %d", len(c.images))
	}
	for i, im := range c.images {
		if im.frame != uint32(i) || im.w != 16 || im.h != 8 || im.flip != uint8(i%2) {
			t.Errorf("image %d: frame %d %dx%d flip %d", i, im.frame, im.w, im.h, im.flip)
		}
	}
	// locks: 20 wait/obtain/release triples on one announced lock
	if c.lockNames[mu.l.id.Load()] != "shared lock" {
		t.Errorf("lock names %v", c.lockNames)
	}
	kinds := map[protocol.QueueType]int{}
	held := false
	var lastT int64
	for _, l := range c.locks {
		kinds[l.typ]++
		if l.t < lastT {
			t.Errorf("lock events out of time order")
		}
		lastT = l.t
		switch l.typ {
		case protocol.LockObtain:
			if held {
				t.Errorf("lock obtained twice without release")
			}
			held = true
		case protocol.LockRelease:
			held = false
		}
	}
	if kinds[protocol.LockWait] != 20 || kinds[protocol.LockObtain] != 20 || kinds[protocol.LockRelease] != 20 {
		t.Errorf("lock events %v", kinds)
	}
	// BeginHere zones: 5 zones named after this function.
	counts := c.zoneCounts()
	if counts["github.com/gotracy/gotracy/tracy.TestEndToEndEverything"] != frames {
		t.Errorf("zones %v", counts)
	}
}

// TestThousandGoroutines: 1,000 goroutines emit at once; every zone arrives
// on its own goroutine's thread, nested and in order.
func TestThousandGoroutines(t *testing.T) {
	ts := startWithServer(t)
	const G, Z = 1000, 20
	loc := NewLoc("g")
	var wg sync.WaitGroup
	start := make(chan struct{})
	names := make([]string, G)
	for g := 0; g < G; g++ {
		wg.Add(1)
		names[g] = fmt.Sprintf("w%04d", g)
		go func() {
			defer wg.Done()
			SetThreadName(names[g])
			<-start
			for i := 0; i < Z; i++ {
				z := Begin(loc)
				z.Value(uint64(g*1000 + i))
				inner := BeginNamed(names[g])
				inner.End()
				z.End()
				if i%5 == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	c := stopAndCollect(t, ts)
	seen := 0
	for tid, th := range c.threads {
		name := c.threadNames[tid]
		if !strings.HasPrefix(name, "w") {
			continue
		}
		var g int
		fmt.Sscanf(name, "w%04d", &g)
		if len(th.roots) != Z {
			t.Fatalf("%s: %d zones, want %d", name, len(th.roots), Z)
		}
		for i, z := range th.roots {
			if z.value != uint64(g*1000+i) {
				t.Fatalf("%s zone %d carries value %d: misattributed", name, i, z.value)
			}
			if len(z.children) != 1 || c.zoneName(z.children[0]) != name {
				t.Fatalf("%s zone %d: bad child", name, i)
			}
		}
		seen++
	}
	if seen != G {
		t.Fatalf("threads with zones: %d, want %d", seen, G)
	}
}

// TestShutdownClosesOpenZones: zones still open at Stop are closed, so the
// server can end the session.
func TestShutdownClosesOpenZones(t *testing.T) {
	ts := startWithServer(t)
	Begin(locOuter) // never ended
	done := make(chan struct{})
	go func() { Begin(locInner); <-done }()
	time.Sleep(10 * time.Millisecond)
	c := stopAndCollect(t, ts)
	close(done)
	n := 0
	c.walk(func(_ uint32, z *capZone, _ int) {
		n++
		if z.end < z.start {
			t.Errorf("zone not closed")
		}
	})
	if n != 2 {
		t.Errorf("zones %d", n)
	}
}

// TestCallstacksAndSource: call stacks resolve through the runtime's tables,
// inlined frames first; source is sent only for files of the binary.
func TestCallstacksAndSource(t *testing.T) {
	if err := Start(WithPort(0), WithBroadcast(false)); err != nil {
		t.Fatal(err)
	}
	ts := dialTestServer(t, Port())
	_, self, _, _ := runtime.Caller(0)
	ts.requestSource = []string{self}
	ts.serve()
	if err := WaitConnected(context.Background()); err != nil {
		t.Fatal(err)
	}
	z := BeginCallstack(locOuter, 8)
	MessageCallstack("with stack", 4)
	AllocCallstack(0x5000, 10, 4)
	FreeCallstack(0x5000, 4)
	z.End()
	c := stopAndCollect(t, ts)

	var zs *capZone
	c.walk(func(_ uint32, z *capZone, _ int) { zs = z })
	if zs == nil || len(zs.callstack) == 0 {
		t.Fatal("zone without call stack")
	}
	top := c.callFrames[zs.callstack[0]]
	if len(top) == 0 || top[len(top)-1].function != "github.com/gotracy/gotracy/tracy.TestCallstacksAndSource" || top[len(top)-1].file != self {
		t.Fatalf("top frame %+v", top)
	}
	if top[len(top)-1].symAddr == 0 || c.symbols[top[len(top)-1].symAddr] != self {
		t.Errorf("symbol answer %q", c.symbols[top[len(top)-1].symAddr])
	}
	if len(c.messages) != 1 || len(c.messages[0].stack) == 0 {
		t.Errorf("message call stack missing")
	}
	if len(c.mem) != 2 || len(c.mem[0].stack) == 0 || len(c.mem[1].stack) == 0 {
		t.Errorf("memory call stacks missing")
	}
	want, _ := os.ReadFile(self)
	found := false
	for id, data := range c.sources {
		if ts.srcIDs[id] == self {
			found = string(data) == string(want)
		}
	}
	if !found {
		t.Errorf("source of %s not sent (%d answers)", self, len(c.sources))
	}
}

// TestSourceRefusesForeignFiles: a path the client did not name is refused,
// however it is spelled.
func TestSourceRefusesForeignFiles(t *testing.T) {
	if err := Start(WithPort(0), WithBroadcast(false)); err != nil {
		t.Fatal(err)
	}
	ts := dialTestServer(t, Port())
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.go")
	os.WriteFile(secret, []byte("package secret"), 0o600)
	_, self, _, _ := runtime.Caller(0)
	for _, p := range []string{secret, "/etc/passwd", filepath.Join(filepath.Dir(self), "..", "tracy", filepath.Base(self)) + "x"} {
		ts.requestSourceFile(p)
	}
	ts.serve()
	WaitConnected(context.Background())
	Begin(locOuter).End()
	c := stopAndCollect(t, ts)
	if len(c.sources) != 3 {
		t.Fatalf("source answers %d, want 3", len(c.sources))
	}
	for id, data := range c.sources {
		if data != nil {
			t.Errorf("source %q was sent", ts.srcIDs[id])
		}
	}
}

// TestOnDemand: nothing is recorded until a server connects; the payload
// carries the frames emitted before; a second server can connect later.
func TestOnDemand(t *testing.T) {
	if err := Start(WithPort(0), WithBroadcast(false), WithOnDemand(true)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		Begin(locOuter).End() // not recorded
		FrameMark()
	}
	mu := NewMutex("od lock")
	mu.Lock()
	mu.Unlock()
	for session := 0; session < 2; session++ {
		ts := dialTestServer(t, Port())
		ts.serve()
		if err := WaitConnected(context.Background()); err != nil {
			t.Fatal(err)
		}
		Begin(locInner).End()
		mu.Lock()
		mu.Unlock()
		if session == 0 {
			// The server stops the capture: end the session
			// without Stop, then connect again.
			Begin(locInner).End()
			time.Sleep(20 * time.Millisecond)
			ts.conn.Close()
			<-ts.done
			for Connected() {
				time.Sleep(time.Millisecond)
			}
			if ts.cap.onDemand == nil || ts.cap.onDemand.Frames != 3 {
				t.Fatalf("on-demand payload %+v", ts.cap.onDemand)
			}
			continue
		}
		c := stopAndCollect(t, ts)
		if c.welcome.Flags&protocol.FlagOnDemand == 0 {
			t.Errorf("on-demand flag missing")
		}
		counts := c.zoneCounts()
		if counts["inner"] != 1 || counts["outer"] != 0 {
			t.Errorf("zones %v", counts)
		}
		found := false
		for id := range c.lockAnn {
			found = found || c.lockNames[id] == "od lock"
		}
		if !found {
			t.Errorf("lock not re-announced to the second server: %v", c.lockNames)
		}
	}
}

// TestDisabledCallsAreNoops: before Start and after Stop nothing happens.
func TestDisabledCallsAreNoops(t *testing.T) {
	z := Begin(locOuter)
	if z.Active() {
		t.Fatal("zone active before Start")
	}
	z.End()
	Message("x")
	PlotInt("x", 1)
	FrameMark()
	Alloc(1, 1)
	mu := NewMutex("m")
	mu.Lock()
	mu.Unlock()
	if Stop() != ErrNotRunning {
		t.Error("Stop before Start")
	}
	allocs := testing.AllocsPerRun(1000, func() { Begin(locOuter).End() })
	if allocs != 0 {
		t.Errorf("disabled zone allocates %v", allocs)
	}
}

func TestPortFallback(t *testing.T) {
	if err := Start(WithBroadcast(false)); err != nil {
		t.Skipf("ports 8086-8105 unavailable: %v", err)
	}
	p := Port()
	if p < 8086 || p > 8105 {
		t.Errorf("port %d outside 8086-8105", p)
	}
	Stop()
}

func sortedKeys(m map[string]int) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// TestBackPressure: with a slow server and a small memory limit, producers
// wait instead of growing memory or dropping events, and nothing is lost.
func TestBackPressure(t *testing.T) {
	const limit = 1 << 20
	// Let states left by earlier tests retire, so the limit is ours.
	oldI, oldG := retireInterval, retireGrace
	retireInterval, retireGrace = 10*time.Millisecond, int64(20*time.Millisecond)
	defer func() { retireInterval, retireGrace = oldI, oldG }()
	if err := Start(WithPort(0), WithBroadcast(false), WithMemoryLimit(limit), WithShutdownTimeout(60*time.Second)); err != nil {
		t.Fatal(err)
	}
	ts := dialTestServer(t, Port()).counting()
	ts.frameDelay = 2 * time.Millisecond
	ts.serve()
	if err := WaitConnected(context.Background()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); chunkBytes.Load() > limit/4 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	waits0 := ReadStats().ProducerWaits
	// Stall the sender once, as a server that stops reading would.
	var once sync.Once
	stall := func() {
		once.Do(func() {
			for end := time.Now().Add(5 * time.Second); waits.Load() == waits0 && time.Now().Before(end); {
				time.Sleep(time.Millisecond)
			}
		})
	}
	senderHook.Store(&stall)
	defer senderHook.Store(nil)
	const n = 200_000 // 5 MB of records, five times the limit
	var peak int64
	for i := 0; i < n; i++ {
		Begin(locOuter).End()
		if i%1000 == 0 {
			if q := chunkBytes.Load(); q > peak {
				peak = q
			}
		}
	}
	waits := ReadStats().ProducerWaits - waits0
	c := stopAndCollect(t, ts)
	_ = c
	if got := ts.locCounts[locOuter.key]; got != n {
		t.Errorf("server counted %d zones, want %d", got, n)
	}
	if waits == 0 {
		t.Errorf("producer never waited with a slow server")
	}
	if peak > limit+2*chunkSize {
		t.Errorf("queue memory peaked at %d bytes, limit %d", peak, limit)
	}
	if !ts.termAlone {
		t.Errorf("Terminate was not sent as a frame of its own")
	}
	t.Logf("producer waits %d, peak queue memory %d KiB", waits, peak>>10)
}

// TestBroadcast: while waiting, the client announces itself to the loopback
// broadcast address with its port and name; at Stop it says it is gone.
func TestBroadcast(t *testing.T) {
	pc, err := net.ListenPacket("udp4", "0.0.0.0:0")
	if err != nil {
		t.Skip("no UDP:", err)
	}
	defer pc.Close()
	old := broadcastPort
	broadcastPort = pc.LocalAddr().(*net.UDPAddr).Port
	defer func() { broadcastPort = old }()
	if err := Start(WithPort(0), WithProgramName("bcast-test")); err != nil {
		t.Fatal(err)
	}
	port := Port()
	buf := make([]byte, 256)
	pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _, err := pc.ReadFrom(buf)
	if err != nil {
		Stop()
		t.Skip("no loopback broadcast delivery here:", err)
	}
	var b protocol.Broadcast
	if err := b.UnmarshalBinary(buf[:n]); err != nil {
		t.Fatal(err)
	}
	if b.Version != 3 || int(b.ListenPort) != port || b.ProgramName != "bcast-test" || b.ActiveTime < 0 || b.ProtocolVersion != 82 {
		t.Errorf("broadcast %+v", b)
	}
	Stop()
	pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		n, _, err = pc.ReadFrom(buf)
		if err != nil {
			t.Fatal("no farewell datagram:", err)
		}
		if err := b.UnmarshalBinary(buf[:n]); err == nil && b.ActiveTime == -1 {
			break
		}
	}
}

// TestDynamicNameOverflowEndToEnd: a name past the location budget still
// reaches the viewer, carried by the zone itself.
func TestDynamicNameOverflowEndToEnd(t *testing.T) {
	ts := startWithServer(t)
	saved := nDyn.Load()
	nDyn.Store(maxDynamicNames)
	BeginNamed("past-the-budget").End()
	nDyn.Store(saved)
	c := stopAndCollect(t, ts)
	if n := c.zoneCounts()["past-the-budget"]; n != 1 {
		t.Errorf("zones %v", c.zoneCounts())
	}
}

// TestParameters: a declared parameter reaches the server, and the server's
// change reaches the callback and is acknowledged.
func TestParameters(t *testing.T) {
	got := make(chan [2]int32, 1)
	OnParameter(func(idx uint32, v int32) { got <- [2]int32{int32(idx), v} })
	defer OnParameter(nil)
	if err := Start(WithPort(0), WithBroadcast(false)); err != nil {
		t.Fatal(err)
	}
	ts := dialTestServer(t, Port())
	minus5 := int32(-5)
	ts.query(protocol.ServerQueryParameter, 3<<32|uint64(uint32(minus5)), 0)
	ts.serve()
	WaitConnected(context.Background())
	Parameter(3, "detail level", false, 7)
	select {
	case v := <-got:
		if v != [2]int32{3, -5} {
			t.Errorf("callback got %v", v)
		}
	case <-time.After(10 * time.Second):
		t.Error("parameter callback not called")
	}
	c := stopAndCollect(t, ts)
	found := false
	for _, p := range c.params {
		found = found || (p[0] == 3 && c.strs[p[1]] == "detail level" && p[2] == 7)
	}
	if !found {
		t.Errorf("parameters %v", c.params)
	}
}

// TestAnswersEveryQuery: queries a server rarely sends (external names,
// fibers, symbol code, parameters, data transfers) each get their answer,
// or the session could not end (the test server ends it only when nothing
// is pending).
func TestAnswersEveryQuery(t *testing.T) {
	if err := Start(WithPort(0), WithBroadcast(false)); err != nil {
		t.Fatal(err)
	}
	ts := dialTestServer(t, Port())
	ts.query(protocol.ServerQueryExternalName, 1234, 0)
	ts.query(protocol.ServerQueryFiberName, 99, 0)
	ts.query(protocol.ServerQuerySymbolCode, 0x401000, 64)
	ts.query(protocol.ServerQueryString, 1<<40, 0) // a key we never gave out
	ts.query(protocol.ServerQueryCallstackFrame, 0x10, 0)
	ts.query(protocol.ServerQuerySymbol, 0x10, 0)
	ts.sendTransfer("some/file.go")
	ts.query(protocol.ServerQuerySourceCode, 0, 0)
	ts.serve()
	WaitConnected(context.Background())
	Begin(locOuter).End()
	c := stopAndCollect(t, ts)
	if fr := c.callFrames[0x10]; len(fr) != 1 || fr[0].function != "[unknown]" {
		t.Errorf("unknown address answered %+v", fr)
	}
	if _, ok := c.sources[0]; !ok {
		t.Error("source query not answered")
	}
}

// TestRWMutexAndDiscard: shared and exclusive lock events, and a pool
// discard.
func TestRWMutexAndDiscard(t *testing.T) {
	ts := startWithServer(t)
	rw := NewRWMutex("rw")
	rw.RLock()
	rw.RUnlock()
	rw.Lock()
	rw.Unlock()
	AllocNamed(0x77, 8, "scratch")
	MemDiscard("scratch")
	c := stopAndCollect(t, ts)
	var kinds []protocol.QueueType
	for _, l := range c.locks {
		if l.id == rw.l.id.Load() {
			kinds = append(kinds, l.typ)
		}
	}
	want := []protocol.QueueType{protocol.LockSharedWait, protocol.LockSharedObtain, protocol.LockSharedRelease,
		protocol.LockWait, protocol.LockObtain, protocol.LockRelease}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("lock events %v, want %v", kinds, want)
	}
	if len(c.discards) != 1 || c.strs[c.discards[0]] != "scratch" {
		t.Errorf("discards %v", c.discards)
	}
}

// TestZoneAcrossOSThreads: a zone stays on its goroutine's thread and nests
// right while the goroutine changes OS thread.
func TestZoneAcrossOSThreads(t *testing.T) {
	ts := startWithServer(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		SetThreadName("mover")
		z := Begin(locOuter)
		runtime.LockOSThread()
		Begin(locInner).End()
		runtime.UnlockOSThread()
		for i := 0; i < 10; i++ {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
		Begin(locInner).End()
		z.End()
	}()
	<-done
	c := stopAndCollect(t, ts)
	for tid, th := range c.threads {
		if c.threadNames[tid] == "mover" {
			if len(th.roots) != 1 || len(th.roots[0].children) != 2 {
				t.Errorf("mover zones: %d roots", len(th.roots))
			}
			return
		}
	}
	t.Error("no mover thread")
}

// TestFrameImageRules: Tracy's size rules are enforced before anything is
// queued.
func TestFrameImageRules(t *testing.T) {
	ts := startWithServer(t)
	for _, sz := range [][2]int{{30, 8}, {8, 30}, {0, 4}, {1024, 1024}} {
		if err := FrameImage(make([]byte, sz[0]*sz[1]*4), sz[0], sz[1], 0, false); !errors.Is(err, ErrImageSize) {
			t.Errorf("%v: %v", sz, err)
		}
	}
	if err := FrameImage(make([]byte, 10), 8, 8, 0, false); !errors.Is(err, ErrImageSize) {
		t.Errorf("short buffer: %v", err)
	}
	// 960x540 is the largest common size that fits a frame (259,200 bytes).
	if err := FrameImage(make([]byte, 960*540*4), 960, 540, 0, false); err != nil {
		t.Errorf("960x540: %v", err)
	}
	for imagesPending.Load() > 0 {
		time.Sleep(time.Millisecond)
	}
	FrameMark()
	c := stopAndCollect(t, ts)
	if len(c.images) != 1 || c.images[0].w != 960 {
		t.Errorf("images %d", len(c.images))
	}
}

// TestStopWithStalledServer: a server that stops reading cannot make Stop
// hang past the shutdown timeout.
func TestStopWithStalledServer(t *testing.T) {
	if err := Start(WithPort(0), WithBroadcast(false), WithShutdownTimeout(200*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	ts := dialTestServer(t, Port()) // handshakes, then never reads
	defer ts.conn.Close()
	if err := WaitConnected(context.Background()); err != nil {
		t.Fatal(err)
	}
	// 24 MB of incompressible text: more than the socket buffers hold.
	rnd := make([]byte, 60000)
	for i := 0; i < 400; i++ {
		rand.Read(rnd)
		Message(string(rnd))
	}
	start := time.Now()
	Stop()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Stop took %v", d)
	}
}
