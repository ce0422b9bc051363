//go:build !notracy

package tracy

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime/trace"
	"strconv"
	"testing"
	"time"

	"github.com/gotracy/gotracy/protocol"
)

// sinkServer connects and reads the frames without decompressing them or
// asking anything, and ends the session when the Terminate frame arrives
// (a 1-byte item compresses to the 2-byte literal block 10 49): the
// cheapest possible server, so a benchmark measures the client.
func sinkServer(tb testing.TB, port int) chan error {
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		tb.Fatal(err)
	}
	hs := append([]byte(protocol.Shibboleth), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(hs[8:], protocol.ProtocolVersion)
	c.Write(hs)
	done := make(chan error, 1)
	go func() {
		defer c.Close()
		br := bufio.NewReaderSize(c, 1<<20)
		if _, err := protocol.ReadSession(br); err != nil {
			done <- err
			return
		}
		var hdr [4]byte
		var blk [protocol.LZ4Size]byte
		for {
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				done <- err
				return
			}
			n := binary.LittleEndian.Uint32(hdr[:])
			if n > protocol.LZ4Size {
				done <- fmt.Errorf("frame of %d bytes", n)
				return
			}
			if _, err := io.ReadFull(br, blk[:n]); err != nil {
				done <- err
				return
			}
			if n == 2 && blk[0] == 0x10 && protocol.QueueType(blk[1]) == protocol.Terminate {
				c.Write(make([]byte, protocol.ServerQueryPacketSize))
				done <- nil
				return
			}
		}
	}()
	return done
}

func startSink(b *testing.B) chan error {
	if err := Start(WithPort(0), WithBroadcast(false)); err != nil {
		b.Fatal(err)
	}
	done := sinkServer(b, Port())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitConnected(ctx); err != nil {
		b.Fatal(err)
	}
	return done
}

func stopSink(b *testing.B, done chan error) {
	b.StopTimer()
	if err := Stop(); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil && err != io.EOF {
		b.Fatal(err)
	}
}

var benchLoc = NewLoc("bench")

// BenchmarkZoneBeginEnd: one static-location zone, no call stack, a server
// connected and draining.
func BenchmarkZoneBeginEnd(b *testing.B) {
	done := startSink(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Begin(benchLoc).End()
	}
	stopSink(b, done)
}

// BenchmarkZoneBeginEndDefer is the idiomatic form, with defer.
func BenchmarkZoneBeginEndDefer(b *testing.B) {
	done := startSink(b)
	b.ReportAllocs()
	b.ResetTimer()
	f := func() { defer Begin(benchLoc).End() }
	for i := 0; i < b.N; i++ {
		f()
	}
	stopSink(b, done)
}

// BenchmarkZoneNamed: a zone with a run-time name (interned once).
func BenchmarkZoneNamed(b *testing.B) {
	done := startSink(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		BeginNamed("named zone").End()
	}
	stopSink(b, done)
}

// BenchmarkZoneHere: a zone located at its call site by PC.
func BenchmarkZoneHere(b *testing.B) {
	done := startSink(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		BeginHere().End()
	}
	stopSink(b, done)
}

// BenchmarkPlotInt: one plot point.
func BenchmarkPlotInt(b *testing.B) {
	done := startSink(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		PlotInt("bench plot", int64(i))
	}
	stopSink(b, done)
}

// BenchmarkZoneDisabled: the same zone before Start (or after Stop).
func BenchmarkZoneDisabled(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Begin(benchLoc).End()
	}
}

// BenchmarkRuntimeTraceRegion: runtime/trace's region with tracing on, the
// standard library's nearest equivalent of a zone.
func BenchmarkRuntimeTraceRegion(b *testing.B) {
	if err := trace.Start(io.Discard); err != nil {
		b.Skip("tracing already on:", err)
	}
	defer trace.Stop()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		trace.StartRegion(ctx, "bench").End()
	}
	b.StopTimer()
}

// BenchmarkRawProducer: the producer's own cost per zone (records queued,
// no sender running; the queue is emptied outside the timer).
func BenchmarkRawProducer(b *testing.B) {
	rec.Store(99)
	defer rec.Store(0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Begin(benchLoc).End()
		if i&1023 == 0 {
			b.StopTimer()
			discardAll()
			b.StartTimer()
		}
	}
	discardAll()
}

// BenchmarkRawNow: one clock read.
func BenchmarkRawNow(b *testing.B) {
	for i := 0; i < b.N; i++ {
		now()
	}
}

// BenchmarkRawCurState: finding the running goroutine's queue.
func BenchmarkRawCurState(b *testing.B) {
	for i := 0; i < b.N; i++ {
		curState()
	}
}

// BenchmarkSenderEncode: the sender's cost per zone (records to compressed
// frames), measured alone.
func BenchmarkSenderEncode(b *testing.B) {
	p := &profiler{cfg: defaultConfig()}
	s := &session{p: p, ep: 99, buf: make([]byte, 0, 256<<10)}
	s.sw.w = io.Discard
	s.backlog = new(backlogBuf)
	s.fw = protocol.NewFrameWriter(&s.sw)
	rec.Store(99)
	defer rec.Store(0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Begin(benchLoc).End()
		if i&4095 == 4095 {
			s.drainAll()
			s.flush()
		}
	}
	s.drainAll()
	s.flush()
	b.StopTimer()
	discardAll()
}

// BenchmarkSenderOnly: the sender's cost per zone (records to compressed
// frames) without the producer: batches of 4096 zones are recorded outside
// the timer and converted, framed and compressed inside it.
func BenchmarkSenderOnly(b *testing.B) {
	p := &profiler{cfg: defaultConfig()}
	s := &session{p: p, ep: 99, buf: make([]byte, 0, 256<<10)}
	s.sw.w = io.Discard
	s.backlog = new(backlogBuf)
	s.fw = protocol.NewFrameWriter(&s.sw)
	rec.Store(99)
	defer rec.Store(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 4096 {
		b.StopTimer()
		for j := 0; j < 4096; j++ {
			Begin(benchLoc).End()
		}
		b.StartTimer()
		s.drainAll()
		s.flush()
	}
	b.StopTimer()
	discardAll()
}
