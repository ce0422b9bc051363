package viewer

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer/lod"
)

type zoneRef struct {
	Thread int    `json:"thread"`
	Index  uint32 `json:"index"`
}

type zoneChild struct {
	Index    uint32 `json:"index"`
	SrcLoc   int16  `json:"srcloc"`
	Name     string `json:"name"`
	Start    int64  `json:"start"`
	Duration int64  `json:"duration"` // -1: never ended
}

type threadRef struct {
	Index int    `json:"index"`
	ID    uint64 `json:"id"`
	Name  string `json:"name"`
}

type zoneInfo struct {
	Thread   threadRef `json:"thread"`
	Index    uint32    `json:"index"`
	Depth    int       `json:"depth"` // 0 = a root zone
	SrcLoc   int16     `json:"srcloc"`
	Name     string    `json:"name"` // the zone's own name (ZoneName) or its source location's
	SrcName  string    `json:"srcloc_name"`
	Function string    `json:"function"`
	File     string    `json:"file"`
	Line     uint32    `json:"line"`
	Start    int64     `json:"start"`
	End      int64     `json:"end"`      // the trace's end for a zone that never ended
	Duration int64     `json:"duration"` // end - start
	Unended  bool      `json:"unended,omitempty"`
	SelfNs   int64     `json:"self_ns"` // duration minus the direct children's
	// ShareOfParent is duration / the parent's duration (0 for a root).
	ShareOfParent float64     `json:"share_of_parent"`
	Parent        *zoneRef    `json:"parent"`
	ChildCount    int         `json:"child_count"`
	Children      []zoneChild `json:"children"` // the first ones, by start (limit: children=N)
	// Text is the ZoneText; Value the number ZoneValue appended to it
	// (Tracy stores it as a last text line "N [0xHEX]"), null when none.
	Text      string       `json:"text"`
	Value     *uint64      `json:"value"`
	Color     uint32       `json:"color"` // 0xRRGGBB: the zone's own colour, else its source location's, 0 = none
	CallStack uint32       `json:"callstack"`
	Frames    []stackFrame `json:"frames"` // the call stack, innermost first
}

type gpuZoneInfo struct {
	Context    int          `json:"context"`
	Timeline   int          `json:"timeline"`
	Index      uint32       `json:"index"`
	SrcLoc     int16        `json:"srcloc"`
	Name       string       `json:"name"`
	Function   string       `json:"function"`
	File       string       `json:"file"`
	Line       uint32       `json:"line"`
	Start      int64        `json:"start"` // GPU times, ns
	End        int64        `json:"end"`
	Duration   int64        `json:"duration"`
	Unended    bool         `json:"unended,omitempty"`
	CPUStart   int64        `json:"cpu_start"`
	CPUEnd     int64        `json:"cpu_end"`
	Thread     uint64       `json:"thread"` // id of the issuing thread
	ChildCount int          `json:"child_count"`
	Color      uint32       `json:"color"`
	CallStack  uint32       `json:"callstack"`
	Frames     []stackFrame `json:"frames"`
}

// itemsAt is what lane th draws over [t, t+1] at one nanosecond a pixel:
// every zone of at least 1 ns covering t, at every depth, found with lod's
// binary searches (O(depth × log n)) instead of a walk over siblings.
func (s *Server) itemsAt(th int, t int64, buf *timelineBuf) ([]lod.Item, error) {
	if err := s.ix.Timeline(lod.Query{T0: t, T1: t + 1, Width: 1, MinPx: 1}, &buf.tl); err != nil {
		return nil, err
	}
	for i := range buf.tl.Lanes {
		if l := &buf.tl.Lanes[i]; l.Kind == lod.LaneCPU && l.Thread == th {
			return l.Items, nil
		}
	}
	return nil, nil
}

