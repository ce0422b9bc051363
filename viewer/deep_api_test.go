package viewer

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
)

// deepSynth is a synthetic trace with every deep view's data: zones,
// allocations in three pools, call-stack samples, two contended locks and
// source files for the zones and the sampled functions.
func deepSynth(t testing.TB) *model.Trace {
	t.Helper()
	tr := synthtrace.Make(synthtrace.Spec{Zones: 5000, Threads: 3, MaxDepth: 6, Seed: 11})
	return synthtrace.AddDeep(tr, synthtrace.MemSpec{Allocs: 4000, Pools: 2, Stacks: 200, Samples: 3000, Locks: 2, LockOps: 300, Seed: 11})
}

type memList struct {
	Total int      `json:"total"`
	Rows  []memRow `json:"rows"`
}

// TestAPIMemoryDemo: the demo's pools, counted from the model's events and
// against the fixture's documented totals (120 allocations of 75,640
// bytes, 80 in the default pool and 40 in demo_pool, all freed).
func TestAPIMemoryDemo(t *testing.T) {
	tr := loadFixture(t, "demo.tracy")
	ts := newTestServer(t, tr)
	var pools []memPoolJSON
	getJSON(t, ts, "/api/v1/memory", &pools)
	if len(pools) != len(tr.MemPools) {
		t.Fatalf("%d pools, the model has %d", len(pools), len(tr.MemPools))
	}
	var all int
	var bytes uint64
	for i, p := range pools {
		mp := &tr.MemPools[i]
		var b uint64
		leaks := 0
		for _, e := range mp.Events {
			b += e.Size
			if e.TimeFree < 0 {
				leaks++
			}
		}
		first, last := int64(1<<62), int64(-1<<62)
		for _, e := range mp.Events {
			first, last = min(first, e.TimeAlloc), max(last, e.TimeAlloc, e.TimeFree)
		}
		if p.First != first || p.Last != last {
			t.Errorf("pool %d spans %d..%d, the events %d..%d", i, p.First, p.Last, first, last)
		}
		if p.Allocations != len(mp.Events) || p.TotalBytes != b || p.Leaks != leaks {
			t.Errorf("pool %d: %+v; the model has %d events, %d bytes, %d never freed", i, p, len(mp.Events), b, leaks)
		}
		all += p.Allocations
		bytes += p.TotalBytes
		// The largest allocation comes first by size, descending.
		var big uint64
		for _, e := range mp.Events {
			big = max(big, e.Size)
		}
		var l memList
		getJSON(t, ts, fmt.Sprintf("/api/v1/memlist?pool=%d&sort=size&desc=1&limit=3", i), &l)
		if l.Total != len(mp.Events) || len(l.Rows) != 3 || l.Rows[0].Size != big {
			t.Errorf("pool %d by size: %+v, want the largest %d first of %d", i, l, big, len(mp.Events))
		}
		// Live at a moment between two allocations, counted from the events.
		e := mp.Events[len(mp.Events)/2]
		at := e.TimeAlloc
		live := 0
		for _, x := range mp.Events {
			if x.TimeAlloc <= at && (x.TimeFree < 0 || x.TimeFree > at) {
				live++
			}
		}
		getJSON(t, ts, fmt.Sprintf("/api/v1/memlist?pool=%d&filter=active&t=%d&limit=100", i, at), &l)
		if l.Total != live || len(l.Rows) != live {
			t.Errorf("pool %d live at %d: %d rows of %d, the events say %d", i, at, len(l.Rows), l.Total, live)
		}
		var tree struct {
			Count uint64                 `json:"count"`
			Bytes uint64                 `json:"bytes"`
			Nodes []analysis.MemTreeNode `json:"nodes"`
		}
		getJSON(t, ts, fmt.Sprintf("/api/v1/memtree?pool=%d&dir=bottomup", i), &tree)
		if tree.Count != uint64(len(mp.Events)) || tree.Bytes != b || len(tree.Nodes) == 0 {
			t.Errorf("pool %d tree: %d allocations %d bytes, want %d and %d", i, tree.Count, tree.Bytes, len(mp.Events), b)
		}
	}
	checkMemZones(t, ts, tr)
	if all != 120 || bytes != 75640 {
		t.Errorf("the demo made 120 allocations of 75,640 bytes (fixtures README); the API says %d of %d", all, bytes)
	}
	// The call-stack allocations (TracyAllocS, sizes 256+32t+f%4) are
	// allocated in mem_callstack_work of demo.cpp.
	var l memList
	getJSON(t, ts, "/api/v1/memlist?pool=0&sort=size&desc=1&limit=1", &l)
	if l.Rows[0].CallStack == 0 || l.Rows[0].TopFunction != "mem_callstack_work" {
		t.Errorf("largest default-pool allocation: %+v, want one with a call stack from mem_callstack_work", l.Rows[0])
	}
}

