package tracefile

import (
	"bytes"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
)

var heavy10m struct {
	once    sync.Once
	payload []byte
}

func heavyPayload(b *testing.B) []byte {
	path := fixtures.Path(b, "heavy10m.tracy")
	_ = path
	heavy10m.once.Do(func() { heavy10m.payload = fixturePayload(b, "heavy10m.tracy") })
	return heavy10m.payload
}

// reportModel adds zones/s and the retained heap per zone of the last
// loaded trace (runtime.MemStats delta after a GC, so it is what the model
// keeps, not what loading churned through).
func reportZones(b *testing.B, zones int) {
	b.ReportMetric(float64(zones)*float64(b.N)/b.Elapsed().Seconds(), "zones/s")
}

func retainedPerZone(b *testing.B, load func() *model.Trace) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t := load()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(t.ZoneCount()), "heapB/zone")
	runtime.KeepAlive(t)
}

// BenchmarkReadPayloadHeavy10m decodes the 10-million-zone real capture's
// payload from memory: the payload reader alone.
func BenchmarkReadPayloadHeavy10m(b *testing.B) {
	p := heavyPayload(b)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	var zones int
	b.ResetTimer()
	for range b.N {
		t, err := ReadPayload(bytes.NewReader(p), int64(len(p)))
		if err != nil {
			b.Fatal(err)
		}
		zones = t.ZoneCount()
	}
	b.StopTimer()
	reportZones(b, zones)
	retainedPerZone(b, func() *model.Trace {
		t, _ := ReadPayload(bytes.NewReader(p), int64(len(p)))
		return t
	})
}

// BenchmarkReadFileHeavy10m is the whole load of the file: mmap, 4 Zstd
// streams in parallel, payload decode. SetBytes counts payload bytes.
func BenchmarkReadFileHeavy10m(b *testing.B) {
	path := fixtures.Path(b, "heavy10m.tracy")
	b.ReportAllocs()
	var zones int
	var rep Report
	for range b.N {
		t, err := ReadFile(path, WithReport(&rep))
		if err != nil {
			b.Fatal(err)
		}
		zones = t.ZoneCount()
	}
	b.SetBytes(rep.PayloadBytes)
	reportZones(b, zones)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/float64(zones), "heapSysB/zone")
}

// BenchmarkWritePayloadHeavy10m encodes the 10-million-zone trace.
func BenchmarkWritePayloadHeavy10m(b *testing.B) {
	p := heavyPayload(b)
	t, err := ReadPayload(bytes.NewReader(p), int64(len(p)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := WritePayload(io.Discard, t); err != nil {
			b.Fatal(err)
		}
	}
	reportZones(b, t.ZoneCount())
}

var gen10m struct {
	once sync.Once
	t    *model.Trace
	p    []byte
}

func generated10m(b *testing.B) (*model.Trace, []byte) {
	gen10m.once.Do(func() {
		gen10m.t = genTrace(10, 10_000_000)
		var buf bytes.Buffer
		if err := WritePayload(&buf, gen10m.t); err != nil {
			b.Fatal(err)
		}
		gen10m.p = buf.Bytes()
	})
	return gen10m.t, gen10m.p
}

// BenchmarkGenerated10M saves and loads a generated trace of 10 million
// zones (random trees, texts, colours, every other record kind) through the
// container in the configurations Tracy offers.
func BenchmarkGenerated10M(b *testing.B) {
	t, p := generated10m(b)
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"lz4-1", []Option{WithLZ4(), WithStreams(1)}},
		{"lz4-4", []Option{WithLZ4(), WithStreams(4)}},
		{"lz4-16", []Option{WithLZ4(), WithStreams(16)}},
		{"zstd3-1", []Option{WithZstd(3), WithStreams(1)}},
		{"zstd3-4", []Option{WithZstd(3), WithStreams(4)}},
		{"zstd3-16", []Option{WithZstd(3), WithStreams(16)}},
	} {
		var file bytes.Buffer
		b.Run("save-"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for range b.N {
				file.Reset()
				if err := Write(&file, t, c.opts...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(file.Len())/float64(len(p))*100, "%size")
			reportZones(b, t.ZoneCount())
		})
		b.Run("load-"+c.name, func(b *testing.B) {
			data := file.Bytes()
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for range b.N {
				if _, err := Read(bytes.NewReader(data), int64(len(data))); err != nil {
					b.Fatal(err)
				}
			}
			reportZones(b, t.ZoneCount())
		})
	}
}
