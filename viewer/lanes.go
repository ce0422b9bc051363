package viewer

import (
	"net/http"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer/lod"
)

type laneThread struct {
	Index    int    `json:"index"` // position in the trace's threads: the timeline's "thread"
	ID       uint64 `json:"id"`    // the OS thread id
	Name     string `json:"name"`  // as set by the program; "" when it set none
	Zones    int    `json:"zones"`
	Depth    int    `json:"depth"` // deepest nesting + 1: the lane's rows
	IsFiber  bool   `json:"is_fiber"`
	Messages int    `json:"messages"`
}

type laneGPU struct {
	Context  int    `json:"context"`
	Timeline int    `json:"timeline"`
	Name     string `json:"name"`   // the context's name
	Type     string `json:"type"`   // OpenGL, Vulkan, ...
	Thread   uint64 `json:"thread"` // id of the thread the timeline's zones were issued from
	Zones    int    `json:"zones"`
	Depth    int    `json:"depth"`
}

type laneFrameSet struct {
	Index      int    `json:"index"`
	Name       string `json:"name"`
	Count      int    `json:"count"`
	Continuous bool   `json:"continuous"`
}

type lanePlot struct {
	Index  int     `json:"index"`
	Name   string  `json:"name"`
	Type   string  `json:"type"`   // user, memory, sys time, power
	Format string  `json:"format"` // number, memory, percentage, watt
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Count  int     `json:"count"`
	Color  uint32  `json:"color"` // 0xRRGGBB, 0 = none
	Steps  bool    `json:"steps"`
	Fill   bool    `json:"fill"`
}

type laneLock struct {
	Index   int    `json:"index"`
	ID      uint32 `json:"id"`
	Name    string `json:"name"`
	SrcLoc  int16  `json:"srcloc"`
	Shared  bool   `json:"shared"` // a shared (read/write) lock
	Threads []int  `json:"threads"`
	Events  int    `json:"events"`
}

type lanesAnswer struct {
	FirstTime int64          `json:"first_time"`
	LastTime  int64          `json:"last_time"`
	Threads   []laneThread   `json:"threads"`
	GPU       []laneGPU      `json:"gpu"`
	FrameSets []laneFrameSet `json:"frame_sets"`
	Plots     []lanePlot     `json:"plots"`
	Locks     []laneLock     `json:"locks"`
	Messages  int            `json:"messages"`
}

var gpuTypeNames = [...]string{"invalid", "OpenGL", "Vulkan", "OpenCL", "Direct3D 12", "Direct3D 11", "Metal", "custom", "CUDA", "Rocprof", "WebGPU"}

var plotTypes = [...]string{"user", "memory", "sys time", "power"}
var plotFormats = [...]string{"number", "memory", "percentage", "watt"}

func nameOf(names []string, i uint8) string {
	if int(i) < len(names) {
		return names[i]
	}
	return "unknown"
}

// threadOfID is the position in Trace.Threads of thread id tid, -1 when
// the trace has no zones thread of that id.
func (s *Server) threadOfID(tid uint64) int {
	for i := range s.t.Threads {
		if s.t.Threads[i].ID == tid {
			return i
		}
	}
	return -1
}

func (s *Server) frameSetName(i int) string {
	fs := &s.t.FrameSets[i]
	if fs.Name == 0 {
		return "Frame"
	}
	if n, ok := s.t.PtrString(fs.Name); ok {
		return n
	}
	return "???"
}

func (s *Server) plotName(p *model.Plot) string {
	switch {
	case p.Type == model.PlotMemory && p.Name == 0:
		return "default memory pool"
	case p.Type == model.PlotSysTime:
		return "CPU usage"
	}
	if n, ok := s.t.PtrString(p.Name); ok {
		return n
	}
	return "???"
}

func (s *Server) lockName(l *model.Lock) string {
	if l.CustomName != model.NoString {
		return s.t.Str(l.CustomName)
	}
	sl, _ := s.t.SrcLoc(l.SrcLoc)
	return s.t.SrcLocName(sl)
}

