package capture

import (
	"cmp"
	"slices"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/texture"
)

// ---- Frames ----

// frameSet returns the frame set named key, creating it (and asking for its
// name) on first sight. Like Tracy's StringDiscovery, a set only joins the
// trace's list when its name arrives, because sets whose names turn out to
// be the same text are merged then.
func (w *worker) frameSet(key uint64, continuous, create bool) *model.FrameSet {
	if i, ok := w.frameSets[key]; ok {
		return &w.t.FrameSets[i]
	}
	if fs := w.framePending[key]; fs != nil {
		return fs
	}
	if !create {
		w.q.push(qFrameName, key, 0)
		return nil
	}
	fs := &model.FrameSet{Name: key, Continuous: continuous}
	w.framePending[key] = fs
	w.q.push(qFrameName, key, 0)
	return fs
}

func (w *worker) frameNameAnswer(key uint64, b []byte) {
	id := w.storeString(b)
	if _, ok := w.t.PtrStrings[key]; !ok {
		w.t.PtrStrings[key] = id
	}
	fs := w.framePending[key]
	if fs == nil {
		return
	}
	delete(w.framePending, key)
	if i, ok := w.frameByName[id]; ok {
		dst := &w.t.FrameSets[i]
		dst.Frames = append(dst.Frames, fs.Frames...)
		slices.SortStableFunc(dst.Frames, func(a, b model.Frame) int { return cmp.Compare(a.Start, b.Start) })
		w.frameSets[key] = i
		return
	}
	i := len(w.t.FrameSets)
	w.t.FrameSets = append(w.t.FrameSets, *fs)
	w.frameSets[key] = i
	w.frameByName[id] = i
}

func (w *worker) frameMark(tick int64, key uint64) {
	fs := w.frameSet(key, true, true)
	img := int32(-1)
	if key == 0 {
		if i, ok := w.imageStaging[int64(len(fs.Frames))]; ok {
			img = i
			delete(w.imageStaging, int64(len(fs.Frames)))
		}
	}
	t := w.tscTime(tick)
	fs.Frames = append(fs.Frames, model.Frame{Start: t, End: -1, Image: img})
	w.setLast(t)
}

func (w *worker) frameMarkStart(tick int64, key uint64) {
	fs := w.frameSet(key, false, true)
	t := w.tscTime(tick)
	fs.Frames = append(fs.Frames, model.Frame{Start: t, End: -1, Image: -1})
	w.setLast(t)
}

func (w *worker) frameMarkEnd(tick int64, key uint64) {
	fs := w.frameSet(key, false, false)
	if fs == nil || len(fs.Frames) == 0 {
		if !w.ignoreFrameEnd {
			w.failf(failFrameEnd, 0, "")
		}
		return
	}
	t := w.tscTime(tick)
	fs.Frames[len(fs.Frames)-1].End = t
	w.setLast(t)
}

// frameVsync appends to the set of a vsync id. These sets have no name to
// ask for; Tracy names them by a counter with the top bit set.
func (w *worker) frameVsync(tick int64, id uint32) {
	i, ok := w.vsync[id]
	if !ok {
		i = len(w.t.FrameSets)
		w.t.FrameSets = append(w.t.FrameSets, model.FrameSet{Name: uint64(len(w.vsync)) | 1<<63, Continuous: true})
		w.vsync[id] = i
	}
	t := w.tscTime(tick)
	fs := &w.t.FrameSets[i]
	fs.Frames = append(fs.Frames, model.Frame{Start: t, End: -1, Image: -1})
	w.setLast(t)
}

// frameImageData stages a frame image's DXT1 blocks for the FrameImage
// that follows (p is the stream's buffer, so it is copied).
func (w *worker) frameImageData(p []byte) {
	w.imgStage = append(w.imgStage[:0], p...)
	w.pendingImage = true
}

