package analysis

import (
	"math"
	"slices"

	"github.com/gotracy/gotracy/model"
)

// FlameNode is one call path of a flame graph: zones of one source
// location under the same chain of parents (zone flame graphs), or one
// function under the same chain of callers (sample flame graphs).
type FlameNode struct {
	Name   string `json:"name"`
	SrcLoc int16  `json:"srcloc"` // zone graphs: the source location; sample graphs: 0
	File   string `json:"file,omitempty"`
	Line   uint32 `json:"line,omitempty"`
	Parent int32  `json:"parent"` // -1 for a root
	Depth  int    `json:"depth"`
	Count  uint64 `json:"count"` // zones (or samples) on this path
	Total  int64  `json:"total"` // ns inside the range (samples: count × sampling period)
	Self   int64  `json:"self"`  // Total minus the children's
	Next   int32  `json:"next"`  // index just past this node's subtree
}

// Flame is a flame graph in pre-order, children widest first.
type Flame struct {
	Nodes []FlameNode
	Total int64  // sum of the roots' totals
	Count uint64 // zones (at every depth) or samples aggregated
}

// ZoneFlame aggregates the zones of thread th (-1: all threads) that
// overlap [t0, t1] by call path (their nesting), each zone counting only
// its time inside the range. A zone that never ended runs to its parent's
// end (a root: the trace's end). Subtrees outside the range are skipped
// whole.
func ZoneFlame(t *model.Trace, t0, t1 int64, th int) *Flame {
	return ZoneFlameFrom(t, t0, t1, th, nil)
}

// Ancestors returns the chain of zone i's ancestors in thread th, outermost
// first (the viewer answers it from its level-of-detail index).
type Ancestors func(th int, i int) []int

// ZoneFlameFrom is ZoneFlame that, given anc, starts each thread's walk at
// the range instead of at its first zone: zones are in pre-order, so their
// starts never decrease and the first zone starting in the range is a
// binary search away; the zones before it that still overlap the range are
// that zone's predecessor and its ancestors. A narrow range of a 10M-zone
// thread then costs what the range holds.
func ZoneFlameFrom(t *model.Trace, t0, t1 int64, th int, anc Ancestors) *Flame {
	type stackEnt struct {
		next int
		node int32
		end  int64
	}
	b := newFlameBuilder()
	last := t.Metadata.LastTime
	st := model.NewSrcLocTable(t)
	var stack []stackEnt
	var zones uint64
	var zl *model.ZoneList
	// visit adds zone i (if it overlaps the range) under the open stack and
	// returns the index to go on from.
	visit := func(i int) int {
		for len(stack) > 0 && i >= stack[len(stack)-1].next {
			stack = stack[:len(stack)-1]
		}
		z := zl.At(i)
		next := max(zl.NextOf(z), i+1)
		s, e := z.Start(), z.End()
		if e < 0 {
			e = last
			if len(stack) > 0 {
				e = stack[len(stack)-1].end
			}
		}
		if s > t1 {
			// Starts never decrease in pre-order: nothing after this
			// zone is in the range either.
			return math.MaxInt
		}
		if e < t0 || (e == t0 && s < e) || (s == t1 && s < e) {
			return next
		}
		d := min(e, t1) - max(s, t0)
		parent := int32(-1)
		if len(stack) > 0 {
			parent = stack[len(stack)-1].node
		}
		id := b.child(parent, uint64(uint16(z.SrcLoc)), func() FlameNode {
			sl, _ := st.Get(z.SrcLoc)
			return FlameNode{Name: t.SrcLocName(sl), SrcLoc: z.SrcLoc, File: t.RefString(sl.File), Line: sl.Line}
		})
		nd := &b.nodes[id]
		nd.Count++
		zones++
		nd.Total += d
		nd.Self += d
		if parent >= 0 {
			b.nodes[parent].Self -= d
		}
		if next > i+1 {
			stack = append(stack, stackEnt{next, id, e})
		}
		return i + 1
	}
	for ti := range t.Threads {
		if th >= 0 && ti != th {
			continue
		}
		zl = &t.Threads[ti].Zones
		n := zl.Len()
		stack = stack[:0]
		i := 0
		if anc != nil && n > 0 && zl.At(0).Start() < t0 {
			// j: the first zone starting at or after t0.
			lo, hi := 0, n
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if zl.At(m).Start() < t0 {
					lo = m + 1
				} else {
					hi = m
				}
			}
			j := lo
			if j > 0 {
				chain := append(anc(ti, j-1), j-1)
				for _, c := range chain {
					if c < 0 || c >= n {
						chain = nil // a bad answer: walk from the start
						break
					}
				}
				if chain != nil {
					// The chain is nested; once one is outside the range so
					// is the rest, and its subtree is skipped as the walk
					// would.
					i = j
					for _, c := range chain {
						if nx := visit(c); nx != c+1 {
							i = max(j, nx)
							break
						}
					}
				}
			}
		}
		for i < n {
			i = visit(i)
		}
	}
	f := b.finish()
	f.Count = zones
	return f
}