func (s *Server) apiLanes(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	t := s.t
	a := lanesAnswer{FirstTime: analysis.FirstTime(t), LastTime: t.Metadata.LastTime, Messages: len(t.Messages),
		Threads: []laneThread{}, GPU: []laneGPU{}, FrameSets: []laneFrameSet{}, Plots: []lanePlot{}, Locks: []laneLock{}}
	for i := range t.Threads {
		th := &t.Threads[i]
		a.Threads = append(a.Threads, laneThread{Index: i, ID: th.ID, Name: t.ThreadName(th.ID), Zones: th.Zones.Len(),
			Depth: s.ix.ThreadDepth(i), IsFiber: th.IsFiber, Messages: len(th.Messages)})
	}
	for c := range t.GpuContexts {
		ctx := &t.GpuContexts[c]
		for k := range ctx.Timelines {
			tl := &ctx.Timelines[k]
			a.GPU = append(a.GPU, laneGPU{Context: c, Timeline: k, Name: t.Str(ctx.Name), Type: nameOf(gpuTypeNames[:], ctx.Type),
				Thread: tl.Thread, Zones: len(tl.Zones), Depth: gpuDepth(tl.Zones)})
		}
	}
	for i := range t.FrameSets {
		fs := &t.FrameSets[i]
		a.FrameSets = append(a.FrameSets, laneFrameSet{Index: i, Name: s.frameSetName(i), Count: len(fs.Frames), Continuous: fs.Continuous})
	}
	for i := range s.plots {
		p := &s.plots[i]
		a.Plots = append(a.Plots, lanePlot{Index: i, Name: s.plotName(p), Type: nameOf(plotTypes[:], p.Type), Format: nameOf(plotFormats[:], p.Format),
			Min: p.Min, Max: p.Max, Count: len(p.Points), Color: p.Color & 0xFFFFFF, Steps: p.ShowSteps, Fill: p.Fill})
	}
	for i := range t.Locks {
		l := &t.Locks[i]
		ll := laneLock{Index: i, ID: l.ID, Name: s.lockName(l), SrcLoc: l.SrcLoc, Shared: l.Type == model.LockSharedLockable,
			Threads: []int{}, Events: len(l.Events)}
		for _, tid := range l.Threads {
			ll.Threads = append(ll.Threads, s.threadOfID(tid))
		}
		a.Locks = append(a.Locks, ll)
	}
	return writeJSON(w, &a)
}

// gpuDepth is a GPU timeline's deepest nesting + 1.
func gpuDepth(z []model.GpuZone) int {
	var stack []uint32
	d := 0
	for i := range z {
		for len(stack) > 0 && uint32(i) >= stack[len(stack)-1] {
			stack = stack[:len(stack)-1]
		}
		d = max(d, len(stack)+1)
		if z[i].Next > uint32(i)+1 {
			stack = append(stack, z[i].Next)
		}
	}
	return d
}

type srcLocJSON struct {
	ID       int16  `json:"id"` // the zones' srcloc value: >0 static, <0 dynamic
	Name     string `json:"name"`
	Function string `json:"function"`
	File     string `json:"file"`
	Line     uint32 `json:"line"`
	Color    uint32 `json:"color"` // 0xRRGGBB, 0 = none (the page picks one)
}

func (s *Server) srcLoc(id int16) srcLocJSON {
	sl, _ := s.t.SrcLoc(id)
	return srcLocJSON{ID: id, Name: s.t.SrcLocName(sl), Function: s.t.RefString(sl.Function), File: s.t.RefString(sl.File),
		Line: sl.Line, Color: lod.BGRToRGB(sl.Color)}
}

func (s *Server) apiSrcLocs(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	t := s.t
	out := make([]srcLocJSON, 0, len(t.SrcLocIndex)+len(t.DynSrcLocs))
	for i := 1; i < len(t.SrcLocIndex) && i < 32767; i++ {
		out = append(out, s.srcLoc(int16(i)))
	}
	for i := 0; i < len(t.DynSrcLocs) && i < 32768; i++ {
		out = append(out, s.srcLoc(int16(-(i + 1))))
	}
	return writeJSON(w, out)
}