// frameImage attaches the staged image to a frame of the base set. The
// client numbers frames since its start; an on-demand client's first
// frames before the connection are not in the trace.
func (w *worker) frameImage(frame uint32, width, height uint16, flip uint8) {
	if !w.pendingImage {
		return
	}
	w.pendingImage = false
	base := &w.t.FrameSets[0]
	fidx := int64(frame) - int64(w.frameOffset) + 1
	if w.onDemand && fidx <= 1 {
		return
	}
	if fidx <= 0 {
		w.failf(failFrameImageIndex, 0, "")
		return
	}
	if texture.CheckSize(w.imgStage, int(width), int(height)) != nil {
		// The blocks do not cover the stated size; a saved trace would be
		// unreadable. Tracy's server would store it anyway (and crash
		// later); the image is dropped instead.
		w.badImages++
		return
	}
	// The staged blocks become the image (prepared in place; images.go
	// packs it on another goroutine); the next image stages into a new
	// buffer.
	data := w.imgStage
	w.imgStage = nil
	texture.Prepare(data)
	idx := w.storeImage(data, width, height, flip != 0)
	if fidx >= int64(len(base.Frames)) {
		if _, dup := w.imageStaging[fidx]; dup {
			w.failf(failFrameImageTwice, 0, "")
			return
		}
		w.imageStaging[fidx] = idx
	} else if base.Frames[fidx].Image >= 0 {
		w.failf(failFrameImageTwice, 0, "")
	} else {
		base.Frames[fidx].Image = idx
	}
}

// ---- Messages ----

func (w *worker) message(tick int64, text model.StringRef, col uint32, meta uint8, withCS bool) {
	td := w.currentThread()
	t := w.tscTime(tick)
	msg := model.Message{
		Time:     t,
		Text:     text,
		Color:    col,
		Thread:   w.localThread(td.id),
		Source:   meta & 0xF,
		Severity: meta >> 4 & 0xF,
	}
	if withCS {
		msg.CallStack = td.nextCS
		td.nextCS = 0
	}
	w.setLast(t)
	if n := len(w.t.Messages); n > 0 && w.t.Messages[n-1].Time >= t {
		w.msgUnsorted = true
	}
	th := &w.t.Threads[td.idx]
	th.Messages = append(th.Messages, uint32(len(w.t.Messages)))
	w.t.Messages = append(w.t.Messages, msg)
}

