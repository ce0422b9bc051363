package viewer_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
)

// gameTrace is a trace the browser tests build in-process, so they run in
// a clone without the shared fixtures: a main thread with frames of nested
// zones (update with a burst of tiny particle zones that must merge when
// zoomed out, render with draw batches), two workers with coloured job
// zones carrying text, a lock they contend for, messages, a plot, a frame
// image per frame and the source file the zones point into.
type gameTrace struct {
	t         *model.Trace
	durations map[string][]int64 // zone durations by source location name, as built
	known     knownZone          // a render zone of frame 5, for click tests
	job       knownZone          // a coloured worker job, for pixel tests
	gpu       knownZone          // a GPU zone of frame 5 (thread = context)
	worker1   int                // thread index of worker-1, which waits for the lock
	frames    int
	imgW      int
	imgH      int
}

type knownZone struct {
	name       string
	thread     int // index in Trace.Threads
	index      int // index in the thread's ZoneList
	depth      int
	start, end int64
	color      uint32 // 0xRRGGBB the page must draw (0 = hashed)
}

const gameSource = `package game

// The frame loop.
func frame() {
	update()
	render()
}

func update() {
	for i := range particles {
		particle(i)
	}
}

func render() {
	for b := range batches {
		drawBatch(b)
	}
}

func job(w int) {
	kernel()
}
`

