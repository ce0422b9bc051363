package capture

import (
	"math"
	"slices"
	"time"

	"github.com/gotracy/gotracy/model"
)

// FlightRecorder keeps only the newest window of a capture in memory, so a
// capture can run for days at bounded memory (Tracy #605, #785): old
// frames are dropped whole, with everything that happened in them (CPU
// zones, messages, plot points, allocations freed before the window, lock
// events, frame images), so what remains is consistent: every zone kept is
// kept with its whole subtree, and a top-level zone that reaches into the
// window is kept whole even when it began before.
//
// Set Keep or KeepFrames (both: the larger window of the two); KeepSlow
// also keeps every base frame slower than it, with what happened during
// it, however old. The window is measured in base frames ("Frame"); a
// client that marks no frames keeps everything.
type FlightRecorder struct {
	Keep       time.Duration // keep the frames of the last Keep of trace time
	KeepFrames int           // keep the last KeepFrames base frames
	KeepSlow   time.Duration // also keep every frame longer than this (0: none)
}

// WithFlightRecorder runs the capture as a flight recorder (see
// FlightRecorder). The trace returned at the end holds the window only.
func WithFlightRecorder(f FlightRecorder) Option {
	return func(c *config) {
		if f.Keep > 0 || f.KeepFrames > 0 {
			c.flight = &f
		}
	}
}

// WithSnapshots lets the caller ask a running capture for a copy of its
// trace as it stands (the flight recorder's window, or everything so far),
// without stopping it: send a channel on req and the capture sends back a
// complete trace that shares nothing mutable with the capture, ready for
// tracefile.Write. The copy is made between two transport frames, so it
// is consistent; zones still open are saved as Tracy saves them at a cut.
func WithSnapshots(req <-chan chan<- *model.Trace) Option {
	return func(c *config) { c.snapshots = req }
}

// flight is the recorder's state in the worker.
type flight struct {
	cfg     FlightRecorder
	slow    []span // kept slow base frames, in time order
	slowTo  int    // base frames up to this index were examined for slowness
	lastCut int64  // where the last trim cut
	// zonesCut is where the last zones-only trim cut (see afterFrame).
	zonesCut int64
	dropped  uint64 // base frames dropped so far (added to FrameOffset)
}

type span struct{ start, end int64 }

// frameEnd is the end of base frame i (the next frame's start for the
// continuous base set; -1 while it is the last one).
func frameEnd(fs *model.FrameSet, i int) int64 {
	if f := fs.Frames[i]; f.End >= 0 {
		return f.End
	}
	if i+1 < len(fs.Frames) {
		return fs.Frames[i+1].Start
	}
	return -1
}

// cutIndex returns the first base frame of the window (0: keep all).
func (f *flight) cutIndex(w *worker) int {
	fr := w.t.FrameSets[0].Frames
	n := len(fr)
	first := n
	if f.cfg.KeepFrames > 0 {
		first = max(n-f.cfg.KeepFrames, 0)
	}
	if f.cfg.Keep > 0 {
		// The first frame that ends inside the last Keep of trace time.
		from := w.lastTime - f.cfg.Keep.Nanoseconds()
		i, _ := slices.BinarySearchFunc(fr, from, func(fm model.Frame, t int64) int {
			if fm.Start < t {
				return -1
			}
			return 1
		})
		// fr[i-1] starts before from and may end after it: keep it whole.
		if i > 0 {
			i--
		}
		first = min(first, i)
	}
	return first
}

// noteSlow records the slow frames among those that are complete.
func (f *flight) noteSlow(w *worker) {
	fs := &w.t.FrameSets[0]
	if f.cfg.KeepSlow <= 0 {
		return
	}
	for ; f.slowTo+1 < len(fs.Frames); f.slowTo++ {
		i := f.slowTo
		end := frameEnd(fs, i)
		if end < 0 {
			break
		}
		if end-fs.Frames[i].Start > f.cfg.KeepSlow.Nanoseconds() {
			f.slow = append(f.slow, span{fs.Frames[i].Start, end})
		}
	}
}

