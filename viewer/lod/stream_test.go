package lod

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/tracefile/container"
)

// streamLoad reads the trace file data with a Stream fed by the reader
// every `every` zones of a thread, and returns the trace, the stream's
// index and how many threads the stream's work was used for.
func streamLoad(t testing.TB, data []byte, every int) (*model.Trace, *Index, int) {
	t.Helper()
	s := NewStream()
	tr, err := tracefile.Read(bytes.NewReader(data), int64(len(data)), tracefile.WithThreadZones(every, func(tz *tracefile.ThreadZones) {
		s.Add(Batch{Thread: tz.Thread, Chunks: tz.Chunks, Len: tz.Len, Open: tz.Open, Want: tz.Want, LastTime: tz.LastTime, Done: tz.Done})
	}))
	if err != nil {
		s.Abort()
		t.Fatal(err)
	}
	ix := s.Index(tr)
	return tr, ix, s.used
}

// shapeTrace is a zone tree from random bytes, as FuzzTimeline makes
// them: opens, closes, gaps, zones left open at the end, zero-length ones.
func shapeTrace(n int, seed uint64, opens int) *model.Trace {
	r := rand.New(rand.NewPCG(seed, 7))
	b := model.NewBuilder()
	th := b.Thread(1)
	th2 := b.Thread(2)
	loc := b.AddStaticSrcLoc(1, model.SourceLocation{Line: 1})
	tm := int64(0)
	open := 0
	for range n {
		k := th
		if r.IntN(8) == 0 {
			k = th2
		}
		switch c := r.IntN(opens + 6); {
		case c < opens:
			b.BeginZone(k, tm, loc)
			open++
		case c < opens+4:
			b.EndZone(k, tm)
			open--
		case c == opens+4:
			tm += int64(r.IntN(1 << 20)) // a gap
		}
		if r.IntN(3) > 0 {
			tm += int64(r.IntN(50)) // zero-length zones too
		}
	}
	b.Observe(tm)
	return b.Finish()
}

func encode(t testing.TB, tr *model.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := tracefile.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The index a Stream builds while the file is read equals Build's of the
// loaded trace, on synthetic traces of many shapes and on the fixtures,
// at every reporting interval (1: a batch after nearly every zone, so
// nearly every zone with children is walked while still open), and the
// stream's work is what Index returns (not a build afterwards).
func TestStreamMatchesBuild(t *testing.T) {
	type tc struct {
		name string
		data func(t *testing.T) []byte
		big  bool
	}
	file := func(name string) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			data, err := os.ReadFile(fixtures.Path(t, name))
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
	synth := func(s synthtrace.Spec) func(t *testing.T) []byte {
		return func(t *testing.T) []byte { return encode(t, synthtrace.Make(s)) }
	}
	cases := []tc{
		{"synth-1thread-depth20", synth(synthtrace.Spec{Zones: 300_000, Threads: 1, MaxDepth: 20, Seed: 1}), false},
		{"synth-16threads-depth20", synth(synthtrace.Spec{Zones: 400_000, Threads: 16, MaxDepth: 20, Seed: 2}), false},
		{"synth-3threads-depth2", synth(synthtrace.Spec{Zones: 200_000, Threads: 3, MaxDepth: 2, Seed: 3}), false},
		{"synth-2threads-depth60", synth(synthtrace.Spec{Zones: 600_000, Threads: 2, MaxDepth: 60, Seed: 4}), true},
		{"flat-roots", func(t *testing.T) []byte { return encode(t, heavyTrace(700_000, 5)) }, true},
		{"shapes-shallow", func(t *testing.T) []byte { return encode(t, shapeTrace(40_000, 6, 2)) }, false},
		{"shapes-deep", func(t *testing.T) []byte { return encode(t, shapeTrace(40_000, 7, 5)) }, false},
		{"shapes-chain", func(t *testing.T) []byte { return encode(t, shapeTrace(3_000, 8, 40)) }, false},
		{"demo", file("demo.tracy"), false},
		{"heavy1m", file("heavy1m.tracy"), true},
		{"heavy10m", file("heavy10m.tracy"), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.big && testing.Short() {
				t.Skip("-short")
			}
			data := c.data(t)
			for _, every := range []int{1, 7, 1000, model.ZoneChunkLen} {
				if every < 1000 && len(data) > 2<<20 {
					continue // a batch per zone of millions: minutes under -race
				}
				tr, ix, used := streamLoad(t, data, every)
				if d := indexDiff(ix, Build(tr)); d != "" {
					t.Fatalf("every %d: %s", every, d)
				}
				want := 0
				for k := range tr.Threads {
					if tr.Threads[k].Zones.Len() > 0 {
						want++
					}
				}
				if used < want {
					t.Fatalf("every %d: the stream's work was used for %d of the %d threads with zones", every, used, want)
				}
				if every == 7 && ix.Bytes() != Build(tr).Bytes() {
					t.Fatalf("%d bytes, Build's %d", ix.Bytes(), Build(tr).Bytes())
				}
			}
		})
	}
}