// bruteLocks counts a lock straight from its events: acquisitions, wait
// (Wait to Obtain), held (Obtain to Release) and contended (the held time
// during which another thread of the lock was waiting), by interval
// arithmetic, not by the lock-lane state machine.
func bruteLocks(l *model.Lock, last int64) (acq int, wait, held, contended int64) {
	type iv struct{ a, b int64 }
	n := len(l.Threads)
	waits := make([][]iv, n)
	holds := make([][]iv, n)
	ws := make([]int64, n)
	hs := make([]int64, n)
	for i := range ws {
		ws[i], hs[i] = -1, -1
	}
	for _, e := range l.Events {
		k := e.Thread
		switch e.Type {
		case model.LockWait, model.LockWaitShared:
			ws[k] = e.Time
		case model.LockObtain, model.LockObtainShared:
			acq++
			if ws[k] >= 0 {
				waits[k] = append(waits[k], iv{ws[k], e.Time})
				ws[k] = -1
			}
			hs[k] = e.Time
		case model.LockRelease, model.LockReleaseShared:
			if hs[k] >= 0 {
				holds[k] = append(holds[k], iv{hs[k], e.Time})
				hs[k] = -1
			}
		}
	}
	for k := range hs {
		if hs[k] >= 0 {
			holds[k] = append(holds[k], iv{hs[k], last})
		}
	}
	for k := range waits {
		for _, w := range waits[k] {
			wait += w.b - w.a
		}
		for _, h := range holds[k] {
			held += h.b - h.a
			var others []iv
			for j := range waits {
				if j == k {
					continue
				}
				for _, w := range waits[j] {
					a, b := max(w.a, h.a), min(w.b, h.b)
					if a < b {
						others = append(others, iv{a, b})
					}
				}
			}
			slices.SortFunc(others, func(x, y iv) int { return int(x.a - y.a) })
			end := int64(-1 << 62)
			for _, o := range others {
				if o.a > end {
					contended += o.b - o.a
					end = o.b
				} else if o.b > end {
					contended += o.b - end
					end = o.b
				}
			}
		}
	}
	return
}

