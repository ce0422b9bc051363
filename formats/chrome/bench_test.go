package chrome

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/tracefile"
)

// MillionEvents is a Chrome JSON document of 1,000,000 events: complete
// zones nested three deep on four threads with args and locations, plus
// instants and counters, as a profiler's export looks.
var millionEvents = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	n := 0
	emit := func(s string) {
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s)
		b.WriteByte('\n')
		n++
	}
	for i := 0; n < 1_000_000; i++ {
		tid := strconv.Itoa(i%4 + 1)
		base := int64(i/4) * 10_000
		ts := func(ns int64) string { return string(AppendMicros(nil, ns)) }
		emit(`{"ph":"X","name":"frame_work","pid":1,"tid":` + tid + `,"ts":` + ts(base) + `,"dur":` + ts(9_000) + `,"loc":"src/engine/frame.cpp:120","args":{"frame":` + strconv.Itoa(i) + `}}`)
		emit(`{"ph":"X","name":"update","pid":1,"tid":` + tid + `,"ts":` + ts(base+100) + `,"dur":` + ts(4_321) + `,"loc":"src/engine/update.cpp:44"}`)
		emit(`{"ph":"X","name":"physics_step","pid":1,"tid":` + tid + `,"ts":` + ts(base+200) + `,"dur":` + ts(1_234) + `,"loc":"src/engine/physics.cpp:9"}`)
		emit(`{"ph":"B","name":"render","pid":1,"tid":` + tid + `,"ts":` + ts(base+5_000) + `}`)
		emit(`{"ph":"E","pid":1,"tid":` + tid + `,"ts":` + ts(base+8_765) + `}`)
		if i%8 == 0 {
			emit(`{"ph":"i","name":"checkpoint","pid":1,"tid":` + tid + `,"ts":` + ts(base+50) + `,"s":"t"}`)
			emit(`{"ph":"C","name":"mem","pid":1,"ts":` + ts(base+60) + `,"args":{"heap_bytes":` + strconv.Itoa(i*64) + `}}`)
		}
	}
	b.WriteString("]}\n")
	return b.Bytes()
})

// BenchmarkImport1M imports the million-event document (DESIGN.md,
// "formats", has the figures).
func BenchmarkImport1M(b *testing.B) {
	data := millionEvents()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		if _, err := Import(bytes.NewReader(data), ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

func BenchmarkExportHeavy1M(b *testing.B) {
	tr, err := tracefile.ReadFile(fixtures.Path(b, "heavy1m.tracy"))
	if err != nil {
		b.Fatal(err)
	}
	var n countWriter
	if err := Export(&n, tr, ExportOptions{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if err := Export(io.Discard, tr, ExportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
