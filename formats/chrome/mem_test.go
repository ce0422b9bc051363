package chrome

import (
	"io"
	"runtime"
	"testing"
)

// bigReader yields head, then n filler bytes, then tail; halfway through the
// filler it records the live heap.
type bigReader struct {
	head, tail string
	n, done    int
	fill       byte
	midHeap    uint64
}

func (r *bigReader) Read(p []byte) (int, error) {
	if r.head != "" {
		k := copy(p, r.head)
		r.head = r.head[k:]
		return k, nil
	}
	if r.done < r.n {
		k := min(len(p), r.n-r.done)
		for i := range k {
			p[i] = r.fill
		}
		if r.done < r.n/2 && r.done+k >= r.n/2 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			r.midHeap = ms.HeapAlloc
		}
		r.done += k
		return k, nil
	}
	if r.tail != "" {
		k := copy(p, r.tail)
		r.tail = r.tail[k:]
		return k, nil
	}
	return 0, io.EOF
}

// TestStreamingMemory imports a document holding a 256 MB string the
// importer skips and 256 MB of whitespace between events: the live heap
// halfway through stays a small fraction of the input, so a 1 GB file never
// becomes a 1 GB string.
func TestStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 512 MB of generated input")
	}
	const size = 256 << 20
	for _, c := range []struct {
		name       string
		head, tail string
		fill       byte
	}{
		{"skipped string", `{"otherData":"`, `","traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"tid":1}]}`, 'x'},
		{"whitespace", `[{"ph":"X","name":"a","ts":1,"dur":2,"tid":1},`, `{"ph":"X","name":"b","ts":5,"dur":2,"tid":1}]`, ' '},
	} {
		r := &bigReader{head: c.head, tail: c.tail, n: size, fill: c.fill}
		tr, err := Import(r, ImportOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if tr.ZoneCount() == 0 {
			t.Fatalf("%s: no zones imported", c.name)
		}
		// Generous: the scanner's window is 256 KB; anything near the
		// input's size would mean it was buffered whole.
		if r.midHeap > 32<<20 {
			t.Errorf("%s: %d MB live halfway through %d MB of input", c.name, r.midHeap>>20, size>>20)
		}
		t.Logf("%s: %.1f MB live halfway through %d MB", c.name, float64(r.midHeap)/(1<<20), size>>20)
	}
}