func TestAPILockStatsAgainstEvents(t *testing.T) {
	check := func(t *testing.T, tr *model.Trace) {
		ts := newTestServer(t, tr)
		var st []lockStat
		getJSON(t, ts, "/api/v1/lockstats", &st)
		if len(st) != len(tr.Locks) {
			t.Fatalf("%d locks, the model has %d", len(st), len(tr.Locks))
		}
		for i, s := range st {
			acq, wait, held, cont := bruteLocks(&tr.Locks[i], tr.Metadata.LastTime)
			if s.Acquisitions != acq || s.WaitNs != wait || s.HeldNs != held || s.ContendedNs != cont {
				t.Errorf("lock %d: acquisitions %d wait %d held %d contended %d; the events say %d, %d, %d, %d",
					i, s.Acquisitions, s.WaitNs, s.HeldNs, s.ContendedNs, acq, wait, held, cont)
			}
			var sum int
			for _, th := range s.Threads {
				sum += th.Acquisitions
			}
			if sum != acq {
				t.Errorf("lock %d: threads' acquisitions add up to %d, want %d", i, sum, acq)
			}
			for j := 1; j < len(s.Worst); j++ {
				if s.Worst[j].Duration > s.Worst[j-1].Duration {
					t.Errorf("lock %d: worst waits not longest first", i)
				}
			}
			if len(s.Worst) > 0 && s.Worst[0].Duration != s.MaxWaitNs {
				t.Errorf("lock %d: longest wait %d, first of the worst %d", i, s.MaxWaitNs, s.Worst[0].Duration)
			}
		}
	}
	t.Run("synthetic", func(t *testing.T) {
		tr := deepSynth(t)
		check(t, tr)
		ts := newTestServer(t, tr)
		var st []lockStat
		getJSON(t, ts, "/api/v1/lockstats", &st)
		for _, s := range st {
			if s.ContendedNs == 0 || s.Contended <= 0 || s.Contended >= 1 {
				t.Errorf("synthetic lock %d: contended %d ns (%.3f); the generator makes threads wait on each other", s.Lock, s.ContendedNs, s.Contended)
			}
		}
	})
	t.Run("small", func(t *testing.T) { check(t, smallTrace(t)) })
	t.Run("shared", func(t *testing.T) {
		// A and B hold it shared, C waits for it exclusively.
		bl := model.NewBuilder()
		for _, tid := range []uint64{1, 2, 3} {
			bl.Thread(tid)
		}
		bl.LockAnnounce(7, 0, model.LockSharedLockable, 0)
		for _, e := range []struct {
			tid uint64
			t   int64
			typ uint8
		}{
			{1, 100, model.LockWaitShared}, {1, 110, model.LockObtainShared}, {2, 120, model.LockWaitShared}, {2, 125, model.LockObtainShared},
			{3, 130, model.LockWait}, {1, 200, model.LockReleaseShared}, {2, 260, model.LockReleaseShared}, {3, 260, model.LockObtain}, {3, 300, model.LockRelease},
		} {
			bl.LockEvent(7, e.tid, e.t, e.typ, 0)
		}
		bl.Observe(400)
		tr := bl.Finish()
		check(t, tr)
		var st []lockStat
		getJSON(t, newTestServer(t, tr), "/api/v1/lockstats", &st)
		// held 90+135+40, waited 10+5+130, contended A 5+70 and B 130.
		if len(st) != 1 || !st[0].Shared || st[0].Acquisitions != 3 || st[0].HeldNs != 265 || st[0].WaitNs != 145 || st[0].ContendedNs != 205 || st[0].MaxWaitNs != 130 {
			t.Errorf("shared lock: %+v", st)
		}
	})
	t.Run("demo", func(t *testing.T) {
		tr := loadFixture(t, "demo.tracy")
		check(t, tr)
		// The fixture's README: 200 lock acquisitions, two workers.
		ts := newTestServer(t, tr)
		var st []lockStat
		getJSON(t, ts, "/api/v1/lockstats", &st)
		if len(st) != 1 || st[0].Acquisitions != 200 || len(st[0].Threads) != 2 {
			t.Errorf("demo lock: %+v, want one lock of 200 acquisitions by 2 threads", st)
		}
	})
}

type flameAnswer struct {
	Total int64           `json:"total"`
	Count uint64          `json:"count"`
	Path  []flamePathJSON `json:"path"`
	Nodes []flameNodeJSON `json:"nodes"`
}

// bruteFlame sums zone time per call path (names joined by ">") inside
// [t0, t1] by walking each thread's zones with model.Walk.
func bruteFlame(tr *model.Trace, t0, t1 int64) (map[string]int64, map[string]uint64) {
	tot, cnt := map[string]int64{}, map[string]uint64{}
	for ti := range tr.Threads {
		zl := &tr.Threads[ti].Zones
		var path []string
		model.Walk(zl, func(i, depth int) bool {
			z := zl.At(i)
			sl, _ := tr.SrcLoc(z.SrcLoc)
			path = append(path[:depth], tr.SrcLocName(sl))
			e := z.End()
			if e < 0 {
				e = tr.Metadata.LastTime
			}
			s := z.Start()
			if e < t0 || s > t1 || (e == t0 && s < e) || (s == t1 && s < e) {
				return true
			}
			k := fmt.Sprint(path)
			tot[k] += min(e, t1) - max(s, t0)
			cnt[k]++
			return true
		})
	}
	return tot, cnt
}