// afterFrame trims. The zones, which are nearly all of a full-rate
// window, go at every frame that moves the window's start, and cost what
// they drop (trimZones: whole chunks let go, nothing kept is rewritten),
// so they stay within the window plus a frame plus a chunk per thread.
// The rest (frames, messages, plot points, allocations, lock events,
// frame images; small beside the zones) is filtered, O(window of those
// items), once the droppable frames reach a quarter of the window: at
// most 1.25 windows of them, each copied about four times over its life.
func (f *flight) afterFrame(w *worker) {
	if flightHeld != nil {
		defer func() { flightHeld(heldItems(w)) }()
	}
	if flightTexts != nil {
		defer func() { flightTexts(len(w.t.Strings)-len(w.strFree), len(w.t.ZoneExtras)-len(w.extraFree)) }()
	}
	f.noteSlow(w)
	first := f.cutIndex(w)
	fr := w.t.FrameSets[0].Frames
	if first == 0 || first >= len(fr) {
		return
	}
	kept := len(fr) - first
	if first < max(kept/4, 1) && first < 1<<16 {
		f.trimZonesOnly(w, fr[first].Start)
		return
	}
	f.trim(w, first, false)
}

// trimZonesOnly drops the zones before cut that leave the window from the
// front of every thread, O(dropped).
func (f *flight) trimZonesOnly(w *worker, cut int64) {
	if cut <= f.zonesCut {
		return
	}
	f.zonesCut = cut
	if flightFootprint != nil {
		flightTrims++
	}
	for _, td := range w.threads {
		f.trimZones(w, td, cut, nil, false, false, false)
	}
	if flightFootprint != nil {
		var n int64
		for _, td := range w.threads {
			n += td.zones.Footprint()
		}
		flightFootprint(n)
	}
}

// keeps tells whether an item spanning [start, end] (end < 0: open)
// belongs to the window that starts at cut or to a kept slow frame.
func (f *flight) keeps(cut, start, end int64) bool {
	if end < 0 || end > cut || start >= cut {
		return true
	}
	// Slow frames are few, sorted by start, and do not overlap: look at
	// those starting before end, latest first.
	i, _ := slices.BinarySearchFunc(f.slow, end, func(s span, t int64) int {
		if s.start < t {
			return -1
		}
		return 1
	})
	if start == end && i < len(f.slow) && f.slow[i].start == start {
		return true // an instant at a slow frame's start
	}
	for j := i - 1; j >= 0; j-- {
		s := f.slow[j]
		if s.end > start || (start == end && s.start <= start && start < s.end) {
			return true
		}
		if s.end <= start {
			break
		}
	}
	return false
}

func (f *flight) keepsAt(cut, t int64) bool { return f.keeps(cut, t, t) }

// flightHeld, when set (tests), is called after every trim and at every
// transport frame with the number of items the recorder holds.
var flightHeld func(items int)

// flightTexts, when set (tests), is called at every frame with the strings
// and zone extras in use (slots waiting for reuse not counted).
var flightTexts func(strings, extras int)

// flightFootprint, when set (tests), is called after every trim with the
// bytes the threads' zone chunks hold; while it is set, flightVisit counts
// the zones the trims looked at to find what to drop, flightDropped the
// zones they dropped and flightTrims the trims (the worker goroutine
// writes them; read them after the capture returned).
var (
	flightFootprint            func(bytes int64)
	flightVisit, flightDropped int64
	flightTrims                int
)