// decodeSim appends src's zones to a new list the way tracefile's reader
// does (a zone with children is appended without its end and Next, which
// are written when its subtree is done; the last chunk grows and moves),
// and feeds s a batch at random points, some while a zone whose subtree is
// complete is still open, as the reader's are until it pops them. It runs
// beside the stream's worker, which reads the zones concurrently.
func decodeSim(src *model.ZoneList, th int, last int64, s *Stream, r *rand.Rand, every int) *model.ZoneList {
	dst := new(model.ZoneList)
	n := src.Len()
	// The thread's size as a file claims it: right, too large, too small, unknown.
	want := []int{n, n, n + 5, n / 2, 0}[r.IntN(5)]
	var stack []uint32
	report := func(done bool) {
		open := make([]uint32, len(stack))
		copy(open, stack)
		if done {
			open = nil
		}
		chunks := dst.Chunks()
		own := make([][]model.Zone, len(chunks))
		copy(own, chunks)
		s.Add(Batch{Thread: th, Chunks: own, Len: dst.Len(), Open: open, Want: want, LastTime: last, Done: done})
	}
	for i := 0; i <= n; i++ {
		if r.IntN(every) == 0 {
			report(false) // before the frames that ended pop
		}
		for len(stack) > 0 && (i == n || int(src.NextOf(src.At(int(stack[len(stack)-1])))) <= i) {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			z := dst.At(int(u))
			z.SetEnd(src.At(int(u)).End())
			dst.SetNextOf(z, src.NextOf(src.At(int(u))))
		}
		if i == n {
			break
		}
		if r.IntN(every) == 0 {
			report(false)
		}
		sz := src.At(i)
		var z model.Zone
		z.SetStart(sz.Start())
		z.SrcLoc = sz.SrcLoc
		z.SetExtra(sz.Extra())
		if nx := src.NextOf(sz); nx > i+1 {
			dst.Append(z)
			stack = append(stack, uint32(i))
		} else {
			z.SetEnd(sz.End())
			z.SetNext(uint32(nx))
			dst.Append(z)
		}
	}
	dst.Trim()
	report(true)
	return dst
}

// The stream follows a decoder that writes zones while the worker reads
// them (run under -race), with batches at random points, and its index
// equals Build's of what the decoder made.
func TestStreamBesideDecoder(t *testing.T) {
	for i, full := range []*model.Trace{
		synthtrace.Make(synthtrace.Spec{Zones: 600_000, Threads: 2, MaxDepth: 24, Seed: 31}),
		shapeTrace(30_000, 32, 3),
		shapeTrace(3_000, 33, 30),
	} {
		for _, every := range []int{2, 50, 5000} {
			t.Run(fmt.Sprintf("trace%d/every%d", i, every), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(i), uint64(every)))
				tr := *full
				tr.Threads = make([]model.Thread, len(full.Threads))
				s := NewStream()
				for k := range full.Threads {
					tr.Threads[k] = full.Threads[k]
					tr.Threads[k].Zones = *decodeSim(&full.Threads[k].Zones, k, full.Metadata.LastTime, s, r, every)
				}
				ix := s.Index(&tr)
				if d := indexDiff(ix, Build(full)); d != "" {
					t.Fatal(d)
				}
				if s.used != len(tr.Threads) {
					t.Fatalf("the stream's work was used for %d of %d threads", s.used, len(tr.Threads))
				}
			})
		}
	}
}