func flamePaths(a *flameAnswer) (map[string]int64, map[string]uint64) {
	byID := map[int32]*flameNodeJSON{}
	tot, cnt := map[string]int64{}, map[string]uint64{}
	for i := range a.Nodes {
		n := &a.Nodes[i]
		byID[n.ID] = n
		var names []string
		for p := n; ; p = byID[p.Parent] {
			names = append([]string{p.Name}, names...)
			if p.Parent < 0 {
				break
			}
		}
		k := fmt.Sprint(names)
		tot[k] += n.Total
		cnt[k] += n.Count
	}
	return tot, cnt
}

func TestAPIFlameZonesAgainstWalk(t *testing.T) {
	for _, c := range []struct {
		name string
		tr   func(testing.TB) *model.Trace
	}{{"demo", func(t testing.TB) *model.Trace { return loadFixture(t, "demo.tracy") }}, {"synthetic", deepSynth}, {"small", smallTrace}} {
		t.Run(c.name, func(t *testing.T) {
			tr := c.tr(t)
			ts := newTestServer(t, tr)
			last := tr.Metadata.LastTime
			for _, r := range [][2]int64{{-1, -1}, {last / 3, last / 2}, {last / 2, last/2 + last/50}} {
				q := "/api/v1/flame?minfrac=0"
				t0, t1 := int64(-1<<62), int64(1<<62)
				if r[0] >= 0 {
					t0, t1 = r[0], r[1]
					q += fmt.Sprintf("&t0=%d&t1=%d", t0, t1)
				}
				var a flameAnswer
				getJSON(t, ts, q, &a)
				wt, wc := bruteFlame(tr, t0, t1)
				gt, gc := flamePaths(&a)
				if len(gt) != len(wt) {
					t.Errorf("%s: %d call paths, the walk finds %d", q, len(gt), len(wt))
				}
				for k, v := range wt {
					if gt[k] != v || gc[k] != wc[k] {
						t.Errorf("%s: path %s: %d ns in %d zones, the walk says %d ns in %d", q, k, gt[k], gc[k], v, wc[k])
					}
				}
			}
			if c.name == "demo" {
				// 700 zones; worker_frame > locked_section 200 times.
				var a flameAnswer
				getJSON(t, ts, "/api/v1/flame?minfrac=0", &a)
				_, cnt := flamePaths(&a)
				var all uint64
				for _, n := range a.Nodes {
					all += n.Count
				}
				if all != 700 || a.Count != 700 || cnt["[worker_frame locked_section]"] != 200 {
					t.Errorf("demo flame: %d zones, %d locked_section under worker_frame; want 700 and 200", all, cnt["[worker_frame locked_section]"])
				}
				// Zoom into worker_frame: the answer is its subtree, the path empty.
				var wf int32 = -1
				for _, n := range a.Nodes {
					if n.Name == "worker_frame" && n.Parent < 0 {
						wf = n.ID
					}
				}
				var z flameAnswer
				getJSON(t, ts, fmt.Sprintf("/api/v1/flame?root=%d&minfrac=0", wf), &z)
				if len(z.Nodes) == 0 || z.Nodes[0].ID != wf || z.Nodes[0].Count != 40 {
					t.Errorf("zoomed into worker_frame: %+v", z.Nodes)
				}
				for _, n := range z.Nodes[1:] {
					if n.Depth == 0 {
						t.Errorf("zoomed graph holds another root %s", n.Name)
					}
				}
				var zz flameAnswer
				getJSON(t, ts, fmt.Sprintf("/api/v1/flame?root=%d&minfrac=0", z.Nodes[1].ID), &zz)
				if len(zz.Path) != 1 || zz.Path[0].Name != "worker_frame" {
					t.Errorf("breadcrumb of a child of worker_frame: %+v", zz.Path)
				}
			}
		})
	}
}

// innermost is the function and line of a sample's innermost frame,
// straight from the model.
func innermost(tr *model.Trace, cs uint32) (string, string, uint32) {
	fr := tr.CallStack(cs)
	if len(fr) == 0 {
		return "", "", 0
	}
	fd := tr.Frames[fr[0]]
	in := fd.Frames[0]
	return tr.Str(in.Name), tr.Str(in.File), in.Line
}