// ancestors returns the chain of zone indices from a root down to i's
// parent. A zone of at least 1 ns has ancestors of at least 1 ns, all
// covering its start, so lod finds them; zero-length zones (whose
// ancestors may merge) take the walk over siblings.
func (s *Server) ancestors(th int, i uint32) []uint32 {
	zl := &s.t.Threads[th].Zones
	z := zl.At(int(i))
	if e := z.End(); e < 0 || e-z.Start() >= 1 {
		buf := s.tlPool.Get().(*timelineBuf)
		defer s.tlPool.Put(buf)
		items, err := s.itemsAt(th, z.Start(), buf)
		if err == nil {
			var chain []uint32
			ok := true
			for _, it := range items {
				if it.Merged || it.Index >= i || i >= uint32(zl.NextOf(zl.At(int(it.Index)))) {
					continue
				}
				if int(it.Depth) != len(chain) {
					ok = false
					break
				}
				chain = append(chain, it.Index)
			}
			if ok {
				return chain
			}
		}
	}
	return walkAncestors(zl, i)
}

// walkAncestors finds i's ancestors by walking siblings from the roots:
// no index needed, but linear in the siblings before i.
func walkAncestors(zl *model.ZoneList, i uint32) []uint32 {
	var chain []uint32
	lo, hi := uint32(0), uint32(zl.Len())
	for lo < hi {
		j := lo
		for j < hi {
			n := uint32(zl.NextOf(zl.At(int(j))))
			if n <= j || n > hi {
				n = j + 1 // malformed tree: step, never loop
			}
			if i < n {
				break
			}
			j = n
		}
		if j >= hi || j == i {
			break
		}
		chain = append(chain, j)
		lo, hi = j+1, min(uint32(zl.NextOf(zl.At(int(j)))), hi)
	}
	return chain
}

func (s *Server) zoneEnd(z *model.Zone) (int64, bool) {
	if e := z.End(); e >= 0 {
		return e, false
	}
	return max(s.t.Metadata.LastTime, z.Start()), true
}

// splitValue separates the line ZoneValue appends ("N [0xHEX]") from the
// zone's text.
func splitValue(text string) (string, *uint64) {
	body := strings.TrimSuffix(text, "\n")
	k := strings.LastIndexByte(body, '\n')
	line := body[k+1:]
	num, hex, ok := strings.Cut(line, " [0x")
	if !ok || !strings.HasSuffix(hex, "]") {
		return text, nil
	}
	v, err := strconv.ParseUint(num, 10, 64)
	h, err2 := strconv.ParseUint(strings.TrimSuffix(hex, "]"), 16, 64)
	if err != nil || err2 != nil || v != h {
		return text, nil
	}
	if k < 0 {
		return "", &v
	}
	return body[:k], &v
}

func (s *Server) apiZone(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "thread", "index", "gpu", "children"); err != nil {
		return err
	}
	p := params{r: r}
	if g, ok := p.raw("gpu"); ok {
		return s.gpuZone(w, &p, g)
	}
	th := int(p.need("thread", 0, int64(max(len(s.t.Threads)-1, 0))))
	nch := int(p.int("children", 50, 0, 10000))
	if p.err != nil {
		return p.err
	}
	if len(s.t.Threads) == 0 {
		return notFound("the trace has no threads")
	}
	zl := &s.t.Threads[th].Zones
	idx := uint32(p.need("index", 0, int64(max(zl.Len()-1, 0))))
	if p.err != nil {
		return p.err
	}
	if zl.Len() == 0 {
		return notFound("thread %d has no zones", th)
	}
	return writeJSON(w, s.zoneInfo(th, idx, nch))
}