// heldItems counts what the window holds: frames, zones, messages, plot
// points, allocations, lock events, samples, context switches, CPU spans,
// GPU zones and hardware samples.
func heldItems(w *worker) int {
	t := w.t
	n := len(t.Messages) + len(t.FrameImages)
	for i := range t.FrameSets {
		n += len(t.FrameSets[i].Frames)
	}
	for _, td := range w.threads {
		n += td.zones.Len()
	}
	for i := range t.Plots {
		n += len(t.Plots[i].Points)
	}
	for i := range t.MemPools {
		n += len(t.MemPools[i].Events)
	}
	for i := range t.Locks {
		n += len(t.Locks[i].Events)
	}
	for i := range t.Threads {
		n += len(t.Threads[i].Samples) + len(t.Threads[i].CtxSwitchSamples)
	}
	for i := range t.CtxSwitches {
		n += len(t.CtxSwitches[i].Events)
	}
	for c := range t.CPUData {
		n += len(t.CPUData[c])
	}
	for i := range t.GpuContexts {
		for _, tl := range t.GpuContexts[i].Timelines {
			n += len(tl.Zones)
		}
	}
	for i := range t.HwSamples {
		for _, ts := range t.HwSamples[i].Times {
			n += len(ts)
		}
	}
	return n
}

// trim drops everything before base frame first (but the slow frames).
// final is the trim before the trace is finished: it also compacts (see
// trimZones).
func (f *flight) trim(w *worker, first int, final bool) {
	// Images move below: every packed result must be in place first.
	w.waitImages()
	t := w.t
	base := &t.FrameSets[0]
	if first <= 0 || first >= len(base.Frames) {
		return
	}
	if flightFootprint != nil {
		flightTrims++
		defer func() {
			var n int64
			for _, td := range w.threads {
				n += td.zones.Footprint()
			}
			flightFootprint(n)
		}()
	}
	cut := base.Frames[first].Start
	f.lastCut = cut

	// Frames and their images. The worker numbers a frame image by its
	// frame's index in the base set minus frameOffset, so the offset grows
	// by what is dropped; images staged for future frames move down too.
	imgMap := map[int32]int32{}
	var images []model.FrameImage
	keepImg := func(old int32) int32 {
		if old < 0 {
			return -1
		}
		if n, ok := imgMap[old]; ok {
			return n
		}
		n := int32(len(images))
		images = append(images, t.FrameImages[old])
		imgMap[old] = n
		return n
	}
	nb := base.Frames[:0:0]
	droppedBase := 0
	for i, fm := range base.Frames {
		if i < first && !f.keeps(cut, fm.Start, frameEnd(base, i)) {
			droppedBase++
			continue
		}
		fm.Image = keepImg(fm.Image)
		nb = append(nb, fm)
	}
	base.Frames = nb
	f.slowTo = max(f.slowTo-droppedBase, 0)
	w.frameOffset += uint64(droppedBase)
	f.dropped += uint64(droppedBase)
	staged := make(map[int64]int32, len(w.imageStaging))
	for fidx, img := range w.imageStaging {
		staged[fidx-int64(droppedBase)] = keepImg(img)
	}
	w.imageStaging = staged
	t.FrameImages = images
	for s := 1; s < len(t.FrameSets); s++ {
		fs := &t.FrameSets[s]
		fs.Frames = filterFrames(f, cut, fs)
	}

	// Zones, thread by thread, and the zone extras they use.
	extras := []model.ZoneExtra{{}}
	remapExtras := final && len(t.ZoneExtras) > 1 && !anyGPU(w)
	for _, td := range w.threads {
		f.trimZones(w, td, cut, &extras, final, remapExtras, true)
	}
	if remapExtras {
		t.ZoneExtras = extras
		w.extrasRenumbered()
	}

	// Messages, and the per-thread lists of their indices.
	msgs := t.Messages[:0:0]
	for i := range t.Messages {
		if m := &t.Messages[i]; f.keepsAt(cut, m.Time) {
			msgs = append(msgs, *m)
		} else {
			w.releaseMessage(m)
		}
	}
	t.Messages = msgs
	for i := range t.Threads {
		t.Threads[i].Messages = t.Threads[i].Messages[:0]
	}
	for i := range msgs {
		if td := w.threads[t.LocalThread(msgs[i].Thread)]; td != nil {
			th := &t.Threads[td.idx]
			th.Messages = append(th.Messages, uint32(i))
		}
	}

	// Plot points.
	for i := range t.Plots {
		p := &t.Plots[i]
		pts := p.Points[:0:0]
		for _, pt := range p.Points {
			if f.keepsAt(cut, pt.Time) {
				pts = append(pts, pt)
			}
		}
		p.Points = slices.Clip(pts)
	}

	// Allocations: those freed before the window go; those still alive at
	// its start stay (they are the memory in use).
	for pi := range t.MemPools {
		pool := &t.MemPools[pi]
		mp := w.memPools[pool.Name]
		newIdx := make([]int32, len(pool.Events))
		evs := pool.Events[:0:0]
		for i, ev := range pool.Events {
			if ev.TimeFree >= 0 && !f.keeps(cut, ev.TimeAlloc, ev.TimeFree) {
				newIdx[i] = -1
				continue
			}
			newIdx[i] = int32(len(evs))
			evs = append(evs, ev)
		}
		pool.Events = evs
		if mp != nil {
			for ptr, old := range mp.active {
				mp.active[ptr] = uint32(newIdx[old])
			}
		}
	}

	// Lock events: dropped up to the last moment before the window when
	// the lock was free and nobody waited, so every obtain kept has its
	// wait and every release its obtain.
	for i := range t.Locks {
		l := &t.Locks[i]
		idle := -1 // events[:idle+1] can go
		held, waiting := 0, 0
		for j, ev := range l.Events {
			if ev.Time >= cut {
				break
			}
			switch ev.Type {
			case model.LockWait, model.LockWaitShared:
				waiting++
			case model.LockObtain, model.LockObtainShared:
				waiting--
				held++
			case model.LockRelease, model.LockReleaseShared:
				held--
			}
			if held <= 0 && waiting <= 0 {
				idle = j
			}
		}
		if idle >= 0 {
			l.Events = slices.Clone(l.Events[idle+1:])
		}
	}

	f.trimSystem(w, cut)
	f.trimGpu(w, cut)
}