func TestAPIFlameSamplesAndSource(t *testing.T) {
	tr := deepSynth(t)
	ts := newTestServer(t, tr)
	var a flameAnswer
	getJSON(t, ts, "/api/v1/flame?kind=samples&minfrac=0", &a)
	var n int
	self := map[string]uint64{}
	lines := map[uint32]uint64{}
	for ti := range tr.Threads {
		for _, s := range tr.Threads[ti].Samples {
			n++
			name, _, line := innermost(tr, s.CallStack)
			self[name]++
			lines[line]++
		}
	}
	if a.Count != uint64(n) || a.Total != int64(n)*tr.Metadata.SamplingPeriod {
		t.Errorf("samples flame: %d samples %d ns, the threads hold %d", a.Count, a.Total, n)
	}
	// Self samples of a function: the samples where it is innermost.
	gotSelf := map[string]uint64{}
	for _, nd := range a.Nodes {
		per := tr.Metadata.SamplingPeriod
		gotSelf[nd.Name] += uint64(nd.Self / per)
	}
	for k, v := range self {
		if gotSelf[k] != v {
			t.Errorf("function %s: %d self samples, the model says %d", k, gotSelf[k], v)
		}
	}
	var src struct {
		Samples uint64        `json:"samples"`
		Zones   uint64        `json:"zones"`
		PerLine []srcLineJSON `json:"per_line"`
	}
	getJSON(t, ts, "/api/v1/sourcestats?file="+url.QueryEscape(synthtrace.SynthFile), &src)
	if src.Samples != uint64(n) {
		t.Errorf("%s: %d samples, want %d", synthtrace.SynthFile, src.Samples, n)
	}
	for _, l := range src.PerLine {
		if l.Samples != lines[l.Line] {
			t.Errorf("%s:%d: %d samples, the model says %d", synthtrace.SynthFile, l.Line, l.Samples, lines[l.Line])
		}
		delete(lines, l.Line)
	}
	for l, c := range lines {
		if c > 0 {
			t.Errorf("%s:%d: %d samples missing from the answer", synthtrace.SynthFile, l, c)
		}
	}
	// Zones per line of synth.go, counted from the zones.
	zl := map[uint32]uint64{}
	zns := map[uint32]int64{}
	for ti := range tr.Threads {
		for _, z := range tr.Threads[ti].Zones.All() {
			sl, _ := tr.SrcLoc(z.SrcLoc)
			zl[sl.Line]++
			if d := z.Duration(); d > 0 {
				zns[sl.Line] += d
			}
		}
	}
	getJSON(t, ts, "/api/v1/sourcestats?file=synth.go", &src)
	var all uint64
	for _, l := range src.PerLine {
		if l.Zones != zl[l.Line] || l.ZoneNs != zns[l.Line] {
			t.Errorf("synth.go:%d: %d zones %d ns, the zones say %d and %d", l.Line, l.Zones, l.ZoneNs, zl[l.Line], zns[l.Line])
		}
		all += l.Zones
	}
	if all != uint64(tr.ZoneCount()) {
		t.Errorf("synth.go: %d zones over its lines, the trace has %d", all, tr.ZoneCount())
	}
	// A trace without samples says so.
	code, _, _ := get(t, newTestServer(t, smallTrace(t)), "/api/v1/flame?kind=samples")
	if code != 404 {
		t.Errorf("samples flame of a trace without samples: status %d, want 404", code)
	}
}

func TestAPIMemoryZonesSynthetic(t *testing.T) {
	tr := deepSynth(t)
	checkMemZones(t, newTestServer(t, tr), tr)
}

func TestAPIDeepBadParameters(t *testing.T) {
	ts := newTestServer(t, deepSynth(t))
	for _, q := range []string{
		"memlist?filter=alive", "memlist?filter=active", "memlist?filter=range&t0=5", "memlist?filter=range&t0=9&t1=3", "memtree?filter=range", "memlist?pool=9", "memlist?limit=0", "memlist?limit=5000", "memlist?sort=weight",
		"memtree?dir=sideways", "memtree?max=0", "memory?t=x", "flame?kind=cpu", "flame?t0=10&t1=5", "flame?root=99999999", "flame?thread=77",
		"flame?minfrac=2", "sourcestats", "sourcestats?file=/etc/passwd", "lockstats?x=1", "memlist?offset=-1",
	} {
		code, _, b := get(t, ts, "/api/v1/"+q)
		if code != 400 && code != 404 {
			t.Errorf("%s: status %d (%s), want 400 or 404", q, code, b)
		}
	}
}

