package fuchsia

import (
	"bytes"
	"sync"
	"testing"
)

// millionEvents is an FXT stream of 1,000,000 events: complete zones three
// deep on four threads (table strings and threads, one argument on the
// outer zone), with instants and counters.
var millionEvents = sync.OnceValue(func() []byte {
	var f fxt
	f.magic()
	f.init(1_000_000_000)
	for i, s := range []string{"cat", "frame_work", "update", "physics_step", "checkpoint", "mem", "n", "heap"} {
		f.str(uint16(i+1), s)
	}
	for t := range 4 {
		f.thread(uint8(t+1), 1, uint64(t+1))
	}
	n := 0
	for i := 0; n < 1_000_000; i++ {
		th := thr{idx: uint8(i%4 + 1)}
		base := uint64(i/4) * 10_000
		f.event(evComplete, th, ref{idx: 1}, ref{idx: 2}, base, []arg{{typ: 2, name: ref{idx: 7}, value: uint64(i)}}, base+9_000)
		f.event(evComplete, th, ref{idx: 1}, ref{idx: 3}, base+100, nil, base+4_421)
		f.event(evComplete, th, ref{idx: 1}, ref{idx: 4}, base+200, nil, base+1_434)
		n += 3
		if i%8 == 0 {
			f.event(evInstant, th, ref{idx: 1}, ref{idx: 5}, base+50, nil, 0)
			f.event(evCounter, th, ref{idx: 1}, ref{idx: 6}, base+60, []arg{{typ: 4, name: ref{idx: 8}, value: uint64(i * 64)}}, 1)
			n += 2
		}
	}
	return f.b
})

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