// What the stream cannot vouch for is built afresh: a thread whose batches
// went backwards or did not hold what they claimed, a thread it never saw
// complete, one whose zones the trace holds in other memory; and Abort
// ends the worker.
func TestStreamFallsBack(t *testing.T) {
	full := synthtrace.Make(synthtrace.Spec{Zones: 50_000, Threads: 4, MaxDepth: 10, Seed: 41})
	last := full.Metadata.LastTime
	s := NewStream()
	zl := func(k int) *model.ZoneList { return &full.Threads[k].Zones }
	// thread 0: right; thread 1: goes backwards; thread 2: claims more
	// zones than its chunks hold; thread 3: never done.
	s.Add(Batch{Thread: 0, Chunks: zl(0).Chunks(), Len: zl(0).Len(), LastTime: last, Done: true})
	s.Add(Batch{Thread: 1, Chunks: zl(1).Chunks(), Len: zl(1).Len(), LastTime: last})
	s.Index(&model.Trace{}) // nothing: drains
	if s.used != 0 {
		t.Fatalf("used %d", s.used)
	}

	s = NewStream()
	s.Add(Batch{Thread: 0, Chunks: zl(0).Chunks(), Len: zl(0).Len(), LastTime: last, Done: true})
	s.Add(Batch{Thread: 1, Chunks: zl(1).Chunks(), Len: zl(1).Len(), LastTime: last})
	waitIdle(s)
	s.Add(Batch{Thread: 1, Chunks: zl(1).Chunks(), Len: zl(1).Len() / 2, LastTime: last, Done: true})
	s.Add(Batch{Thread: 2, Chunks: zl(2).Chunks(), Len: zl(2).Len() + 1, LastTime: last, Done: true})
	s.Add(Batch{Thread: 3, Chunks: zl(3).Chunks(), Len: zl(3).Len() / 2, LastTime: last})
	ix := s.Index(full)
	if d := indexDiff(ix, Build(full)); d != "" {
		t.Fatal(d)
	}
	if s.used != 1 {
		t.Fatalf("the stream's work was used for %d threads, want 1 (thread 0)", s.used)
	}

	// The same zones in other memory (a copy of the trace).
	s = NewStream()
	s.Add(Batch{Thread: 0, Chunks: zl(0).Chunks(), Len: zl(0).Len(), LastTime: last, Done: true})
	cp := *full
	cp.Threads = append([]model.Thread(nil), full.Threads...)
	cp.Threads[0].Zones = model.ZonesOf(zl(0).Slice()...)
	if d := indexDiff(s.Index(&cp), Build(full)); d != "" || s.used != 0 {
		t.Fatalf("%q, used %d", d, s.used)
	}

	s = NewStream()
	s.Add(Batch{Thread: 0, Chunks: zl(0).Chunks(), Len: zl(0).Len(), LastTime: last})
	s.Abort()
	s.Add(Batch{Thread: 0, Chunks: zl(0).Chunks(), Len: zl(0).Len(), LastTime: last, Done: true}) // ignored
}

// waitIdle waits until the worker has taken every batch.
func waitIdle(s *Stream) {
	for {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n == 0 {
			return
		}
	}
}

// A load that fails in the middle of a thread's zones, after the stream
// was fed part of them, is aborted: Abort returns with the worker ended.
func TestStreamAbortMidLoad(t *testing.T) {
	cr, err := container.Open(fixtures.Path(t, "heavy1m.tracy"))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := io.ReadAll(cr)
	cr.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := NewStream()
	batches := 0
	_, err = tracefile.ReadPayload(bytes.NewReader(payload[:len(payload)/2]), -1, tracefile.WithThreadZones(1000, func(tz *tracefile.ThreadZones) {
		batches++
		s.Add(Batch{Thread: tz.Thread, Chunks: tz.Chunks, Len: tz.Len, Open: tz.Open, Want: tz.Want, LastTime: tz.LastTime, Done: tz.Done})
	}))
	if err == nil {
		t.Fatal("half a payload loaded")
	}
	if batches < 10 {
		t.Fatalf("only %d batches before the failure: the cut is not in the zones", batches)
	}
	s.Abort()
	select {
	case <-s.done:
	default:
		t.Fatal("the worker still runs after Abort")
	}
}
