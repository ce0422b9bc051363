package analysis

import (
	"slices"
	"strconv"

	"github.com/gotracy/gotracy/model"
)

// MemTreeNode is one function of a call-stack tree: the allocations whose
// stack passes through this path (inclusive) and those whose stack ends
// here (self).
type MemTreeNode struct {
	Name      string `json:"name"`
	File      string `json:"file,omitempty"`
	Line      uint32 `json:"line,omitempty"`
	Depth     int    `json:"depth"`
	Parent    int32  `json:"parent"` // -1 for a root
	Count     uint64 `json:"count"`
	Bytes     uint64 `json:"bytes"`
	SelfCount uint64 `json:"self_count"`
	SelfBytes uint64 `json:"self_bytes"`
}

// MemTree is a call-stack tree in pre-order, children heaviest (by bytes)
// first, the roots likewise.
type MemTree struct {
	Nodes []MemTreeNode
	Count uint64 // allocations covered
	Bytes uint64
}

type treeKey struct {
	sel      MemSelect
	bottomUp bool
}

// stackSums are per dense stack sums of allocations minus frees.
func (x *MemPoolIndex) allocSums(upto int) (n, b []uint64) {
	cp := upto / x.cpEvery
	n, b = slices.Clone(x.cpAllocN[cp]), slices.Clone(x.cpAllocB[cp])
	for i := cp * x.cpEvery; i < upto; i++ {
		n[x.dense[i]]++
		b[x.dense[i]] += x.Events[i].Size
	}
	return n, b
}

func (x *MemPoolIndex) subFreeSums(upto int, n, b []uint64) {
	cp := upto / x.cpEvery
	fn, fb := x.cpFreeN[cp], x.cpFreeB[cp]
	for d := range n {
		n[d] -= fn[d]
		b[d] -= fb[d]
	}
	for k := cp * x.cpEvery; k < upto; k++ {
		i := x.freeIdx[k]
		n[x.dense[i]]--
		b[x.dense[i]] -= x.Events[i].Size
	}
}

// StackSums is, per allocation call stack, the number and bytes of the
// allocations the filter selects: a checkpoint plus at most K events of
// each order, so its cost does not grow with the trace.
func (x *MemPoolIndex) StackSums(sel MemSelect) (stacks []uint32, n, b []uint64) {
	t := sel.Time
	switch sel.Filter {
	case MemRange:
		lo, hi := x.rangeIdx(sel.Time, sel.End)
		n, b = x.allocSums(hi)
		ln, lb := x.allocSums(lo)
		for d := range n {
			n[d] -= ln[d]
			b[d] -= lb[d]
		}
	case MemAll:
		n, b = x.allocSums(x.n)
	case MemLeaks:
		n, b = x.allocSums(x.n)
		x.subFreeSums(len(x.freeIdx), n, b)
	default:
		n, b = x.allocSums(x.allocsUpTo(t))
		x.subFreeSums(x.freesUpTo(t), n, b)
	}
	return x.stacks, n, b
}

// Tree is the call-stack tree of the allocations the filter selects,
// top-down (roots are outermost callers) or bottom-up (roots are the
// allocating functions). Trees of all allocations and of leaks are cached;
// the others cost a checkpoint plus at most K events per order.
func (mi *MemIndex) Tree(x *MemPoolIndex, sel MemSelect, bottomUp bool) *MemTree {
	key := treeKey{sel, bottomUp}
	cache := sel.Filter == MemAll || sel.Filter == MemLeaks
	if cache {
		key.sel.Time, key.sel.End = 0, 0
		x.treeMu.Lock()
		tr := x.treeCache[key]
		x.treeMu.Unlock()
		if tr != nil {
			return tr
		}
	}
	stacks, n, b := x.StackSums(sel)
	tr := buildStackTree(mi.t, stacks, n, b, bottomUp)
	if cache {
		x.treeMu.Lock()
		x.treeCache[key] = tr
		x.treeMu.Unlock()
	}
	return tr
}

// stackFrameInfo is one function of a call stack, innermost first.
type stackFrameInfo struct {
	name, file string
	line       uint32
}

