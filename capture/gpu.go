package capture

import (
	"math"
	"math/bits"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
)

// gpuCtx is the capture state of one GPU context (a u8 id chosen by the
// client): its clock conversion, its per-thread open zones and the zones
// waiting for GPU timestamps by query id.
type gpuCtx struct {
	idx            int // index in t.GpuContexts
	hasPeriod      bool
	period         float64
	timeDiff       int64
	calibrated     bool
	calGPU, calCPU int64
	calMod         float64
	lastGPU        int64
	overflow       uint64
	overflowMul    uint64
	timelines      map[uint64]*gpuTimeline // by thread (0 for thread-bound contexts)
	query          map[uint16]gpuZoneRef
	noteGroups     map[uint16]int
}

type gpuTimeline struct {
	idx   int // index in the context's Timelines
	stack []uint32
}

type gpuZoneRef struct {
	timeline int
	zone     uint32
}

func (w *worker) gpuNewContext(cpuTick, gpuTick int64, thread uint32, period float32, ctxID, flags, typ uint8) {
	if w.gpu[ctxID] != nil {
		return
	}
	gpuTime := gpuTick
	if period != 1 {
		gpuTime = int64(float64(period) * float64(gpuTick))
	}
	cpuTime := w.tscTime(cpuTick)
	g := &gpuCtx{
		idx: len(w.t.GpuContexts), hasPeriod: period != 1, period: float64(period),
		timeDiff: cpuTime - gpuTime, calibrated: flags&1 != 0, calGPU: gpuTime, calCPU: cpuTime, calMod: 1,
		timelines: map[uint64]*gpuTimeline{}, query: map[uint16]gpuZoneRef{}, noteGroups: map[uint16]int{},
	}
	w.t.GpuContexts = append(w.t.GpuContexts, model.GpuContext{Thread: uint64(thread), Calibrated: g.calibrated, Period: period, Type: typ})
	w.gpu[ctxID] = g
}

// gpuZoneBegin opens a GPU zone; its GPU times arrive later as GpuTime
// items for its query ids.
func (w *worker) gpuZoneBegin(it protocol.Item, sl model.SrcLocID, serial bool, cs uint32) {
	ctxID := it.U8(15)
	g := w.gpu[ctxID]
	delta := it.I64(1)
	var tick int64
	if serial {
		w.refs.Serial += delta
		tick = w.refs.Serial
	} else {
		w.refs.Thread += delta
		tick = w.refs.Thread
	}
	if g == nil {
		return
	}
	ctx := &w.t.GpuContexts[g.idx]
	thread := uint64(it.U32(9))
	z := model.GpuZone{CPUStart: w.tscTime(tick), CPUEnd: -1, GPUStart: -1, GPUEnd: -1, CallStack: cs, SrcLoc: sl, QueryID: it.U16(13)}
	if ctx.Thread == 0 {
		z.Thread = w.localThread(thread)
	} else {
		thread = 0
	}
	w.setLast(z.CPUStart)
	tl := g.timelines[thread]
	if tl == nil {
		tl = &gpuTimeline{idx: len(ctx.Timelines)}
		ctx.Timelines = append(ctx.Timelines, model.GpuTimeline{Thread: thread})
		g.timelines[thread] = tl
	}
	zs := &ctx.Timelines[tl.idx].Zones
	zi := uint32(len(*zs))
	*zs = append(*zs, z)
	tl.stack = append(tl.stack, zi)
	g.query[z.QueryID] = gpuZoneRef{tl.idx, zi}
}

func (w *worker) gpuZoneEnd(it protocol.Item, serial bool) {
	g := w.gpu[it.U8(15)]
	delta := it.I64(1)
	var tick int64
	if serial {
		w.refs.Serial += delta
		tick = w.refs.Serial
	} else {
		w.refs.Thread += delta
		tick = w.refs.Thread
	}
	if g == nil {
		return
	}
	tl := g.timelines[uint64(it.U32(9))]
	if tl == nil || len(tl.stack) == 0 {
		return
	}
	zi := tl.stack[len(tl.stack)-1]
	tl.stack = tl.stack[:len(tl.stack)-1]
	zs := w.t.GpuContexts[g.idx].Timelines[tl.idx].Zones
	z := &zs[zi]
	z.CPUEnd = w.tscTime(tick)
	z.Next = uint32(len(zs))
	g.query[it.U16(13)] = gpuZoneRef{tl.idx, zi}
	w.setLast(z.CPUEnd)
}