func (s *Server) zoneInfo(th int, idx uint32, nch int) *zoneInfo {
	t := s.t
	thr := &t.Threads[th]
	zl := &thr.Zones
	z := zl.At(int(idx))
	sl, _ := t.SrcLoc(z.SrcLoc)
	end, unended := s.zoneEnd(z)
	zi := &zoneInfo{Thread: threadRef{th, thr.ID, t.ThreadName(thr.ID)}, Index: idx, SrcLoc: z.SrcLoc, Name: t.ZoneName(z),
		SrcName: t.SrcLocName(sl), Function: t.RefString(sl.Function), File: t.RefString(sl.File), Line: sl.Line,
		Start: z.Start(), End: end, Duration: end - z.Start(), Unended: unended, Children: []zoneChild{}, Frames: []stackFrame{}}
	zi.SelfNs = zi.Duration
	for c := range model.Children(zl, int(idx)) {
		cz := zl.At(c)
		ce, _ := s.zoneEnd(cz)
		ce = min(ce, end)
		zi.SelfNs -= max(0, ce-cz.Start())
		zi.ChildCount++
		if len(zi.Children) < nch {
			d := cz.Duration()
			zi.Children = append(zi.Children, zoneChild{Index: uint32(c), SrcLoc: cz.SrcLoc, Name: t.ZoneName(cz), Start: cz.Start(), Duration: d})
		}
	}
	chain := s.ancestors(th, idx)
	zi.Depth = len(chain)
	if len(chain) > 0 {
		pi := chain[len(chain)-1]
		zi.Parent = &zoneRef{th, pi}
		pz := zl.At(int(pi))
		pe, _ := s.zoneEnd(pz)
		if pd := pe - pz.Start(); pd > 0 {
			zi.ShareOfParent = float64(zi.Duration) / float64(pd)
		}
	}
	color := sl.Color
	if e := z.Extra(); e != 0 && int(e) < len(t.ZoneExtras) {
		x := &t.ZoneExtras[e]
		zi.Text, zi.Value = splitValue(t.Str(x.Text))
		if x.Color != 0 {
			color = x.Color
		}
		zi.CallStack = x.CallStack
		zi.Frames = s.stackFrames(x.CallStack)
	}
	zi.Color = lod.BGRToRGB(color)
	return zi
}

func (s *Server) gpuZone(w http.ResponseWriter, p *params, g string) error {
	cs, ks, ok := strings.Cut(g, ":")
	c, err1 := strconv.Atoi(cs)
	k, err2 := strconv.Atoi(ks)
	if !ok || err1 != nil || err2 != nil {
		return badRequest("parameter gpu must be CONTEXT:TIMELINE, as in gpu=0:1, got %q", g)
	}
	t := s.t
	if c < 0 || c >= len(t.GpuContexts) {
		return badRequest("parameter gpu names context %d, but the trace has %d GPU contexts", c, len(t.GpuContexts))
	}
	if k < 0 || k >= len(t.GpuContexts[c].Timelines) {
		return badRequest("parameter gpu names timeline %d, but context %d has %d", k, c, len(t.GpuContexts[c].Timelines))
	}
	zs := t.GpuContexts[c].Timelines[k].Zones
	if _, ok := p.raw("thread"); ok {
		return badRequest("parameter thread is for CPU zones; a GPU zone is named by gpu and index")
	}
	idx := uint32(p.need("index", 0, int64(max(len(zs)-1, 0))))
	if p.err != nil {
		return p.err
	}
	if len(zs) == 0 {
		return notFound("GPU timeline %d:%d has no zones", c, k)
	}
	z := &zs[idx]
	sl, _ := t.SrcLoc(z.SrcLoc)
	end, unended := z.GPUEnd, false
	if end < 0 {
		end, unended = max(t.Metadata.LastTime, z.GPUStart), true
	}
	gi := &gpuZoneInfo{Context: c, Timeline: k, Index: idx, SrcLoc: z.SrcLoc, Name: t.SrcLocName(sl), Function: t.RefString(sl.Function),
		File: t.RefString(sl.File), Line: sl.Line, Start: z.GPUStart, End: end, Duration: end - z.GPUStart, Unended: unended,
		CPUStart: z.CPUStart, CPUEnd: z.CPUEnd, Thread: t.LocalThread(z.Thread), Color: lod.BGRToRGB(sl.Color),
		CallStack: z.CallStack, Frames: s.stackFrames(z.CallStack)}
	for j := idx + 1; j < z.Next && j < uint32(len(zs)); {
		gi.ChildCount++
		n := zs[j].Next
		if n <= j {
			break
		}
		j = n
	}
	return writeJSON(w, gi)
}