// trimSystem drops the system-tracing items before the window (or a kept
// slow frame), copying the rest as the messages are: each thread's
// context switches that ended before cut (its last two stay: the next
// switch ends the last one, and compares the CPU and the wake-up with
// them), each CPU's spans that ended before cut (its last stays, for the
// same reason), the sampled call stacks and context-switch samples before
// cut (a thread's count of kernel samples goes down with them; a sample
// of unknown time, 0, counts as before every window) and the hardware
// samples' times before cut. The per-thread running totals
// (CPUThreadData) stay the whole capture's.
func (f *flight) trimSystem(w *worker, cut int64) {
	t := w.t
	for i := range t.CtxSwitches {
		evs := t.CtxSwitches[i].Events
		n := len(evs)
		k := 0
		for k < n-2 && evs[k].End >= 0 && !f.keeps(cut, min(evs[k].Wakeup, evs[k].Start), evs[k].End) {
			k++
		}
		if k == 0 && !f.anySlow() {
			continue
		}
		out := make([]model.CtxSwitch, 0, n-k)
		for j := k; j < n; j++ {
			ev := evs[j]
			if j >= n-2 || ev.End < 0 || f.keeps(cut, min(ev.Wakeup, ev.Start), ev.End) {
				out = append(out, ev)
			}
		}
		if len(out) < n {
			t.CtxSwitches[i].Events = out
		}
	}
	for c := range t.CPUData {
		cs := t.CPUData[c]
		n := len(cs)
		if n < 2 {
			continue
		}
		out := make([]model.CPUEntry, 0, n)
		for j, e := range cs {
			if j == n-1 || e.End < 0 || f.keeps(cut, e.Start, e.End) {
				out = append(out, e)
			}
		}
		if len(out) < n {
			t.CPUData[c] = slices.Clip(out)
		}
	}
	for i := range t.Threads {
		th := &t.Threads[i]
		th.Samples = f.keepSamples(th.Samples, cut, func(s model.Sample) {
			if frames := t.CallStack(s.CallStack); len(frames) > 0 && canonicalFrame(frames[0])>>63 != 0 && th.KernelSampleCnt > 0 {
				th.KernelSampleCnt--
			}
		})
		th.CtxSwitchSamples = f.keepSamples(th.CtxSwitchSamples, cut, nil)
	}
	for i := range t.HwSamples {
		hs := &t.HwSamples[i]
		for k := range hs.Times {
			ts := hs.Times[k]
			j := 0
			for j < len(ts) && ts[j] != 0 && !f.keepsAt(cut, ts[j]) {
				j++
			}
			if j == 0 && !f.anySlow() {
				continue
			}
			out := make([]int64, 0, len(ts)-j)
			for _, tm := range ts[j:] {
				if tm == 0 || f.keepsAt(cut, tm) {
					out = append(out, tm)
				}
			}
			if len(out) < len(ts) {
				hs.Times[k] = out
			}
		}
	}
}