// TestDeepCachesDrop: dropping the deep caches makes the next request
// build fresh indexes, and answers stay the same.
func TestDeepCachesDrop(t *testing.T) {
	s, err := New(deepSynth(t))
	if err != nil {
		t.Fatal(err)
	}
	a := s.memIndex()
	f := s.flame(flameKey{t0: -1 << 62, t1: 1 << 62, thread: -1})
	if s.memIndex() != a {
		t.Fatal("the memory index was rebuilt without a drop")
	}
	s.dropDeepCaches()
	b := s.memIndex()
	if b == a {
		t.Fatal("the memory index survived dropDeepCaches")
	}
	if a.Pools[0].UsageAt(1<<40) != b.Pools[0].UsageAt(1<<40) {
		t.Error("a rebuilt index answers differently")
	}
	g := s.flame(flameKey{t0: -1 << 62, t1: 1 << 62, thread: -1})
	if g == f || g.Total != f.Total || len(g.Nodes) != len(f.Nodes) {
		t.Errorf("flame after drop: same pointer %v, totals %d vs %d", g == f, g.Total, f.Total)
	}
}

// checkMemZones: each listed allocation's zone is the deepest zone of the
// allocating thread running at that moment, found by walking every zone.
func checkMemZones(t *testing.T, ts *httptest.Server, tr *model.Trace) {
	t.Helper()
	for i := range tr.MemPools {
		var l memList
		getJSON(t, ts, fmt.Sprintf("/api/v1/memlist?pool=%d&limit=1000", i), &l)
		named := 0
		for _, r := range l.Rows {
			th := -1
			for k := range tr.Threads {
				if tr.Threads[k].ID == r.Thread {
					th = k
				}
			}
			want, wantDepth := -1, -1
			if th >= 0 {
				zl := &tr.Threads[th].Zones
				model.Walk(zl, func(j, depth int) bool {
					z := zl.At(j)
					e := z.End()
					if e < 0 {
						e = tr.Metadata.LastTime
					}
					if z.Start() <= r.Alloc && r.Alloc <= e && depth > wantDepth {
						want, wantDepth = j, depth
					}
					return true
				})
			}
			switch {
			case want < 0 && r.Zone != nil:
				t.Errorf("pool %d allocation %d: zone %+v, no zone runs then", i, r.Index, r.Zone)
			case want >= 0 && (r.Zone == nil || r.Zone.Thread != th || int(r.Zone.Index) != want):
				t.Errorf("pool %d allocation %d: zone %+v, the walk finds %d:%d", i, r.Index, r.Zone, th, want)
			case want >= 0:
				named++
			}
		}
		if named == 0 {
			t.Errorf("pool %d: no allocation inside a zone; every test trace allocates inside zones", i)
		}
	}
}

// PrepareMemory (what `gotracy view` runs before it prints the address)
// leaves the memory index built, and a request answers from it; a trace
// without memory events gets none.
func TestPrepareMemory(t *testing.T) {
	s, err := New(deepSynth(t))
	if err != nil {
		t.Fatal(err)
	}
	s.PrepareMemory()
	d := s.deep.Load()
	if d == nil || d.mem == nil {
		t.Fatal("PrepareMemory left no memory index")
	}
	if s.MemoryEvents() != 4000 {
		t.Fatalf("MemoryEvents %d, want 4000", s.MemoryEvents())
	}
	r := httptest.NewRequest("GET", "/api/v1/memlist?sort=size&desc=1", nil)
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("memlist: %d %s", w.Code, w.Body.String())
	}
	if s.deep.Load() != d {
		t.Fatal("the request built its own index")
	}
	plain, err := New(synthtrace.Make(synthtrace.Spec{Zones: 100, Threads: 1, MaxDepth: 2, Seed: 1}))
	if err != nil {
		t.Fatal(err)
	}
	plain.PrepareMemory()
	if d := plain.deep.Load(); d != nil && d.mem != nil {
		t.Fatal("a trace without memory events got a memory index")
	}
}
