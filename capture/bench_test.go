package capture

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/playback"
	"github.com/gotracy/gotracy/protocol"
)

// BenchmarkReplay* measure the whole pipeline (LZ4, decoding, building the
// trace, flattening zones) on a recording. Reported: zones/s of wall time,
// zones per CPU-second (robust on a loaded machine), the peak live heap
// while replaying, and the live heap per stored zone after the replay.
func BenchmarkReplayHeavy10M(b *testing.B) { benchReplay(b, "heavy10m") }
func BenchmarkReplayHeavy1M(b *testing.B)  { benchReplay(b, "heavy1m") }
func BenchmarkReplayDemo(b *testing.B)     { benchReplay(b, "demo") }

func benchReplay(b *testing.B, name string) {
	raw, err := os.ReadFile(fixtures.Path(b, name+".c2s.bin"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var zones int
	var perZone float64
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if h := heapBytes(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	}()
	runtime.GC()
	base := heapBytes()
	cpu0 := cpuTime()
	for b.Loop() {
		res, err := Replay(context.Background(), bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		zones = res.Trace.ZoneCount()
		b.StopTimer()
		runtime.GC()
		perZone = float64(heapBytes()-base) / float64(zones)
		runtime.KeepAlive(res)
		res = nil
		runtime.GC()
		b.StartTimer()
	}
	cpu := cpuTime() - cpu0
	close(stop)
	b.ReportMetric(float64(zones)*float64(b.N)/b.Elapsed().Seconds(), "zones/s")
	if cpu > 0 {
		b.ReportMetric(float64(zones)*float64(b.N)/cpu.Seconds(), "zones/cpu-s")
	}
	b.ReportMetric(float64(peak.Load()-base)/(1<<20), "peak-MB")
	b.ReportMetric(perZone, "B/zone")
}

// BenchmarkDecodeOnlyHeavy10M is the floor the pipeline is compared with
// in the same run: LZ4 and item splitting of the same recording, nothing
// built.
func BenchmarkDecodeOnlyHeavy10M(b *testing.B) {
	raw, err := os.ReadFile(fixtures.Path(b, "heavy10m.c2s.bin"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	items := 0
	cpu0 := cpuTime()
	for b.Loop() {
		r := bytes.NewReader(raw)
		h, err := readHello(r, "", 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		fr := protocol.NewFrameReader(r, h.size)
		items = 0
		for {
			data, err := fr.Next()
			if err != nil {
				break
			}
			var d protocol.ItemDecoder
			d.Reset(data, 0)
			for _, ok := d.Next(); ok; _, ok = d.Next() {
				items++
			}
		}
	}
	cpu := cpuTime() - cpu0
	// Two items per zone in this recording.
	b.ReportMetric(float64(items/2)*float64(b.N)/b.Elapsed().Seconds(), "zones/s")
	if cpu > 0 {
		b.ReportMetric(float64(items/2)*float64(b.N)/cpu.Seconds(), "zones/cpu-s")
	}
}

// BenchmarkLiveHeavy10M captures over loopback from a fake client that
// plays the real client's recorded bytes (answers included) as fast as the
// socket takes them: the live pipeline with its socket reads, query writes
// and back-pressure.
func BenchmarkLiveHeavy10M(b *testing.B) {
	raw, err := os.ReadFile(fixtures.Path(b, "heavy10m.c2s.bin"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	var zones int
	for b.Loop() {
		addr := playback.Client(b, raw)
		res, err := Connect(context.Background(), addr, WithLocalSources(false))
		if err != nil {
			b.Fatal(err)
		}
		zones = res.Trace.ZoneCount()
	}
	b.ReportMetric(float64(zones)*float64(b.N)/b.Elapsed().Seconds(), "zones/s")
}