// anySlow reports whether slow frames are kept (items may go from between
// kept ones).
func (f *flight) anySlow() bool { return len(f.slow) > 0 }

// keepSamples returns the samples of ss that belong to the window or a
// kept slow frame (a copy when any goes), calling gone for each dropped.
func (f *flight) keepSamples(ss []model.Sample, cut int64, gone func(model.Sample)) []model.Sample {
	k := 0
	for k < len(ss) && !f.keepsAt(cut, ss[k].Time) {
		k++
	}
	if k == 0 && !f.anySlow() {
		return ss
	}
	out := make([]model.Sample, 0, len(ss)-k)
	for j, s := range ss {
		if j >= k && f.keepsAt(cut, s.Time) {
			out = append(out, s)
		} else if gone != nil {
			gone(s)
		}
	}
	if len(out) == len(ss) {
		return ss
	}
	return out
}

// trimGpu drops the GPU zones before the window: each timeline's
// top-level zones (whole subtrees) whose every zone ended on the CPU and
// on the GPU (both timestamps arrived) before cut and belongs to no kept
// slow frame; zones still open or waiting for a timestamp stay. The kept
// zones are copied with their subtree ends, the open stack and the
// pending queries renumbered; the context's zone count goes down by what
// went.
func (f *flight) trimGpu(w *worker, cut int64) {
	for _, g := range w.gpu {
		if g == nil {
			continue
		}
		ctx := &w.t.GpuContexts[g.idx]
		for _, tl := range g.timelines {
			gt := &ctx.Timelines[tl.idx]
			zs := gt.Zones
			firstOpen := len(zs)
			if len(tl.stack) > 0 {
				firstOpen = int(tl.stack[0])
			}
			newIdx := make([]int32, firstOpen) // -1: dropped
			removed := 0
			for i := 0; i < firstOpen; {
				next := int(zs[i].Next)
				if next <= i || next > firstOpen {
					next = firstOpen // cannot happen for a closed top-level zone
				}
				drop := true
				for j := i; j < next && drop; j++ {
					z := &zs[j]
					if z.CPUEnd < 0 || z.GPUStart < 0 || z.GPUEnd < 0 || f.keeps(cut, z.CPUStart, z.CPUEnd) || f.keeps(cut, z.GPUStart, z.GPUEnd) {
						drop = false
					}
				}
				for j := i; j < next; j++ {
					if drop {
						newIdx[j] = -1
					} else {
						newIdx[j] = int32(j - removed)
					}
				}
				if drop {
					removed += next - i
				}
				i = next
			}
			if removed == 0 {
				continue
			}
			out := make([]model.GpuZone, 0, len(zs)-removed)
			for i, z := range zs {
				shift := removed // zones from the first open one on
				if i < firstOpen {
					if newIdx[i] < 0 {
						continue
					}
					shift = i - int(newIdx[i])
				}
				if z.Next != 0 {
					z.Next -= uint32(shift)
				}
				out = append(out, z)
			}
			gt.Zones = out
			for k := range tl.stack {
				tl.stack[k] -= uint32(removed)
			}
			for q, ref := range g.query {
				if ref.timeline != tl.idx {
					continue
				}
				switch {
				case int(ref.zone) >= firstOpen:
					ref.zone -= uint32(removed)
				case newIdx[ref.zone] < 0:
					delete(g.query, q)
					continue
				default:
					ref.zone = uint32(newIdx[ref.zone])
				}
				g.query[q] = ref
			}
			ctx.Count -= min(ctx.Count, uint64(removed))
		}
	}
}

