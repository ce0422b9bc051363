package synthtrace

import (
	"fmt"
	"math/rand/v2"

	"github.com/gotracy/gotracy/model"
)

// MemSpec says what AddDeep adds to a trace: allocations over pools with
// resolved call stacks, call-stack samples, and contended locks, so the
// memory, flame-graph, locks and source views have something big to chew.
type MemSpec struct {
	Allocs  int     // allocations over all pools
	Pools   int     // named pools besides the default one (0: 1, -1: none)
	Stacks  int     // distinct allocation call stacks (default 2000)
	Leak    float64 // share never freed (default 0.02)
	Samples int     // call-stack samples on the trace's threads (0 = none)
	Locks   int     // locks, each with LockOps acquisitions (0 = none)
	LockOps int
	Seed    uint64
}

// Functions of the synthetic call stacks: SynthFunctions[i] lives in
// SynthFile at line 10+i, so per-line sample counts can be checked.
const (
	SynthFile      = "synth_deep.go"
	synthFunctions = 300
)

// SynthFunction is the name of synthetic function i.
func SynthFunction(i int) string { return fmt.Sprintf("deep.fn%03d", i) }

// AddDeep adds MemSpec's data to t (made by Make or any other trace) and
// returns it. Allocation times fall inside the trace's time span; events of
// each pool are in allocation order, as a file holds them.
func AddDeep(t *model.Trace, s MemSpec) *model.Trace {
	switch {
	case s.Pools == 0:
		s.Pools = 1
	case s.Pools < 0:
		s.Pools = 0
	}
	if s.Stacks <= 0 {
		s.Stacks = 2000
	}
	if s.Leak == 0 {
		s.Leak = 0.02
	}
	b := model.BuilderFor(t)
	r := rand.New(rand.NewPCG(s.Seed, 7))
	// Resolved frames: frame id 0x4000_0000+i is function i; its source file
	// is held in the trace's source cache.
	fnFile := b.Intern(SynthFile)
	img := b.Intern("synth-image")
	for i := 0; i < synthFunctions; i++ {
		t.Frames[uint64(0x4000_0000+i)] = model.FrameData{ImageName: img, Frames: []model.InlineFrame{{Name: b.Intern(SynthFunction(i)), File: fnFile, Line: uint32(10 + i), SymAddr: uint64(0x4000_0000 + i)}}}
	}
	src := []byte{}
	for i := 0; i < synthFunctions+20; i++ {
		src = append(src, fmt.Sprintf("// line %d\n", i+1)...)
	}
	t.SourceCache = append(t.SourceCache, model.SourceFile{Name: SynthFile, Data: src})
	// Make's zones are located in synth.go lines 100..123: hold that file
	// too, so the source view has zone counts to show.
	zsrc := []byte{}
	for i := 1; i <= 130; i++ {
		if i >= 100 && i < 124 {
			zsrc = append(zsrc, fmt.Sprintf("func zone_%02d() { work() } // zone_%02d's source location\n", i-100, i-100)...)
		} else {
			zsrc = append(zsrc, fmt.Sprintf("// line %d\n", i)...)
		}
	}
	t.SourceCache = append(t.SourceCache, model.SourceFile{Name: "synth.go", Data: zsrc})
	stack := func() uint32 {
		d := 3 + r.IntN(10)
		fr := make([]uint64, d)
		// outermost frames come from a few roots, inner ones vary more.
		for j := 0; j < d; j++ {
			depthFromRoot := d - 1 - j
			span := min(synthFunctions, 4+depthFromRoot*depthFromRoot*6)
			fr[j] = uint64(0x4000_0000 + r.IntN(span))
		}
		return b.InternCallStack(fr)
	}
	stacks := make([]uint32, s.Stacks)
	for i := range stacks {
		stacks[i] = stack()
	}
	last := max(t.Metadata.LastTime, 1_000_000)
	nThreads := max(1, len(t.ThreadIndex)-1)
	if len(t.ThreadIndex) <= 1 {
		b.LocalThread(1000)
	}
	if s.Allocs > 0 {
		pools := make([]int, s.Pools+1)
		pools[0] = b.MemPool(0)
		for p := 1; p <= s.Pools; p++ {
			key := uint64(0x7000 + p)
			b.SetPtrString(key, fmt.Sprintf("pool-%d", p))
			pools[p] = b.MemPool(key)
			t.MemPools[pools[p]].Events = make([]model.MemEvent, 0, s.Allocs/(s.Pools+1)/2)
		}
		t.MemPools[pools[0]].Events = make([]model.MemEvent, 0, s.Allocs/2+s.Allocs/10)
		step := float64(last) / float64(s.Allocs)
		ptr := uint64(0x10_0000_0000)
		for i := 0; i < s.Allocs; i++ {
			ta := int64(float64(i) * step)
			var size uint64
			switch k := r.IntN(100); {
			case k < 70:
				size = uint64(16 + r.IntN(240))
			case k < 97:
				size = uint64(256 + r.IntN(16<<10))
			default:
				size = uint64(64<<10 + r.IntN(4<<20))
			}
			tf := int64(-1)
			if r.Float64() >= s.Leak {
				var life int64
				if r.IntN(10) < 8 {
					life = 1 + int64(r.ExpFloat64()*float64(last)/1e4)
				} else {
					life = 1 + int64(r.Float64()*float64(last-ta))
				}
				tf = ta + life
				if tf > last {
					tf = last
				}
			}
			ptr += size + uint64(r.IntN(64))*16
			p := pools[0]
			if s.Pools > 0 && r.IntN(2) == 0 {
				p = pools[1+r.IntN(s.Pools)]
			}
			th := uint16(1 + r.IntN(nThreads))
			e := model.MemEvent{Ptr: ptr, Size: size, TimeAlloc: ta, TimeFree: tf, CSAlloc: stacks[zipf(r, len(stacks))], ThreadAlloc: th}
			if tf >= 0 {
				e.ThreadFree = th
			}
			pool := &t.MemPools[p]
			pool.Events = append(pool.Events, e)
			if tf < 0 {
				pool.ActiveCount++
				pool.Usage += size
			}
			pool.Low = min(pool.Low, ptr)
			pool.High = max(pool.High, ptr+size)
		}
	}
	if s.Samples > 0 && len(t.Threads) > 0 {
		if t.Metadata.SamplingPeriod == 0 {
			t.Metadata.SamplingPeriod = 100_000
		}
		step := last / int64(s.Samples)
		for i := 0; i < s.Samples; i++ {
			th := &t.Threads[i%len(t.Threads)]
			th.Samples = append(th.Samples, model.Sample{Time: int64(i) * max(step, 1), CallStack: stacks[zipf(r, len(stacks))]})
		}
	}
	for l := 0; l < s.Locks; l++ {
		id := uint32(100 + l)
		b.LockAnnounce(id, 0, model.LockLockable, 0)
		b.LockName(id, fmt.Sprintf("lock-%d", l))
		tids := []uint64{}
		for i := range t.Threads {
			tids = append(tids, t.Threads[i].ID)
		}
		if len(tids) == 0 {
			tids = []uint64{1000}
		}
		tm := int64(1000)
		step := max(last/int64(max(s.LockOps, 1)), 10)
		for k := 0; k < s.LockOps; k++ {
			a := tids[r.IntN(len(tids))]
			hold := 1 + r.Int64N(step)
			b.LockEvent(id, a, tm, model.LockWait, 0)
			b.LockEvent(id, a, tm+1, model.LockObtain, 0)
			if c := tids[r.IntN(len(tids))]; c != a && r.IntN(3) == 0 {
				// another thread waits meanwhile and gets it right after.
				b.LockEvent(id, c, tm+hold/2, model.LockWait, 0)
				b.LockEvent(id, a, tm+1+hold, model.LockRelease, 0)
				b.LockEvent(id, c, tm+1+hold, model.LockObtain, 0)
				b.LockEvent(id, c, tm+1+hold+hold/3, model.LockRelease, 0)
				tm += 2 + hold + hold/3
				k++
			} else {
				b.LockEvent(id, a, tm+1+hold, model.LockRelease, 0)
				tm += 2 + hold
			}
			tm += r.Int64N(step)
		}
	}
	return b.Finish()
}

// zipf picks 0..n-1, small values much more often (a few stacks allocate
// most, as in real programs).
func zipf(r *rand.Rand, n int) int {
	f := r.Float64()
	return min(n-1, int(float64(n)*f*f*f))
}