// expandStack lists a call stack's functions innermost first, inline
// frames expanded (their order inside a frame is innermost first, as the
// file stores it); an unresolved frame is its address.
func expandStack(t *model.Trace, cs uint32, buf []stackFrameInfo) []stackFrameInfo {
	buf = buf[:0]
	if cs == 0 {
		return append(buf, stackFrameInfo{name: "[no call stack]"})
	}
	for _, id := range t.CallStack(cs) {
		fd, ok := t.Frames[id]
		if !ok || len(fd.Frames) == 0 {
			buf = append(buf, stackFrameInfo{name: "0x" + strconv.FormatUint(id, 16)})
			continue
		}
		for _, in := range fd.Frames {
			name := t.Str(in.Name)
			if name == "" {
				name = "0x" + strconv.FormatUint(in.SymAddr, 16)
			}
			buf = append(buf, stackFrameInfo{name: name, file: t.Str(in.File), line: in.Line})
		}
	}
	return buf
}

// buildStackTree merges per-stack sums into a tree keyed by function name
// along the path, as Tracy's call-stack trees group frames by function.
func buildStackTree(t *model.Trace, stacks []uint32, n, b []uint64, bottomUp bool) *MemTree {
	type key struct {
		parent int32
		name   string
	}
	type node struct {
		MemTreeNode
		kids []int32
	}
	var nodes []node
	ids := map[key]int32{}
	var roots []int32
	tr := &MemTree{}
	var buf []stackFrameInfo
	for d, cs := range stacks {
		if n[d] == 0 {
			continue
		}
		tr.Count += n[d]
		tr.Bytes += b[d]
		buf = expandStack(t, cs, buf)
		parent := int32(-1)
		for j := range buf {
			f := buf[j]
			if !bottomUp {
				f = buf[len(buf)-1-j]
			}
			k := key{parent, f.name}
			id, ok := ids[k]
			if !ok {
				id = int32(len(nodes))
				ids[k] = id
				nodes = append(nodes, node{MemTreeNode: MemTreeNode{Name: f.name, File: f.file, Line: f.line, Depth: j, Parent: parent}})
				if parent < 0 {
					roots = append(roots, id)
				} else {
					nodes[parent].kids = append(nodes[parent].kids, id)
				}
			}
			nodes[id].Count += n[d]
			nodes[id].Bytes += b[d]
			parent = id
		}
		nodes[parent].SelfCount += n[d]
		nodes[parent].SelfBytes += b[d]
	}
	heavier := func(a, c int32) int {
		if nodes[a].Bytes != nodes[c].Bytes {
			if nodes[a].Bytes > nodes[c].Bytes {
				return -1
			}
			return 1
		}
		if nodes[a].Count != nodes[c].Count {
			if nodes[a].Count > nodes[c].Count {
				return -1
			}
			return 1
		}
		return cmpStr(nodes[a].Name, nodes[c].Name)
	}
	tr.Nodes = make([]MemTreeNode, 0, len(nodes))
	var emit func(id, parent int32)
	emit = func(id, parent int32) {
		me := int32(len(tr.Nodes))
		nd := nodes[id].MemTreeNode
		nd.Parent = parent
		tr.Nodes = append(tr.Nodes, nd)
		kids := nodes[id].kids
		slices.SortFunc(kids, heavier)
		for _, k := range kids {
			emit(k, me)
		}
	}
	slices.SortFunc(roots, heavier)
	for _, r := range roots {
		emit(r, -1)
	}
	return tr
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Pruned returns the tree with at most maxNodes nodes: the heaviest
// subtrees first (a node is kept only if its parent is), so what the page
// receives stays bounded whatever the trace holds.
func (tr *MemTree) Pruned(maxNodes int) []MemTreeNode {
	if len(tr.Nodes) <= maxNodes {
		return tr.Nodes
	}
	// Keep nodes in order of bytes, but only with their ancestors: a
	// threshold found by sorting the byte values.
	vals := make([]uint64, len(tr.Nodes))
	for i := range tr.Nodes {
		vals[i] = tr.Nodes[i].Bytes
	}
	slices.Sort(vals)
	thr := vals[len(vals)-maxNodes]
	remap := make([]int32, len(tr.Nodes))
	out := make([]MemTreeNode, 0, maxNodes)
	for i := range tr.Nodes {
		nd := tr.Nodes[i]
		remap[i] = -1
		if nd.Bytes < thr || len(out) >= maxNodes || (nd.Parent >= 0 && remap[nd.Parent] < 0) {
			continue
		}
		if nd.Parent >= 0 {
			nd.Parent = remap[nd.Parent]
		}
		remap[i] = int32(len(out))
		out = append(out, nd)
	}
	return out
}