// gpuTime converts a GPU timestamp to capture time (handling counters that
// wrap, a tick period and calibration, as Tracy's server) and gives it to
// the zone waiting on the query id: first its start, then its end.
func (w *worker) gpuTime(delta int64, queryID uint16, ctxID uint8) {
	w.refs.GPU += delta
	g := w.gpu[ctxID]
	if g == nil {
		return
	}
	tgpu := w.refs.GPU
	if tgpu < g.lastGPU-(1<<31) {
		if g.overflow == 0 {
			g.overflow = uint64(1) << (64 - bits.LeadingZeros64(uint64(g.lastGPU)))
		}
		g.overflowMul++
	}
	g.lastGPU = tgpu
	if g.overflow != 0 {
		tgpu += int64(g.overflow * g.overflowMul)
	}
	var t int64
	switch {
	case !g.hasPeriod && !g.calibrated:
		t = tgpu + g.timeDiff
	case !g.hasPeriod:
		t = int64(float64(tgpu-g.calGPU)*g.calMod + float64(g.calCPU))
	case !g.calibrated:
		t = int64(g.period*float64(tgpu)) + g.timeDiff
	default:
		t = int64((g.period*float64(tgpu)-float64(g.calGPU))*g.calMod + float64(g.calCPU))
	}
	ref, ok := g.query[queryID]
	if !ok {
		return
	}
	delete(g.query, queryID)
	ctx := &w.t.GpuContexts[g.idx]
	z := &ctx.Timelines[ref.timeline].Zones[ref.zone]
	if z.GPUStart < 0 {
		z.GPUStart = t
		ctx.Count++
	} else {
		z.GPUEnd = t
	}
	ctx.Overflow = g.overflow
	w.setLast(t)
}

func (w *worker) gpuCalibration(gpuTick, cpuTick, cpuDelta int64, ctxID uint8) {
	g := w.gpu[ctxID]
	if g == nil || !g.calibrated {
		return
	}
	gpuTime := gpuTick
	if g.hasPeriod {
		gpuTime = int64(g.period * float64(gpuTick))
	}
	if d := gpuTime - g.calGPU; d != 0 {
		g.calMod = float64(cpuDelta) / float64(d)
	}
	if math.IsInf(g.calMod, 0) || math.IsNaN(g.calMod) {
		g.calMod = 1
	}
	g.calGPU = gpuTime
	g.calCPU = w.tscTime(cpuTick)
}

func (w *worker) gpuTimeSync(gpuTick, cpuTick int64, ctxID uint8) {
	g := w.gpu[ctxID]
	if g == nil {
		return
	}
	gpuTime := gpuTick
	if g.period != 1 {
		gpuTime = int64(g.period * float64(gpuTick))
	}
	g.timeDiff = w.tscTime(cpuTick) - gpuTime
	g.lastGPU, g.overflow, g.overflowMul = 0, 0, 0
}

func (w *worker) gpuNames(it protocol.Item) {
	name := w.takeSingle()
	var g *gpuCtx
	if it.Type == protocol.GpuContextName {
		g = w.gpu[it.U8(1)]
		if g != nil {
			w.t.GpuContexts[g.idx].Name = name
		}
		return
	}
	g = w.gpu[it.U8(9)]
	if g == nil {
		return
	}
	ctx := &w.t.GpuContexts[g.idx]
	id := it.I64(1)
	for i := range ctx.NoteNames {
		if ctx.NoteNames[i].ID == id {
			ctx.NoteNames[i].Name = name
			return
		}
	}
	ctx.NoteNames = append(ctx.NoteNames, model.GpuNoteName{ID: id, Name: name})
}

func (w *worker) gpuZoneAnnotation(noteID int64, value float64, queryID uint16, ctxID uint8) {
	g := w.gpu[ctxID]
	if g == nil {
		return
	}
	ctx := &w.t.GpuContexts[g.idx]
	gi, ok := g.noteGroups[queryID]
	if !ok {
		gi = len(ctx.Notes)
		ctx.Notes = append(ctx.Notes, model.GpuNoteGroup{QueryID: queryID})
		g.noteGroups[queryID] = gi
	}
	grp := &ctx.Notes[gi]
	for i := range grp.Notes {
		if grp.Notes[i].ID == noteID {
			grp.Notes[i].Value = value
			return
		}
	}
	grp.Notes = append(grp.Notes, model.GpuNote{ID: noteID, Value: value})
}

// finishGPU closes the subtrees of GPU zones that never ended.
func (w *worker) finishGPU() {
	for _, g := range w.gpu {
		if g == nil {
			continue
		}
		for _, tl := range g.timelines {
			zs := w.t.GpuContexts[g.idx].Timelines[tl.idx].Zones
			for _, zi := range tl.stack {
				zs[zi].Next = uint32(len(zs))
			}
		}
	}
}