func anyGPU(w *worker) bool {
	for _, g := range w.gpu {
		if g != nil {
			return true
		}
	}
	return false
}

func filterFrames(f *flight, cut int64, fs *model.FrameSet) []model.Frame {
	out := fs.Frames[:0:0]
	for i, fm := range fs.Frames {
		end := fm.End
		if fs.Continuous {
			end = frameEnd(fs, i)
		}
		if f.keeps(cut, fm.Start, end) {
			fm.Image = -1 // images belong to the base set only
			out = append(out, fm)
		}
	}
	return out
}

// trimZones keeps the top-level zones (with their subtrees) that reach the
// window or a slow frame, and every zone from the first one still open.
//
// The common case costs what leaves the window, not what stays: the
// oldest top-level zones, up to the first one kept, are let go with
// ZoneList.DropFront, which releases whole chunks and renumbers the rest
// by moving the list's origin (no kept zone is moved or rewritten, so
// chunks a snapshot shares stay untouched). Only when something must go
// from between kept zones (zones older than the window between kept slow
// frames, with KeepSlow) or compact is set (the final trim, which also
// renumbers the zone extras and leaves a list with origin zero for every
// reader) are the kept zones copied into a new list: O(window), once.
// middle says whether zones may go from between kept ones (KeepSlow):
// that copies the window, so only the full trims do it.
func (f *flight) trimZones(w *worker, td *threadState, cut int64, extras *[]model.ZoneExtra, compact, remap, middle bool) {
	zs := &td.zones
	firstOpen := zs.Len()
	if len(td.stack) > 0 {
		firstOpen = int(td.stack[0])
	}
	b := 0
	for b < firstOpen {
		z := zs.At(b)
		if flightFootprint != nil {
			flightVisit++
		}
		if f.keeps(cut, z.Start(), z.End()) {
			break
		}
		next := zs.NextOf(z)
		if next <= b || next > firstOpen {
			next = firstOpen // cannot happen for a closed top-level zone
		}
		b = next
	}
	if b > 0 {
		if flightFootprint != nil {
			flightDropped += int64(b)
		}
		zs.DropFront(b)
		w.droppedFront(td, b)
		for k := range td.stack {
			td.stack[k] -= uint32(b)
		}
		firstOpen -= b
	}
	if !compact && (!middle || f.cfg.KeepSlow <= 0 || firstOpen == 0) {
		return
	}
	f.compactZones(w, td, firstOpen, cut, extras, remap, compact)
}