// SampleFlame aggregates the call-stack samples of thread th (-1: all) in
// [t0, t1] by call path, outermost caller at the root, inline frames
// expanded. Total is samples × the trace's sampling period.
func SampleFlame(t *model.Trace, t0, t1 int64, th int) *Flame {
	per := map[uint32]uint64{}
	for ti := range t.Threads {
		if th >= 0 && ti != th {
			continue
		}
		ss := t.Threads[ti].Samples
		i, _ := slices.BinarySearchFunc(ss, t0, func(s model.Sample, t0 int64) int { return cmpI64(s.Time, t0) })
		for ; i < len(ss) && ss[i].Time <= t1; i++ {
			per[ss[i].CallStack]++
		}
	}
	period := max(t.Metadata.SamplingPeriod, 1)
	stacks := make([]uint32, 0, len(per))
	for cs := range per {
		stacks = append(stacks, cs)
	}
	slices.Sort(stacks)
	b := newFlameBuilder()
	names := map[string]uint64{}
	var buf []stackFrameInfo
	for _, cs := range stacks {
		c := per[cs]
		d := int64(c) * period
		buf = expandStack(t, cs, buf)
		parent := int32(-1)
		for j := len(buf) - 1; j >= 0; j-- {
			f := buf[j]
			k, ok := names[f.name]
			if !ok {
				k = uint64(len(names))
				names[f.name] = k
			}
			id := b.child(parent, k, func() FlameNode { return FlameNode{Name: f.name, File: f.file, Line: f.line} })
			b.nodes[id].Count += c
			b.nodes[id].Total += d
			b.nodes[id].Self += d
			if parent >= 0 {
				b.nodes[parent].Self -= d
			}
			parent = id
		}
	}
	return b.finish()
}

type flameBuilder struct {
	nodes []FlameNode
	keys  []uint64
	kids  [][]int32
	ids   map[[2]uint64]int32 // for parents with many children
	roots []int32
}

// flameScan is how many children of a node are searched linearly before
// the map: most zones have a handful of distinct child locations, and a
// scan of a few beats hashing by several times (10 M zones: 112 ns a zone
// with the map alone).
const flameScan = 12

func newFlameBuilder() *flameBuilder { return &flameBuilder{ids: map[[2]uint64]int32{}} }

func (b *flameBuilder) child(parent int32, key uint64, mk func() FlameNode) int32 {
	list := b.roots
	if parent >= 0 {
		list = b.kids[parent]
	}
	k := [2]uint64{uint64(parent + 1), key}
	if len(list) <= flameScan {
		for _, id := range list {
			if b.keys[id] == key {
				return id
			}
		}
	} else if id, ok := b.ids[k]; ok {
		return id
	}
	nd := mk()
	nd.Parent = parent
	id := int32(len(b.nodes))
	if parent >= 0 {
		nd.Depth = b.nodes[parent].Depth + 1
		b.kids[parent] = append(b.kids[parent], id)
	} else {
		b.roots = append(b.roots, id)
	}
	b.nodes = append(b.nodes, nd)
	b.keys = append(b.keys, key)
	b.kids = append(b.kids, nil)
	b.ids[k] = id
	return id
}

// finish orders the nodes in pre-order, widest first.
func (b *flameBuilder) finish() *Flame {
	f := &Flame{Nodes: make([]FlameNode, 0, len(b.nodes))}
	wider := func(x, y int32) int {
		if b.nodes[x].Total != b.nodes[y].Total {
			if b.nodes[x].Total > b.nodes[y].Total {
				return -1
			}
			return 1
		}
		return cmpStr(b.nodes[x].Name, b.nodes[y].Name)
	}
	var emit func(id, parent int32)
	emit = func(id, parent int32) {
		me := int32(len(f.Nodes))
		nd := b.nodes[id]
		nd.Parent = parent
		nd.Self = max(nd.Self, 0)
		f.Nodes = append(f.Nodes, nd)
		kids := b.kids[id]
		slices.SortFunc(kids, wider)
		for _, k := range kids {
			emit(k, me)
		}
		f.Nodes[me].Next = int32(len(f.Nodes))
	}
	slices.SortFunc(b.roots, wider)
	for _, r := range b.roots {
		emit(r, -1)
		f.Total += b.nodes[r].Total
		f.Count += b.nodes[r].Count
	}
	return f
}

// View returns the positions of the subtree of node root (-1: the whole graph) without the
// nodes narrower than minFrac of it, so the answer stays a screenful
// however deep the graph, and the chain of root's ancestors (outermost
// first) for a breadcrumb.
func (f *Flame) View(root int32, minFrac float64) (ids []int32, path []int32, total int64) {
	from, to := int32(0), int32(len(f.Nodes))
	total = f.Total
	if root >= 0 {
		from, to = root, f.Nodes[root].Next
		total = f.Nodes[root].Total
		for p := f.Nodes[root].Parent; p >= 0; p = f.Nodes[p].Parent {
			path = append(path, p)
		}
		slices.Reverse(path)
	}
	limit := int64(math.Ceil(float64(total) * minFrac))
	for i := from; i < to; {
		if f.Nodes[i].Total < limit {
			i = f.Nodes[i].Next
			continue
		}
		ids = append(ids, i)
		i++
	}
	return ids, path, total
}