func buildGameTrace(tb testing.TB) *gameTrace {
	tb.Helper()
	b := model.NewBuilder()
	t := b.Trace()
	t.Metadata.Resolution = 10
	t.Metadata.TimerMul = 1
	t.Metadata.CaptureProgram = "game"
	t.Metadata.CaptureName = "game @ browser test"
	g := &gameTrace{t: t, durations: map[string][]int64{}, frames: 24, imgW: 128, imgH: 72}
	file := model.IdxRef(b.Intern("game.go"))
	loc := func(key uint64, name, fn string, line uint32, color uint32) model.SrcLocID {
		return b.AddStaticSrcLoc(key, model.SourceLocation{Name: model.IdxRef(b.Intern(name)), Function: model.IdxRef(b.Intern(fn)), File: file, Line: line, Color: color})
	}
	// Colours are 0x00BBGGRR in the trace.
	lFrame := loc(1, "frame", "game.frame", 4, 0)
	lUpdate := loc(2, "update", "game.update", 9, 0)
	lParticle := loc(3, "particle", "game.particle", 11, 0)
	lRender := loc(4, "render", "game.render", 15, 0)
	lBatch := loc(5, "draw_batch", "game.drawBatch", 17, 0)
	lJob := loc(6, "job", "game.job", 21, 0x30A0F0) // RGB F0A030
	lKernel := loc(7, "kernel", "game.kernel", 22, 0)
	lGPU := loc(8, "gpu_draw", "game.render", 16, 0x40C040)
	lShadow := loc(9, "gpu_shadow", "game.render", 16, 0)
	var gz []model.GpuZone
	issuer := b.LocalThread(100)

	mainTh := b.Thread(100)
	b.SetThreadName(100, "main")
	w0 := b.Thread(101)
	b.SetThreadName(101, "worker-0")
	w1 := b.Thread(102)
	g.worker1 = w1
	b.SetThreadName(102, "worker-1")
	b.SetPtrString(0x9000, "queue depth")
	b.PlotConfig(0x9000, model.PlotFormatNumber, false, true, 0)
	b.SetPtrString(0x9100, "Physics")
	b.FrameSet(0x9100, false)
	b.LockAnnounce(1, lJob, model.LockLockable, 1000)
	b.LockName(1, "assets")

	zone := func(th int, name string, s, e int64, sl model.SrcLocID) int {
		idx := b.BeginZone(th, s, sl)
		g.durations[name] = append(g.durations[name], 0)
		_ = idx
		return idx
	}
	end := func(th int, name string, idx int, s, e int64) {
		b.EndZone(th, e)
		d := g.durations[name]
		d[len(d)-1] = e - s
	}
	t0 := int64(1_000_000)
	frameStart := t0
	var starts []int64
	for f := range g.frames {
		dur := int64(16_600_000)
		switch {
		case f%7 == 3:
			dur = 29_000_000
		case f == 11:
			dur = 41_000_000
		case f%5 == 1:
			dur = 7_000_000
		}
		fs := frameStart
		starts = append(starts, fs)
		b.FrameMark(0, fs)
		fz := zone(mainTh, "frame", fs, fs+dur-400_000, lFrame)
		us := fs + 100_000
		ue := us + dur*2/5
		uz := zone(mainTh, "update", us, ue, lUpdate)
		// 400 particles of 1 µs, 1 µs apart: far below a pixel at frame scale.
		for i := range 400 {
			ps := us + 50_000 + int64(i)*2_000
			pz := zone(mainTh, "particle", ps, ps+1_000, lParticle)
			end(mainTh, "particle", pz, ps, ps+1_000)
		}
		end(mainTh, "update", uz, us, ue)
		// A discontinuous frame set: the physics step inside update.
		b.FrameStart(0x9100, us+900_000)
		b.FrameEnd(0x9100, ue-100_000)
		rs := ue + 200_000
		re := fs + dur - 600_000
		rz := zone(mainTh, "render", rs, re, lRender)
		if f == 5 {
			g.known = knownZone{name: "render", thread: mainTh, index: rz, depth: 1, start: rs, end: re}
		}
		bl := (re - rs - 100_000) / 4
		for k := range 4 {
			bs := rs + 50_000 + int64(k)*bl
			bz := zone(mainTh, "draw_batch", bs, bs+bl-80_000, lBatch)
			end(mainTh, "draw_batch", bz, bs, bs+bl-80_000)
		}
		end(mainTh, "render", rz, rs, re)
		end(mainTh, "frame", fz, fs, fs+dur-400_000)
		b.AddMessage(100, model.Message{Time: fs + 50_000, Text: model.IdxRef(b.Intern(fmt.Sprintf("frame %d begins", f))), Color: 0xFFFFFFFF})
		if f%6 == 0 {
			b.AddMessage(101, model.Message{Time: fs + 900_000, Text: model.IdxRef(b.Intern("worker-0 loaded assets")), Color: 0xFF40C0FF})
		}
		// Workers: one job each, worker-1 waiting for the lock worker-0 holds.
		for w, th := range []int{w0, w1} {
			js := fs + 300_000 + int64(w)*500_000
			je := js + dur/2
			jz := zone(th, "job", js, je, lJob)
			b.SetZoneText(th, jz, fmt.Sprintf("job %d of worker %d", f, w))
			if w == 0 && f == 5 {
				// Its call stack: an inlined kernel call inside job, called from main.
				cs := b.InternCallStack([]uint64{0x401000, 0x402000})
				t.Frames[0x401000] = model.FrameData{ImageName: b.Intern("game"), Frames: []model.InlineFrame{
					{Name: b.Intern("game.kernel"), File: b.Intern("game.go"), Line: 22, SymAddr: 0x400f00},
					{Name: b.Intern("game.job"), File: b.Intern("game.go"), Line: 21, SymAddr: 0x400f00}}}
				t.Frames[0x402000] = model.FrameData{ImageName: b.Intern("game"), Frames: []model.InlineFrame{
					{Name: b.Intern("main.main"), File: b.Intern("main.go"), Line: 9, SymAddr: 0x400100}}}
				b.SetZoneCallStack(th, jz, cs)
				g.job = knownZone{name: "job", thread: th, index: jz, depth: 0, start: js, end: je, color: 0xF0A030}
			}
			for k := range 3 {
				ks := js + 100_000 + int64(k)*(dur/7)
				ke := ks + dur/9
				kz := zone(th, "kernel", ks, ke, lKernel)
				end(th, "kernel", kz, ks, ke)
			}
			end(th, "job", jz, js, je)
		}
		// The GPU runs the frame's draws a little later: a draw with a
		// shadow pass nested in it.
		gs, ge := re-dur/5, re+dur/4
		if f == 5 {
			g.gpu = knownZone{name: "gpu_draw", thread: 0, index: len(gz), depth: 0, start: gs, end: ge, color: 0x40C040}
		}
		n := uint32(len(gz))
		gz = append(gz, model.GpuZone{CPUStart: rs, CPUEnd: re, GPUStart: gs, GPUEnd: ge, SrcLoc: lGPU, Thread: issuer, Next: n + 2},
			model.GpuZone{CPUStart: rs, CPUEnd: re, GPUStart: gs + 100_000, GPUEnd: gs + (ge-gs)/2, SrcLoc: lShadow, Thread: issuer, Next: n + 2})
		ls := fs + 400_000
		b.LockEvent(1, 101, ls, model.LockWait, lJob)
		b.LockEvent(1, 101, ls+10_000, model.LockObtain, lJob)
		b.LockEvent(1, 102, ls+200_000, model.LockWait, lJob)
		b.LockEvent(1, 101, ls+1_500_000, model.LockRelease, lJob)
		b.LockEvent(1, 102, ls+1_510_000, model.LockObtain, lJob)
		b.LockEvent(1, 102, ls+2_300_000, model.LockRelease, lJob)
		for k := range 8 {
			b.PlotPoint(0x9000, fs+int64(k)*dur/8, float64((f*7+k*3)%17))
		}
		frameStart += dur
	}
	b.FrameMark(0, frameStart)
	b.Observe(frameStart + 1_000_000)
	// One image per frame: a gradient that moves with the frame, so each
	// frame's picture is different and checkable.
	for f := range g.frames {
		rgba := g.imageRGBA(f)
		dxt, err := texture.AppendDXT1(nil, rgba, g.imgW, g.imgH, false)
		if err != nil {
			tb.Fatalf("DXT1: %v", err)
		}
		b.AddFrameImage(model.FrameImage{W: uint16(g.imgW), H: uint16(g.imgH), Data: dxt}, f)
	}
	t.GpuContexts = []model.GpuContext{{Thread: 100, Calibrated: true, Count: uint64(len(gz)), Period: 1, Type: model.GpuVulkan, Name: b.Intern("Vulkan queue"),
		Timelines: []model.GpuTimeline{{Thread: 100, Zones: gz}}}}
	t.SourceCache = []model.SourceFile{{Name: "game.go", Data: []byte(gameSource)}}
	g.t = b.Finish()
	return g
}

func (g *gameTrace) imageRGBA(f int) []byte {
	rgba := make([]byte, g.imgW*g.imgH*4)
	for y := range g.imgH {
		for x := range g.imgW {
			p := rgba[(y*g.imgW+x)*4:]
			p[0] = byte(x*2 + f*8)
			p[1] = byte(y*3 + f*4)
			p[2] = byte(160 - x)
			p[3] = 255
		}
	}
	return rgba
}

// stats is what the statistics table must show for name, computed from
// the durations the builder was given (not by package analysis).
type wantStats struct {
	count                 int
	total, min, max, mean int64
	median                float64
}

func (g *gameTrace) stats(name string) wantStats {
	d := slices.Clone(g.durations[name])
	slices.Sort(d)
	var s wantStats
	s.count = len(d)
	s.min, s.max = d[0], d[len(d)-1]
	for _, v := range d {
		s.total += v
	}
	s.mean = s.total / int64(len(d))
	if len(d)%2 == 1 {
		s.median = float64(d[len(d)/2])
	} else {
		s.median = float64(d[len(d)/2-1]+d[len(d)/2]) / 2
	}
	return s
}