// apiZoneAt finds the zone a click at time t on row depth of a thread's
// lane hits.
func (s *Server) apiZoneAt(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "thread", "t", "depth", "children"); err != nil {
		return err
	}
	p := params{r: r}
	th := int(p.need("thread", 0, int64(max(len(s.t.Threads)-1, 0))))
	at := p.need("t", -maxTime, maxTime)
	depth := int(p.need("depth", 0, math.MaxUint16))
	nch := int(p.int("children", 50, 0, 10000))
	if p.err != nil {
		return p.err
	}
	if len(s.t.Threads) == 0 {
		return notFound("the trace has no threads")
	}
	if j, ok := s.zoneAtFast(th, at, depth); ok {
		return writeJSON(w, s.zoneInfo(th, j, nch))
	}
	zl := &s.t.Threads[th].Zones
	lo, hi := uint32(0), uint32(zl.Len())
	for d := 0; lo < hi; d++ {
		j := lo
		found := false
		for j < hi {
			z := zl.At(int(j))
			if z.Start() > at {
				break
			}
			e, _ := s.zoneEnd(z)
			n := uint32(zl.NextOf(z))
			if n <= j || n > hi {
				n = j + 1
			}
			if at <= e {
				found = true
				break
			}
			j = n
		}
		if !found {
			break
		}
		if d == depth {
			return writeJSON(w, s.zoneInfo(th, j, nch))
		}
		lo, hi = j+1, min(uint32(zl.NextOf(zl.At(int(j)))), hi)
	}
	return notFound("no zone of thread %d at depth %d covers %d ns", th, depth, at)
}

// zoneAtFast finds the zone at depth covering at through lod; ok is false
// when only zero-length zones (merged at 1 ns) are there, for the walk to
// decide.
func (s *Server) zoneAtFast(th int, at int64, depth int) (uint32, bool) {
	buf := s.tlPool.Get().(*timelineBuf)
	defer s.tlPool.Put(buf)
	items, err := s.itemsAt(th, at, buf)
	if err != nil {
		return 0, false
	}
	for _, it := range items {
		if int(it.Depth) != depth || it.Start > at || it.End < at {
			continue
		}
		// The first covering zone in time order, as the walk picks.
		return it.Index, !it.Merged
	}
	return 0, false
}

type inlineFrame struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Line    uint32 `json:"line"`
	SymAddr uint64 `json:"sym_addr"`
}

type stackFrame struct {
	Addr     uint64        `json:"addr"` // the frame id the client sent
	Image    string        `json:"image"`
	Resolved bool          `json:"resolved"`
	Inlines  []inlineFrame `json:"inlines"` // outermost function last, as Tracy lists them
}

func (s *Server) stackFrames(cs uint32) []stackFrame {
	out := []stackFrame{}
	for _, id := range s.t.CallStack(cs) {
		fd, ok := s.t.Frames[id]
		f := stackFrame{Addr: id, Resolved: ok, Inlines: []inlineFrame{}}
		if ok {
			f.Image = s.t.Str(fd.ImageName)
			for _, in := range fd.Frames {
				f.Inlines = append(f.Inlines, inlineFrame{Name: s.t.Str(in.Name), File: s.t.Str(in.File), Line: in.Line, SymAddr: in.SymAddr})
			}
		}
		out = append(out, f)
	}
	return out
}

func (s *Server) apiCallStack(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "id"); err != nil {
		return err
	}
	p := params{r: r}
	n := s.t.NumCallStacks()
	if n == 0 {
		if p.need("id", 0, math.MaxUint32); p.err != nil {
			return p.err
		}
		return notFound("the trace has no call stacks")
	}
	id := uint32(p.need("id", 1, int64(n)))
	if p.err != nil {
		return p.err
	}
	return writeJSON(w, struct {
		ID     uint32       `json:"id"`
		Frames []stackFrame `json:"frames"`
	}{id, s.stackFrames(id)})
}