// compactZones copies the zones to keep into a new list of the exact size:
// the top-level zones before firstOpen that f keeps (only those starting
// before cut can go), and every zone from firstOpen on.
func (f *flight) compactZones(w *worker, td *threadState, firstOpen int, cut int64, extras *[]model.ZoneExtra, remap, normalize bool) {
	t := w.t
	// remap also renumbers the zone extras; normalize (the final trim)
	// always leaves a list with origin zero, for readers that index
	// chunks.
	zs := &td.zones
	n := zs.Len()
	// First pass: the runs of zones to keep, over the top-level zones only.
	var runs []keptRun
	removed, kept := 0, 0
	keepRun := func(from, to int) {
		if k := len(runs) - 1; k >= 0 && runs[k].to == from && runs[k].removed == removed {
			runs[k].to = to
		} else {
			runs = append(runs, keptRun{from, to, removed})
		}
		kept += to - from
	}
	i := 0
	for i < firstOpen {
		z := zs.At(i)
		if z.Start() >= cut {
			break // this zone and all later ones are in the window
		}
		next := zs.NextOf(z)
		if next <= i || next > firstOpen {
			next = firstOpen // cannot happen for a closed top-level zone
		}
		if f.keeps(cut, z.Start(), z.End()) {
			keepRun(i, next)
		} else {
			removed += next - i
		}
		i = next
	}
	if removed == 0 && !remap && !(normalize && zs.Shifted()) {
		return
	}
	if i < n {
		keepRun(i, n)
	}
	// Second pass: copy the runs into a list of the exact size, moving
	// subtree ends down by what was removed before them. The runs go
	// forward, so what was read is let go as it is passed (DropFront on
	// the old list), and the new list's chunks can take its memory, which
	// keeps the peak near the old list's size instead of old plus new.
	// Live snapshots hold their own chunk tables (ZoneList.Share), so a
	// chunk one of them shares stays theirs.
	// The chunks old lets go (those no snapshot was given) are handed to
	// the new list as they come, so the copy writes into them: it
	// allocates about one chunk, not the window (which at a full-rate
	// final trim was a window of garbage, about 1 GB/s while it ran).
	var nl model.ZoneList
	nl.Grow(kept)
	old := *zs
	*zs = model.ZoneList{}
	nl.TakeFreeChunks(&old)
	gone := 0 // zones of old let go so far: old index = original - gone
	for _, r := range runs {
		if d := r.from - gone; d > 0 {
			old.DropFront(d)
			nl.TakeFreeChunks(&old)
			gone += d
		}
		for i := r.from; i < r.to; {
			c := old.Run(i - gone)
			c = c[:min(len(c), r.to-i)]
			for k := range c {
				z := c[k]
				if z.End() >= 0 {
					nl.SetNextOf(&z, old.NextOf(&c[k])+gone-r.removed)
				}
				if remap {
					if e := z.Extra(); e != 0 {
						z.SetExtra(uint32(len(*extras)))
						*extras = append(*extras, t.ZoneExtras[e])
					}
				}
				nl.Append(z)
			}
			i += len(c)
			old.DropFront(len(c))
			nl.TakeFreeChunks(&old)
			gone += len(c)
		}
	}
	for k := range td.stack {
		td.stack[k] -= uint32(removed)
	}
	td.zones = nl
	if !remap {
		w.compacted(td, runs)
	}
}

// sortMessagesOf sorts a snapshot's messages as sortMessages sorts the
// trace's.
func sortMessagesOf(c *model.Trace, w *worker) {
	saved := w.t
	w.t = c
	w.sortMessages()
	w.t = saved
}

// flightSnapshot answers a snapshot request: the window (trimmed first,
// so the copy holds what a final save would) or the whole trace so far.
func (w *worker) flightSnapshot(reply chan<- *model.Trace) {
	if w.flight != nil {
		w.flight.noteSlow(w)
		w.flight.trim(w, w.flight.cutIndex(w), false)
	}
	select {
	case reply <- w.snapshot():
	default: // the asker gave a channel without room: it is not waiting
	}
}

// flightFinish trims to the exact window before the trace is finished, and
// numbers the frames as the client did.
func (w *worker) flightFinish() {
	if w.flight == nil {
		return
	}
	w.flight.noteSlow(w)
	w.flight.trim(w, w.flight.cutIndex(w), true)
	// A list the last trims let go from the front (and the final one did
	// not compact, having nothing to cut) is copied once to origin zero.
	for _, td := range w.threads {
		if td.zones.Shifted() {
			firstOpen := td.zones.Len()
			if len(td.stack) > 0 {
				firstOpen = int(td.stack[0])
			}
			w.flight.compactZones(w, td, firstOpen, math.MinInt64, nil, false, true)
		}
	}
	w.t.Metadata.FrameOffset += w.flight.dropped
}
