//go:build !notracy

package tracy

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncBuffer collects the client's stderr lines in tests.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func captureStderr(t *testing.T) *syncBuffer {
	t.Helper()
	buf := &syncBuffer{}
	old := stderr
	stderr = buf
	t.Cleanup(func() { stderr = old })
	return buf
}

// liveHeap is the heap still reachable after a full collection: what the
// program holds, not what a busy machine's GC has not yet reclaimed.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

var locSmall = NewLoc("small")

// TestNoServerKeepsRunning reproduces issue #12: 8 goroutines of small
// zones, default mode, nobody connected. Recording fills the backlog and
// then stops with one warning; the producers never stop making progress,
// queue and backlog memory stay within their limits, and a main that joins
// its workers and then calls Stop returns.
func TestNoServerKeepsRunning(t *testing.T) {
	const memLimit, backlogLimit = 4 << 20, 2 << 20
	errs := captureStderr(t)
	base := liveHeap()
	if err := Start(WithPort(0), WithBroadcast(false), WithMemoryLimit(memLimit), WithBacklogLimit(backlogLimit),
		WithExitWait(0)); err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	var count atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				for i := 0; i < 1000; i++ {
					Begin(locSmall).End()
				}
				count.Add(1000)
				runtime.Gosched()
			}
		}()
	}
	// Until the backlog is full, then three more windows: progress in each.
	deadline := time.Now().Add(60 * time.Second)
	for ReadStats().BacklogStops == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	st := ReadStats()
	if st.BacklogStops != 1 {
		done.Store(true)
		wg.Wait()
		Stop()
		t.Fatalf("BacklogStops %d after the backlog limit; want 1 (stats %+v)", st.BacklogStops, st)
	}
	frozenHeap := liveHeap()
	var peakQueue int64
	for win := 0; win < 3; win++ {
		c0 := count.Load()
		time.Sleep(200 * time.Millisecond)
		if c := count.Load(); c == c0 {
			t.Errorf("window %d: no zone completed in 200 ms after the backlog filled", win)
		}
		peakQueue = max(peakQueue, ReadStats().QueueBytes)
	}
	after := liveHeap()
	held := after - min(base, after)
	st = ReadStats()
	done.Store(true)
	wg.Wait() // the workers are joined first, as in a typical main

	stopped := make(chan error, 1)
	go func() { stopped <- Stop() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not return within 30 s after the workers were joined")
	}
	if st.BacklogBytes > backlogLimit+backlogMaxBlock {
		t.Errorf("backlog %d bytes, limit %d", st.BacklogBytes, backlogLimit)
	}
	if peakQueue > memLimit+2*chunkSize {
		t.Errorf("queue memory %d bytes after the stop, limit %d", peakQueue, memLimit)
	}
	// Once recording has stopped, running on costs no memory: the live
	// heap does not grow over 600 ms of full-speed zones (2 MiB of slack
	// for the runtime's own bookkeeping on a busy machine).
	if after > frozenHeap+2<<20 {
		t.Errorf("live heap grew from %d to %d bytes while nothing was recorded", frozenHeap, after)
	}
	// What the client holds since Start: the backlog, chunks (in use or
	// pooled, at most the memory limit) and small change. Generous (the
	// full suite's earlier tests leave pooled chunks and retired states
	// behind), but a backlog or queue that kept growing would pass it.
	if bound := uint64(backlogLimit + memLimit + 32<<20); held > bound {
		t.Errorf("live heap grew by %d bytes with the backlog full; want at most %d", held, bound)
	}
	out := errs.String()
	if n := strings.Count(out, "pre-connection backlog is full"); n != 1 {
		t.Errorf("%d backlog warnings on stderr, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "no Tracy server connected; discarding") {
		t.Errorf("Stop did not say what it discarded:\n%s", out)
	}
	t.Logf("zones run %d; backlog %d KiB; live heap +%d KiB; stderr:\n%s", count.Load(), st.BacklogBytes>>10, held>>10, out)
}

// TestResumeAfterBacklogFull: a server that connects after the backlog
// filled gets the start of the run and then live data, as one consistent
// capture (the test server refuses unbalanced zones).
func TestResumeAfterBacklogFull(t *testing.T) {
	captureStderr(t)
	const backlogLimit = 256 << 10
	if err := Start(WithPort(0), WithBroadcast(false), WithBacklogLimit(backlogLimit), WithShutdownTimeout(20*time.Second)); err != nil {
		t.Fatal(err)
	}
	outer := Begin(locOuter) // open across the freeze: closed in the backlog
	for i := 0; ReadStats().BacklogStops == 0; i++ {
		for j := 0; j < 1000; j++ {
			Begin(locSmall).End()
		}
		if i > 1_000_000 {
			Stop()
			t.Fatal("the backlog never filled")
		}
	}
	Begin(locInner).End() // not recorded: frozen
	ts := dialTestServer(t, Port()).counting()
	ts.serve()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitConnected(ctx); err != nil {
		Stop()
		t.Fatal(err)
	}
	for rec.Load() == 0 {
		time.Sleep(time.Millisecond) // the sender resumes after the backlog
	}
	for i := 0; i < 500; i++ {
		Begin(locInner).End()
	}
	outer.End()
	stopAndCollect(t, ts)
	if got := ts.locCounts[locInner.key]; got != 500 {
		t.Errorf("%d zones recorded after resuming, want 500", got)
	}
	if got := ts.locCounts[locOuter.key]; got != 1 {
		t.Errorf("outer zone counted %d times, want 1", got)
	}
	if ts.locCounts[locSmall.key] == 0 {
		t.Errorf("no zone of the backlog arrived")
	}
}

