package viewer_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer"
)

// growingTrace builds the first frames of a game-like recording: 16 ms
// frames on a main thread (frame > update, render > batch) and a worker,
// so traces of more frames are the same recording seen later.
func growingTrace(frames int) *model.Trace {
	b := model.NewBuilder()
	loc := func(id uint64, name string, color uint32) model.SrcLocID {
		return b.AddStaticSrcLoc(id, model.SourceLocation{Name: model.IdxRef(b.Intern(name)), Function: model.IdxRef(b.Intern(name)),
			File: model.IdxRef(b.Intern("game.go")), Line: uint32(id), Color: color})
	}
	frame, update, render, batch, job := loc(1, "frame", 0), loc(2, "update", 0x3c9be6), loc(3, "render", 0xe6a23c), loc(4, "draw_batch", 0), loc(5, "job", 0x67c23a)
	b.SetThreadName(1, "main")
	b.SetThreadName(2, "worker")
	m, w := b.Thread(1), b.Thread(2)
	const ms = int64(time.Millisecond)
	for f := range frames {
		t := int64(f) * 16 * ms
		b.FrameMark(0, t)
		b.BeginZone(m, t, frame)
		b.BeginZone(m, t+ms/2, update)
		b.EndZone(m, t+5*ms)
		b.BeginZone(m, t+5*ms, render)
		for k := range 4 {
			b.BeginZone(m, t+6*ms+int64(k)*2*ms, batch)
			b.EndZone(m, t+7*ms+int64(k)*2*ms)
		}
		b.EndZone(m, t+14*ms)
		b.EndZone(m, t+15*ms)
		b.BeginZone(w, t+2*ms, job)
		b.EndZone(w, t+12*ms)
	}
	b.Observe(int64(frames) * 16 * ms)
	return b.Finish()
}

// liveSource is a viewer.LiveSource the test advances.
type liveSource struct {
	st atomic.Pointer[viewer.LiveState]
}

func (s *liveSource) publish(t *model.Trace, final bool) {
	gen := uint64(1)
	if o := s.st.Load(); o != nil {
		gen = o.Gen + 1
	}
	status := "capturing"
	if final {
		status = "capture ended: client exited"
	}
	s.st.Store(&viewer.LiveState{Trace: t, Gen: gen, Final: final, Status: status, Zones: uint64(t.ZoneCount()), Published: time.Now()})
}

func (s *liveSource) get() viewer.LiveState {
	if st := s.st.Load(); st != nil {
		return *st
	}
	return viewer.LiveState{Status: "connecting to 127.0.0.1:8086"}
}

// TestBrowserLive: the live page follows a growing trace, pauses when the
// user scrolls back, resumes with the Follow button and with F, saves
// with the Save button, and shows the waiting state before the client.
func TestBrowserLive(t *testing.T) {
	var src liveSource
	var saves atomic.Int64
	l, err := viewer.NewLive(src.get, func(ctx context.Context, tr *model.Trace) (string, error) {
		saves.Add(1)
		return fmt.Sprintf("/tmp/live-%d.tracy", tr.ZoneCount()), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowserHandler(t, l.Handler(), "live", 1280, 720, 1)

	// Before the client: the page waits, then boots when a trace comes.
	b.run("open", chromedp.Navigate(b.base))
	b.waitFor("the waiting notice", `(document.querySelector("#boot") || {}).textContent?.includes("Waiting for the client to connect… (connecting to 127.0.0.1:8086)")`)
	b.shot("waiting")
	src.publish(growingTrace(60), false)
	b.waitFor("the page booted", `!!(window.__gotracy && window.__gotracy.live)`)
	b.waitDrawn()
	var st struct {
		Following bool
		T0, T1    float64
		First     float64
		Last      float64
		Badge     bool
		Button    string
	}
	state := func() {
		b.eval(`(() => { const t = __gotracy.timeline, l = __gotracy.live; return {following: l.following, t0: t.t0, t1: t.t1, first: t.first, last: t.last,
			badge: !document.querySelector("#live").hidden, button: document.querySelector("#live-follow").textContent} })()`, &st)
	}
	state()
	if !st.Following || !st.Badge || st.T1 < st.Last {
		t.Fatalf("a fresh live page: %+v, want following with the end in view", st)
	}

	// The trace grows: the view follows its end.
	tr2 := growingTrace(240)
	src.publish(tr2, false)
	last2 := float64(tr2.Metadata.LastTime)
	b.waitFor("the timeline to follow the new end", fmt.Sprintf(`__gotracy.timeline.last === %v && __gotracy.timeline.t1 >= %v`, last2, last2))
	b.waitDrawn()
	b.waitFor("the zone count in the title bar", `document.querySelector("#trace-facts").textContent.includes("1,920 zones")`)
	b.shot("following")

	// The user pans back (A): following pauses, the view stays put while
	// the trace grows further.
	b.eval(`document.querySelector("canvas.timeline").focus()`, nil)
	for range 12 {
		b.key("a")
	}
	state()
	if st.Following || st.Button != "Follow (F)" {
		t.Fatalf("after scrolling back: %+v, want paused", st)
	}
	paused := st
	tr3 := growingTrace(300)
	src.publish(tr3, false)
	last3 := float64(tr3.Metadata.LastTime)
	b.waitFor("the new end while paused", fmt.Sprintf(`__gotracy.timeline.last === %v`, last3))
	b.waitDrawn()
	state()
	if st.Following || st.T0 != paused.T0 || st.T1 != paused.T1 {
		t.Fatalf("paused view moved: %+v, was %+v", st, paused)
	}
	b.shot("paused")

	// The Follow button resumes.
	clickOn(b, "#live-follow")
	b.waitFor("following again", fmt.Sprintf(`__gotracy.live.following && __gotracy.timeline.t1 >= %v`, last3))
	b.waitDrawn()
	b.shot("resumed")

	// Pause again by zooming elsewhere, then F resumes.
	for range 8 {
		b.key("a")
	}
	b.waitFor("paused", `!__gotracy.live.following`)
	b.key("f")
	b.waitFor("F resumes", fmt.Sprintf(`__gotracy.live.following && __gotracy.timeline.t1 >= %v`, last3))

	// Save writes through the server's SaveFunc and says where.
	clickOn(b, "#live-save")
	b.waitFor("the saved notice", fmt.Sprintf(`document.querySelector("#toast").textContent.includes("Saved /tmp/live-%d.tracy")`, tr3.ZoneCount()))
	if saves.Load() != 1 {
		t.Errorf("%d saves, want 1", saves.Load())
	}

	// Statistics update with the trace.
	b.nav("#statistics")
	b.waitFor("statistics of 300 frames", `[...document.querySelectorAll("#view-statistics td")].some(td => td.dataset.v === "300")`)
	tr4 := growingTrace(360)
	src.publish(tr4, true)
	b.waitFor("statistics of 360 frames", `[...document.querySelectorAll("#view-statistics td")].some(td => td.dataset.v === "360")`)
	b.waitFor("the ended badge", `document.querySelector("#live").classList.contains("ended") && document.querySelector("#live-status").textContent.includes("client exited") && document.querySelector("#live-follow").hidden`)
	b.shot("statistics-ended")
	b.nav("#timeline")
	b.waitDrawn()
	b.shot("ended")
}

// clickOn clicks the middle of the element sel with the mouse.
func clickOn(b *browser, sel string) {
	b.tb.Helper()
	var r struct{ X, Y float64 }
	b.eval(fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2} })()`, sel), &r)
	b.click(r.X, r.Y)
}
