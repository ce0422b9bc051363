package synthtrace

import "github.com/gotracy/gotracy/model"

// ComparePair makes two small traces, a "before" and an "after" run of
// one program, shaped to exercise every rule of trace comparison (package
// analysis, gotracy diff, the viewer's compare view):
//
//   - update (game.cpp:10): in both, B about 18% slower (its own time,
//     render and the ticks 30%, physics unchanged);
//   - render: game.cpp:20 in A, moved to game.cpp:25 in B (pairs by file);
//   - physics: physics.cpp:5 in A, moved to sim.cpp:7 in B (pairs by name);
//   - tick twice (game.cpp:30 and game.cpp:40) in both: two locations of
//     one name, each paired by its line;
//   - fast (game.cpp:50): B about 40% faster;
//   - load only in A, net only in B;
//   - in both, a zone that never ends and a 0 ns zone, which no statistic
//     counts;
//   - frames: the default set marked at every update (40 frames, the last
//     still running at the end), a discontinuous "render pass" around each
//     render, and "gc" only in B.
//
// Durations vary with a fixed pseudo-random sequence, so means and
// medians differ; zones nest (update holds render, tick, physics) on two
// threads. The same call always returns the same traces.
func ComparePair() (a, b *model.Trace) {
	return compareRun(false), compareRun(true)
}

func compareRun(after bool) *model.Trace {
	bl := model.NewBuilder()
	loc := func(key uint64, name, file string, line uint32) model.SrcLocID {
		return bl.AddStaticSrcLoc(key, model.SourceLocation{Name: model.IdxRef(bl.Intern(name)),
			Function: model.IdxRef(bl.Intern("game::" + name)), File: model.IdxRef(bl.Intern(file)), Line: line})
	}
	update := loc(0x100, "update", "game.cpp", 10)
	renderLine, physFile, physLine := uint32(20), "physics.cpp", uint32(5)
	if after {
		renderLine, physFile, physLine = 25, "sim.cpp", 7
	}
	render := loc(0x200, "render", "game.cpp", renderLine)
	physics := loc(0x300, "physics", physFile, physLine)
	tick30 := loc(0x400, "tick", "game.cpp", 30)
	tick40 := loc(0x500, "tick", "game.cpp", 40)
	fast := loc(0x600, "fast", "game.cpp", 50)
	var only model.SrcLocID
	if after {
		only = loc(0x800, "net", "net.cpp", 9)
	} else {
		only = loc(0x700, "load", "io.cpp", 3)
	}
	seed := uint32(12345)
	if after {
		seed = 777
	}
	rnd := func(n int64) int64 { // a small LCG: the same numbers every run
		seed = seed*1664525 + 1013904223
		return int64(seed>>8) % n
	}
	slow := func(ns int64) int64 {
		if after {
			return ns * 13 / 10
		}
		return ns
	}
	main := bl.Thread(1)
	bl.SetThreadName(1, "main")
	worker := bl.Thread(2)
	bl.SetThreadName(2, "worker")
	const renderPass, gc = 0x9000, 0x9100
	bl.SetPtrString(renderPass, "render pass")
	bl.SetPtrString(gc, "gc")
	t := int64(1_000)
	for frame := 0; frame < 40; frame++ {
		start := t
		bl.FrameMark(0, t)
		bl.BeginZone(main, t, update)
		t += 1_000
		rd := slow(200_000 + rnd(100_000))
		bl.FrameStart(renderPass, t)
		bl.BeginZone(main, t, render)
		t += rd
		bl.EndZone(main, t)
		bl.FrameEnd(renderPass, t)
		for _, tk := range []model.SrcLocID{tick30, tick40} {
			bl.BeginZone(main, t, tk)
			t += slow(10_000 + rnd(5_000))
			bl.EndZone(main, t)
		}
		bl.BeginZone(main, t, physics)
		t += 300_000 + rnd(50_000)
		bl.EndZone(main, t)
		t += slow(400_000 + rnd(200_000))
		bl.EndZone(main, t)
		// The worker runs fast and, once in A and once in B, the one
		// location the other trace lacks.
		w := start + 5_000
		for i := 0; i < 3; i++ {
			d := 20_000 + rnd(10_000)
			if after {
				d = d * 6 / 10
			}
			bl.BeginZone(worker, w, fast)
			w += d
			bl.EndZone(worker, w)
			w += 1_000
		}
		if after && frame%8 == 0 {
			bl.FrameStart(gc, w)
			bl.FrameEnd(gc, w+3_000+int64(frame)*100) // no rnd: B's zones keep their durations
		}
		if frame%10 == 0 {
			bl.BeginZone(worker, w, only)
			w += 50_000 + rnd(10_000)
			bl.EndZone(worker, w)
		}
		t += 100_000
	}
	// Left out of every statistic: 0 ns, and never ended.
	bl.BeginZone(worker, t, fast)
	bl.EndZone(worker, t)
	bl.BeginZone(main, t+10, update)
	tr := bl.Finish()
	tr.Metadata.LastTime = t + 1_000
	return tr
}