// TestStopWaitsForLateServer: with WithExitWait, a server that connects
// after Stop began receives everything recorded before.
func TestStopWaitsForLateServer(t *testing.T) {
	captureStderr(t)
	if err := Start(WithPort(0), WithBroadcast(false), WithExitWait(20*time.Second)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		Begin(locOuter).End()
	}
	port := Port()
	stopped := make(chan error, 1)
	go func() { stopped <- Stop() }()
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned before any server connected: %v", err)
	default:
	}
	ts := dialTestServer(t, port).counting()
	ts.serve()
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	ts.result()
	if got := ts.locCounts[locOuter.key]; got != 1000 {
		t.Errorf("late server counted %d zones, want 1000", got)
	}
}

// TestShortProgramGrace: a program that stops right after Start still
// serves a capture that connects within the grace period (one that was
// already retrying), without any option.
func TestShortProgramGrace(t *testing.T) {
	captureStderr(t)
	if err := Start(WithPort(0), WithBroadcast(false)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		Begin(locOuter).End()
	}
	port := Port()
	stopped := make(chan error, 1)
	go func() { stopped <- Stop() }()
	time.Sleep(50 * time.Millisecond) // a capture polling every 100 ms
	ts := dialTestServer(t, port).counting()
	ts.serve()
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	ts.result()
	if got := ts.locCounts[locOuter.key]; got != 1000 {
		t.Errorf("capture counted %d zones, want 1000", got)
	}
}

// TestStopReportsDiscarded: nobody connects: Stop returns promptly and
// says on stderr how much it discarded and how to keep it.
func TestStopReportsDiscarded(t *testing.T) {
	errs := captureStderr(t)
	if err := Start(WithPort(0), WithBroadcast(false)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		Begin(locOuter).End()
	}
	start := time.Now()
	if err := Stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Stop took %v with nobody connected", d)
	}
	out := errs.String()
	if !strings.Contains(out, "discarding 1000 zones") || !strings.Contains(out, "TRACY_NO_EXIT=1") ||
		strings.Count(out, "\n") != 1 {
		t.Errorf("stderr %q: want one line naming the 1000 zones and TRACY_NO_EXIT=1", out)
	}
	// On demand, nothing is recorded without a server: nothing to report.
	errs2 := captureStderr(t)
	if err := Start(WithPort(0), WithBroadcast(false), WithOnDemand(true)); err != nil {
		t.Fatal(err)
	}
	Begin(locOuter).End()
	Stop()
	if s := errs2.String(); s != "" {
		t.Errorf("on-demand Stop wrote %q", s)
	}
}

// TestEnvironment: Tracy's variables configure the client; options in code
// win; a bad value is an error, not a silent default.
func TestEnvironment(t *testing.T) {
	env := map[string]string{"TRACY_PORT": "9123", "TRACY_NO_EXIT": "1", "TRACY_NO_BROADCAST": "1",
		"TRACY_ONLY_IPV4": "1", "TRACY_ON_DEMAND": "1", "TRACY_ONLY_LOCALHOST": "1"}
	c := defaultConfig()
	c.addr = ""
	c.applyEnv(func(k string) string { return env[k] })
	if c.port != 9123 || !c.exitWaitSet || c.exitWait >= 0 || c.broadcast || !c.ipv4Only || !c.onDemand || c.addr != "127.0.0.1" {
		t.Errorf("config from environment: %+v", c)
	}
	WithPort(0)(&c)
	WithExitWait(time.Second)(&c)
	if c.port != 0 || c.exitWait != time.Second {
		t.Errorf("options did not win over the environment: %+v", c)
	}
	t.Setenv("TRACY_PORT", "eighty")
	if err := Start(); err == nil || !strings.Contains(err.Error(), `TRACY_PORT="eighty"`) {
		Stop()
		t.Errorf("Start with TRACY_PORT=eighty: %v", err)
	}
	if err := Start(WithPort(0), WithBroadcast(false)); err != nil {
		t.Errorf("WithPort did not override a bad TRACY_PORT: %v", err)
	} else {
		Stop()
	}
}

// TestStalledServerReleasesProducers: a connected server that stops
// reading holds producers back (back-pressure) but only for the stall
// timeout: then the session ends with ErrServerStalled and the program
// runs on.
func TestStalledServerReleasesProducers(t *testing.T) {
	old := stallTimeout
	stallTimeout = 300 * time.Millisecond
	defer func() { stallTimeout = old }()
	if err := Start(WithPort(0), WithBroadcast(false), WithMemoryLimit(1<<20), WithShutdownTimeout(time.Second)); err != nil {
		t.Fatal(err)
	}
	ts := dialTestServer(t, Port()) // handshakes, then never reads
	defer ts.conn.Close()
	if err := WaitConnected(context.Background()); err != nil {
		t.Fatal(err)
	}
	waits0 := ReadStats().ProducerWaits
	start := time.Now()
	// Incompressible texts: 24 MB, far more than the socket buffers and
	// the 1 MiB queue limit hold.
	txt := make([]byte, 60000)
	for i := 0; i < 400; i++ {
		rand.Read(txt)
		Message(string(txt))
	}
	elapsed := time.Since(start)
	st := ReadStats()
	err := Stop()
	if st.ProducerWaits == waits0 {
		t.Errorf("producers never waited for the stalled server")
	}
	if elapsed > 20*time.Second {
		t.Errorf("producers were held %v by a stalled server (stall timeout %v)", elapsed, stallTimeout)
	}
	if !errors.Is(err, ErrServerStalled) {
		t.Errorf("Stop = %v, want ErrServerStalled", err)
	}
	t.Logf("held %v, %d waits", elapsed.Round(time.Millisecond), st.ProducerWaits-waits0)
}