// sortMessages restores time order. Tracy inserts an out-of-order message
// before every message of the same or a later time, so among equal times
// the later arrival comes first; the per-thread lists are rebuilt after.
func (w *worker) sortMessages() {
	ms := w.t.Messages
	order := make([]int, len(ms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(ms[a].Time, ms[b].Time); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	sorted := make([]model.Message, len(ms))
	for i, o := range order {
		sorted[i] = ms[o]
	}
	w.t.Messages = sorted
	for i := range w.t.Threads {
		w.t.Threads[i].Messages = w.t.Threads[i].Messages[:0]
	}
	for i := range sorted {
		id := w.t.LocalThread(sorted[i].Thread)
		if td := w.threads[id]; td != nil {
			th := &w.t.Threads[td.idx]
			th.Messages = append(th.Messages, uint32(i))
		}
	}
}

// ---- Plots ----

// plot returns the user plot named key; see frameSet for why a new plot
// waits for its name before it joins the trace.
func (w *worker) plot(key uint64, fromData bool) *model.Plot {
	if i, ok := w.plots[key]; ok {
		return &w.t.Plots[i]
	}
	if p := w.plotPending[key]; p != nil {
		return p
	}
	p := &model.Plot{Name: key, Type: model.PlotUser}
	if fromData {
		p.Format = model.PlotFormatNumber
		p.Fill = true
	}
	w.plotPending[key] = p
	w.q.push(qPlotName, key, 0)
	return p
}

func (w *worker) plotNameAnswer(key uint64, b []byte) {
	id := w.storeString(b)
	if _, ok := w.t.PtrStrings[key]; !ok {
		w.t.PtrStrings[key] = id
	}
	p := w.plotPending[key]
	if p == nil {
		return
	}
	delete(w.plotPending, key)
	if i, ok := w.plotByName[id]; ok {
		dst := &w.t.Plots[i]
		for _, pt := range p.Points {
			insertPlot(dst, pt.Time, pt.Value)
		}
		slices.SortStableFunc(dst.Points, func(a, b model.PlotPoint) int { return cmp.Compare(a.Time, b.Time) })
		w.plots[key] = i
		return
	}
	i := len(w.t.Plots)
	w.t.Plots = append(w.t.Plots, *p)
	w.plots[key] = i
	w.plotByName[id] = i
}

func insertPlot(p *model.Plot, t int64, v float64) {
	if len(p.Points) == 0 {
		p.Min, p.Max, p.Sum = v, v, v
	} else {
		if p.Min > v {
			p.Min = v
		} else if p.Max < v {
			p.Max = v
		}
		p.Sum += v
	}
	p.Points = append(p.Points, model.PlotPoint{Time: t, Value: v})
}

func (w *worker) plotData(key uint64, tick int64, v float64) {
	p := w.plot(key, true)
	t := w.tscTime(tick)
	w.setLast(t)
	insertPlot(p, t, v)
}

func (w *worker) plotConfig(key uint64, typ, step, fill uint8, col uint32) {
	p := w.plot(key, false)
	p.Format = typ
	p.ShowSteps = step != 0
	p.Fill = fill != 0
	p.Color = col & 0xFFFFFF
}

// sysTime adds a point to the CPU-usage plot, which the server creates on
// the first report.
func (w *worker) sysTime(tick int64, v float64) {
	t := w.tscTime(tick)
	w.setLast(t)
	if w.sysTimePlot < 0 {
		w.sysTimePlot = len(w.t.Plots)
		w.t.Plots = append(w.t.Plots, model.Plot{Name: 0, Type: model.PlotSysTime, Format: model.PlotFormatPercentage, Fill: true})
	}
	insertPlot(&w.t.Plots[w.sysTimePlot], t, v)
}

// sysPower adds a point to the power plot of a domain: the energy since
// the domain's previous report (microjoules) over the time between them.
// The first report of a domain only creates the plot.
func (w *worker) sysPower(tick int64, microjoules, name uint64) {
	t := w.tscTime(tick)
	p, ok := w.power[name]
	if !ok {
		w.checkString(name)
		w.power[name] = &powerDomain{plot: len(w.t.Plots), last: t}
		w.t.Plots = append(w.t.Plots, model.Plot{Name: name, Type: model.PlotPower, Format: model.PlotFormatWatt, Fill: true})
		return
	}
	dt := t - p.last
	p.last = t
	w.setLast(t)
	insertPlot(&w.t.Plots[p.plot], t, float64(microjoules)*1000/float64(dt))
}

type powerDomain struct {
	plot int
	last int64
}

// ---- Memory ----

// pool returns the memory pool of a memory event: the named pool of the
// pending MemNamePayload for the *Named variants, the default pool
// otherwise.
func (w *worker) pool(named bool) *memPool {
	var name uint64
	if named {
		name = w.memNamePay
		w.memNamePay, w.hasMemNamePay = 0, false
	}
	mp := w.memPools[name]
	if mp == nil {
		w.checkString(name)
		mp = &memPool{idx: len(w.t.MemPools), active: map[uint64]uint32{}}
		w.t.MemPools = append(w.t.MemPools, model.MemPool{Name: name, Low: ^uint64(0)})
		w.memPools[name] = mp
	}
	return mp
}

func isNamedMem(t protocol.QueueType) bool {
	switch t {
	case protocol.MemAllocNamed, protocol.MemAllocCallstackNamed, protocol.MemFreeNamed, protocol.MemFreeCallstackNamed:
		return true
	}
	return false
}

func isCallstackMem(t protocol.QueueType) bool {
	switch t {
	case protocol.MemAllocCallstack, protocol.MemAllocCallstackNamed, protocol.MemFreeCallstack, protocol.MemFreeCallstackNamed:
		return true
	}
	return false
}

func (w *worker) memAlloc(typ protocol.QueueType, tick int64, thread, ptr, size uint64) {
	mp := w.pool(isNamedMem(typ))
	cs := uint32(0)
	if isCallstackMem(typ) {
		cs = w.serialNextCS
		w.serialNextCS = 0
	}
	t := w.tscTime(tick)
	w.setLast(t)
	w.noticeThread(thread)
	lt := w.localThread(thread)
	pool := &w.t.MemPools[mp.idx]
	if i, ok := mp.active[ptr]; ok {
		if !w.ignoreMemAlloc {
			w.failf(failMemAllocTwice, thread, "")
			return
		}
		ev := &pool.Events[i]
		ev.TimeFree, ev.ThreadFree = t, lt
		pool.Usage -= ev.Size
		delete(mp.active, ptr)
	}
	mp.active[ptr] = uint32(len(pool.Events))
	pool.Events = append(pool.Events, model.MemEvent{Ptr: ptr, Size: size, TimeAlloc: t, TimeFree: -1, CSAlloc: cs, ThreadAlloc: lt})
	pool.Low = min(pool.Low, ptr)
	pool.High = max(pool.High, ptr+size)
	pool.Usage += size
}

func (w *worker) memFree(typ protocol.QueueType, tick int64, thread, ptr uint64) {
	mp := w.pool(isNamedMem(typ))
	cs := uint32(0)
	if isCallstackMem(typ) {
		cs = w.serialNextCS
		w.serialNextCS = 0
	}
	i, ok := mp.active[ptr]
	if !ok {
		if ptr == 0 {
			return
		}
		if !w.ignoreMemFree {
			w.checkThreadName(thread)
			w.failf(failMemFree, thread, "")
		}
		return
	}
	t := w.tscTime(tick)
	w.setLast(t)
	w.noticeThread(thread)
	pool := &w.t.MemPools[mp.idx]
	ev := &pool.Events[i]
	ev.TimeFree, ev.ThreadFree, ev.CSFree = t, w.localThread(thread), cs
	pool.Usage -= ev.Size
	delete(mp.active, ptr)
}

// memDiscard frees every live allocation of a named pool. An unknown pool
// is ignored entirely, its time delta included, as in Tracy's server.
func (w *worker) memDiscard(withCS bool, delta int64, thread, name uint64) {
	cs := uint32(0)
	if withCS {
		cs = w.serialNextCS
		w.serialNextCS = 0
	}
	mp := w.memPools[name]
	if mp == nil {
		return
	}
	w.refs.Serial += delta
	t := w.tscTime(w.refs.Serial)
	w.setLast(t)
	w.noticeThread(thread)
	lt := w.localThread(thread)
	pool := &w.t.MemPools[mp.idx]
	for _, i := range mp.active {
		ev := &pool.Events[i]
		ev.TimeFree, ev.ThreadFree, ev.CSFree = t, lt, cs
		pool.Usage -= ev.Size
	}
	clear(mp.active)
}

// ---- Locks ----

func (w *worker) lockAnnounce(id uint32, tick int64, lckloc uint64, typ uint8) {
	if _, dup := w.locks[id]; dup {
		return
	}
	sl := w.shrinkSourceLocation(lckloc)
	w.locks[id] = &lockState{idx: len(w.t.Locks), threadMap: map[uint64]uint8{}}
	w.t.Locks = append(w.t.Locks, model.Lock{ID: id, SrcLoc: sl, Type: typ, Valid: true, TimeAnnounce: w.tscTime(tick)})
	w.checkSourceLocation(lckloc)
}

const maxLockThreads = 64

func (w *worker) lockEvent(typ protocol.QueueType, id uint32, thread uint64, tick int64) {
	l := w.locks[id]
	if l == nil {
		return
	}
	var et uint8
	switch typ {
	case protocol.LockWait:
		et = model.LockWait
	case protocol.LockObtain:
		et = model.LockObtain
	case protocol.LockRelease:
		et = model.LockRelease
		thread = l.lockingThread
	case protocol.LockSharedWait:
		et = model.LockWaitShared
	case protocol.LockSharedObtain:
		et = model.LockObtainShared
	case protocol.LockSharedRelease:
		et = model.LockReleaseShared
	}
	t := w.tscTime(tick)
	w.setLast(t)
	w.noticeThread(thread)
	lk := &w.t.Locks[l.idx]
	ti, ok := l.threadMap[thread]
	if !ok {
		if len(lk.Threads) >= maxLockThreads {
			return
		}
		ti = uint8(len(lk.Threads))
		l.threadMap[thread] = ti
		lk.Threads = append(lk.Threads, thread)
	}
	lk.Events = append(lk.Events, model.LockEvent{Time: t, Thread: ti, Type: et})
	if typ == protocol.LockObtain {
		l.lockingThread = thread
	}
}

// lockMark attaches a source location to the thread's latest wait or
// obtain on the lock.
func (w *worker) lockMark(thread uint64, id uint32, srcloc uint64) {
	w.checkSourceLocation(srcloc)
	l := w.locks[id]
	if l == nil {
		return
	}
	ti, ok := l.threadMap[thread]
	if !ok {
		return
	}
	evs := w.t.Locks[l.idx].Events
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Thread != ti {
			continue
		}
		switch evs[i].Type {
		case model.LockObtain, model.LockObtainShared, model.LockWait, model.LockWaitShared:
			evs[i].SrcLoc = w.shrinkSourceLocation(srcloc)
			return
		}
	}
}

// ---- Miscellany ----

func (w *worker) crashReport(tick int64, text uint64) {
	w.checkString(text)
	td := w.currentThread()
	w.t.Crash = model.Crash{Thread: td.id, Time: w.tscTime(tick), Message: text, CallStack: td.nextCS}
	td.nextCS = 0
}

func (w *worker) cpuTopology(pkg, die, core, thread uint32) {
	t := w.t
	pi := slices.IndexFunc(t.Topology, func(p model.CPUPackage) bool { return p.ID == pkg })
	if pi < 0 {
		pi = len(t.Topology)
		t.Topology = append(t.Topology, model.CPUPackage{ID: pkg})
	}
	p := &t.Topology[pi]
	di := slices.IndexFunc(p.Dies, func(d model.CPUDie) bool { return d.ID == die })
	if di < 0 {
		di = len(p.Dies)
		p.Dies = append(p.Dies, model.CPUDie{ID: die})
	}
	d := &p.Dies[di]
	ci := slices.IndexFunc(d.Cores, func(c model.CPUCore) bool { return c.ID == core })
	if ci < 0 {
		ci = len(d.Cores)
		d.Cores = append(d.Cores, model.CPUCore{ID: core})
	}
	d.Cores[ci].Threads = append(d.Cores[ci].Threads, thread)
}

func (w *worker) sectionSetup(category uint16) {
	text := w.takeSingle()
	for i := range w.t.SectionDescs {
		if w.t.SectionDescs[i].Category == category {
			w.t.SectionDescs[i].Text = text
			return
		}
	}
	w.t.SectionDescs = append(w.t.SectionDescs, model.SectionDesc{Category: category, Text: text})
}

type sectionRef struct {
	category uint16
	index    int   // index in the category's items; -1 while only the leave is known
	leave    int64 // leave time that came before the enter
}

func (w *worker) sectionCategory(category uint16) *model.SectionCategory {
	for i := range w.t.Sections {
		if w.t.Sections[i].Category == category {
			return &w.t.Sections[i]
		}
	}
	w.t.Sections = append(w.t.Sections, model.SectionCategory{Category: category})
	return &w.t.Sections[len(w.t.Sections)-1]
}

func (w *worker) sectionEnter(tick int64, id uint32, category uint16) {
	t := w.tscTime(tick)
	w.setLast(t)
	text := w.takeSingle()
	if w.sections == nil {
		w.sections = map[uint32]sectionRef{}
	}
	sc := w.sectionCategory(category)
	if r, ok := w.sections[id]; ok && r.index < 0 {
		// The leave arrived first (sections may cross threads).
		delete(w.sections, id)
		sc.Items = append(sc.Items, model.SectionItem{Start: t, End: r.leave, Text: text})
	} else {
		w.sections[id] = sectionRef{category: category, index: len(sc.Items)}
		sc.Items = append(sc.Items, model.SectionItem{Start: t, End: -int64(id), Text: text})
	}
	if !slices.ContainsFunc(w.t.SectionDescs, func(d model.SectionDesc) bool { return d.Category == category }) {
		w.t.SectionDescs = append(w.t.SectionDescs, model.SectionDesc{Category: category})
	}
}

func (w *worker) sectionLeave(tick int64, id uint32) {
	t := w.tscTime(tick)
	w.setLast(t)
	if w.sections == nil {
		w.sections = map[uint32]sectionRef{}
	}
	r, ok := w.sections[id]
	if !ok {
		w.sections[id] = sectionRef{index: -1, leave: t}
		return
	}
	if r.index < 0 {
		return
	}
	delete(w.sections, id)
	sc := w.sectionCategory(r.category)
	if r.index < len(sc.Items) {
		sc.Items[r.index].End = t
	}
}

func (w *worker) fiberEnter(tick int64, fiber, thread uint64, groupHint int32) {
	t := w.tscTime(tick)
	w.setLast(t)
	ft := w.fibers[fiber]
	if ft == nil {
		tid := uint64(1)<<32 | uint64(len(w.fibers))
		ft = w.newThread(tid, true, groupHint)
		w.fibers[fiber] = ft
		if _, ok := w.t.ThreadNames[tid]; !ok {
			w.fibersPending++
			w.fiberKeys[fiber] = tid
			w.q.push(qFiberName, fiber, 0)
		}
	}
	td := w.noticeThread(thread)
	w.fiberSwitch(t, td.fiber, ft, thread)
	td.fiber = ft
}

func (w *worker) fiberLeave(tick int64, thread uint64) {
	t := w.tscTime(tick)
	w.setLast(t)
	td := w.threads[thread]
	if td == nil || td.fiber == nil {
		w.failf(failFiberLeave, thread, "")
		return
	}
	w.fiberSwitch(t, td.fiber, nil, thread)
	td.fiber = nil
}

func (w *worker) addFiberName(fiber uint64, b []byte) {
	tid, ok := w.fiberKeys[fiber]
	if !ok {
		return
	}
	delete(w.fiberKeys, fiber)
	if w.fibersPending > 0 {
		w.fibersPending--
	}
	w.t.ThreadNames[tid] = w.storeString(b)
}
