package viewer_test

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/viewer/lod"
)

// The browser tests drive the real page (viewer/ui, embedded) in headless
// Chromium through the real API, and save a screenshot of every step (the
// folder is logged; run with -v to see it). One parent test, so a machine
// without Chromium says so once.
func TestBrowser(t *testing.T) {
	startBrowserSuite(t)
	t.Run("Game", testBrowserGame)
	t.Run("Demo", testBrowserDemo)
	t.Run("HiDPI", testBrowserHiDPI)
	t.Run("Sparse", testBrowserSparse)
}

// testBrowserSparse opens a trace with almost nothing in it: no frames,
// no plots, a thread with only messages and one zone that never ended.
// Every view must open without an error, and the open zone is drawn to
// the trace's end.
func testBrowserSparse(t *testing.T) {
	bl := model.NewBuilder()
	sl := bl.AddStaticSrcLoc(1, model.SourceLocation{Name: model.IdxRef(bl.Intern("forever")), Function: model.IdxRef(bl.Intern("main.forever")), File: model.IdxRef(bl.Intern("main.go")), Line: 3})
	bl.SetThreadName(7, "lonely")
	bl.AddMessage(7, model.Message{Time: 5_000, Text: model.IdxRef(bl.Intern("hello")), Color: 0xFFFFFFFF})
	th := bl.Thread(8)
	bl.BeginZone(th, 10_000, sl)
	bl.Observe(2_000_000)
	tr := bl.Finish()
	b := newBrowser(t, tr, "sparse", 1200, 700, 1)
	b.open("")
	b.waitDrawn()
	b.shot("01-timeline")
	l := b.layout()
	x := (1_500_000 - l.T0) / (l.T1 - l.T0) * l.Width
	_, y := l.zonePoint(t, laneKey(th), 0, 0, 0)
	if p := b.pixel(x, y+4); isBackground(p) {
		t.Errorf("the zone that never ended is not drawn at %.0f,%.0f (1.5 ms, before the trace's end)", x, y+4)
	}
	for _, v := range []struct{ hash, ready string }{
		{"#statistics", `!!document.querySelector('#stats-table')`},
		{"#find", `!!document.querySelector('#view-find .empty')`},
		{"#messages", `document.querySelectorAll('#messages-table tbody tr').length === 1`},
		{"#info", `document.querySelectorAll('#view-info .card').length >= 3`},
		{"#frames", `!document.querySelector('#view-frames .empty').hidden`},
	} {
		b.nav(v.hash)
		b.waitFor(v.hash, v.ready)
		b.shot("02-" + sanitize(v.hash))
	}
}

// testBrowserHiDPI draws at a device pixel ratio of 2: the canvas has
// twice the pixels, and a zone is still where its times say.
func testBrowserHiDPI(t *testing.T) {
	g := buildGameTrace(t)
	b := newBrowser(t, g.t, "hidpi", 1200, 800, 2)
	j := g.job
	b.open(fmt.Sprintf("#timeline?t0=%d&t1=%d", j.start-1_000_000, j.end+1_000_000))
	b.waitDrawn()
	b.shot("01-timeline")
	var dims struct{ W, Cw, Dpr float64 }
	b.eval(`(() => { const t = __gotracy.timeline; return {w: t.w, cw: t.canvas.width, dpr: t.dpr} })()`, &dims)
	if dims.Dpr != 2 || dims.Cw != 2*dims.W {
		t.Errorf("at device pixel ratio 2 the canvas is %v px for %v CSS px (dpr %v), want twice", dims.Cw, dims.W, dims.Dpr)
	}
	l := b.layout()
	_, y := l.zonePoint(t, laneKey(j.thread), 0, j.start, j.end)
	x := (float64(j.start)-l.T0)/(l.T1-l.T0)*l.Width + 6
	if p := b.pixel(x, y+5); p != rgbOf(j.color) {
		t.Errorf("pixel of the job zone at (%.0f,%.0f) = %v, want %v", x, y+5, p, rgbOf(j.color))
	}
}

// testBrowserGame runs on a trace built in-process: it needs nothing
// outside the repository.
func testBrowserGame(t *testing.T) {
	g := buildGameTrace(t)
	b := newBrowser(t, g.t, "game", 1600, 1000, 1)

	// The whole trace: every lane is drawn, the particle bursts merge.
	b.open("")
	b.waitDrawn()
	b.shot("01-timeline-all")
	l := b.layout()
	if len(l.Lanes) < 5 {
		t.Fatalf("timeline lanes = %+v, want the GPU timeline, main, worker-0, worker-1 and the plot", l.Lanes)
	}
	// Every particle burst is far below a pixel per zone at this scale: each
	// is a merged run, and each run paints its pixels.
	for f := range g.frames {
		fs := g.t.FrameSets[0].Frames[f].Start
		ps, pe := particleSpan(g, g.known.thread, fs, fs+5_000_000)
		x, y := l.zonePoint(t, laneKey(g.known.thread), 2, ps, pe)
		if p := b.pixel(x, y); isBackground(p) {
			t.Errorf("frame %d: the merged particle run at (%.1f,%.0f) is not drawn (pixel %v)", f, x, y, p)
		}
	}
	// Both frame sets have a row under the ruler: a frame of each is drawn.
	for set, fr := range [][]model.Frame{g.t.FrameSets[0].Frames, g.t.FrameSets[1].Frames} {
		f := fr[len(fr)/2]
		fe := lod.FrameEnd(g.t, set, len(fr)/2)
		x := (float64(f.Start+fe)/2 - l.T0) / (l.T1 - l.T0) * l.Width
		y := 24 + float64(set)*18 + 9
		if p := b.pixel(x, y); p == [3]int{0x1a, 0x1c, 0x21} || p == [3]int{0x1e, 0x21, 0x26} {
			t.Errorf("frame set %d: the frame at %.0f,%.0f is not drawn (pixel %v is the row's background)", set, x, y, p)
		}
	}

	// Frame 5: the known render zone and the coloured job zone are drawn
	// where their times say, in their colours.
	k := g.known
	j := g.job
	f5 := g.t.FrameSets[0].Frames[5].Start
	b.open(fmt.Sprintf("#timeline?t0=%d&t1=%d", f5-1_000_000, lod.FrameEnd(g.t, 0, 5)+1_000_000))
	b.waitDrawn()
	b.shot("02-timeline-frame5")
	l = b.layout()
	x, y := l.zonePoint(t, laneKey(k.thread), k.depth, k.start, k.end)
	if p := b.pixel(x, y+4); isBackground(p) {
		t.Errorf("pixel under the render zone of frame 5 at (%.0f,%.0f) is background %v", x, y+4, p)
	}
	jx, jy := l.zonePoint(t, laneKey(j.thread), j.depth, j.start, j.end)
	// Off the label's centre, so text does not hide the fill.
	jx = (float64(j.start)-l.T0)/(l.T1-l.T0)*l.Width + 6
	if p := b.pixel(jx, jy+5); p != rgbOf(j.color) {
		t.Errorf("pixel of the job zone (own colour F0A030) at (%.0f,%.0f) = %v, want %v", jx, jy+5, p, rgbOf(j.color))
	}
	// Every pixel that holds zones shows something: the merged particle
	// burst of frame 5 paints its span at depth 2.
	ps, pe := particleSpan(g, k.thread, f5, k.start)
	px, py := l.zonePoint(t, laneKey(k.thread), 2, ps, pe)
	if p := b.pixel(px, py); isBackground(p) {
		t.Errorf("pixel of frame 5's merged particles at (%.0f,%.0f) is background %v", px, py, p)
	}

	// The GPU lane draws the frame's GPU zone in its colour.
	gx := (float64(g.gpu.start)-l.T0)/(l.T1-l.T0)*l.Width + 6
	_, gy := l.zonePoint(t, "g0:0", 0, g.gpu.start, g.gpu.end)
	if p := b.pixel(gx, gy+5); p != rgbOf(g.gpu.color) {
		t.Errorf("pixel of the GPU zone at (%.0f,%.0f) = %v, want %v", gx, gy+5, p, rgbOf(g.gpu.color))
	}

	// Hovering worker-1's lock row while it waits for the lock worker-0 holds.
	ls := f5 + 400_000
	for _, ln := range l.Lanes {
		if ln.Key != laneKey(g.worker1) {
			continue
		}
		lx := (float64(ls+800_000) - l.T0) / (l.T1 - l.T0) * l.Width
		b.move(l.Left+lx, l.Top+ln.Y+ln.H-7)
		b.waitFor("lock tooltip", `(() => { const t = document.querySelector('#timeline-wrap .tooltip'); return !t.hidden && t.textContent.includes('worker-1 is waiting for it') })()`)
		b.shot("02b-lock-hover")
	}

	// Clicking the zone opens its zone info with its name and duration.
	b.click(l.Left+x, l.Top+y)
	b.waitFor("zone info", `!document.querySelector('#zone-panel').hidden && !!document.querySelector('#zone-panel .zone-duration')`)
	b.shot("03-zone-info")
	checkZoneInfo(t, b, k.name, k.end-k.start)
	var hash string
	b.eval(`location.hash`, &hash)
	if want := fmt.Sprintf("&zone=%d:%d", k.thread, k.index); !strings.HasPrefix(hash, "#timeline?t0=") || !strings.HasSuffix(hash, want) {
		t.Errorf("after the click the URL's hash is %q, want the view and %q", hash, want)
	}
	// The link reopens exactly that zone.
	b.open(hash)
	b.waitFor("zone info from the link", `!!document.querySelector('#zone-panel .zone-duration')`)
	b.waitDrawn()
	b.shot("04-zone-link")
	checkZoneInfo(t, b, k.name, k.end-k.start)
	var again string
	b.eval(`location.hash`, &again)
	if again != hash {
		t.Errorf("reopening %q shows %q", hash, again)
	}
	// A link to the zone alone zooms to it.
	b.open(fmt.Sprintf("#zone=%d:%d", k.thread, k.index))
	b.waitFor("zone info from #zone", `!!document.querySelector('#zone-panel .zone-duration')`)
	b.waitDrawn()
	checkZoneInfo(t, b, k.name, k.end-k.start)
	l = b.layout()
	if l.T0 > float64(k.start) || l.T1 < float64(k.end) || l.T1-l.T0 > 4*float64(k.end-k.start) {
		t.Errorf("#zone=%d:%d shows [%v, %v], want the zone [%d, %d] filling the view", k.thread, k.index, l.T0, l.T1, k.start, k.end)
	}
	var src string
	b.eval(`(document.querySelector('#zone-panel .code .line.hit') || {}).textContent || ''`, &src)
	if !strings.Contains(src, "func render()") {
		t.Errorf("zone info source line = %q, want the line of render() from the trace's source cache", src)
	}

	// A GPU zone's info (the open panel narrowed the canvas: measure again).
	l = b.layout()
	gx = (float64(g.gpu.start)-l.T0)/(l.T1-l.T0)*l.Width + 6
	b.click(l.Left+gx+10, l.Top+gy)
	b.waitFor("GPU zone info", `document.querySelector('#zone-panel .zone-name') && document.querySelector('#zone-panel .zone-name').textContent === 'gpu_draw'`)
	b.shot("04b-gpu-zone")
	checkZoneInfo(t, b, "gpu_draw", g.gpu.end-g.gpu.start)

	// Clicking a merged run zooms into it, where its zones come apart.
	b.open(fmt.Sprintf("#timeline?t0=%d&t1=%d", f5-1_000_000, lod.FrameEnd(g.t, 0, 5)+1_000_000))
	b.waitDrawn()
	l = b.layout()
	px, py = l.zonePoint(t, laneKey(k.thread), 2, ps, pe)
	b.click(l.Left+px, l.Top+py)
	b.waitDrawn()
	lz := b.layout()
	if lz.T0 > float64(ps) || lz.T1 < float64(pe) || lz.T1-lz.T0 > 2*float64(pe-ps) {
		t.Errorf("clicking the merged particles [%d, %d] shows [%v, %v], want the run filling the view", ps, pe, lz.T0, lz.T1)
	}
	b.shot("04a-merged-zoom")
	// 1 µs zones 1 µs apart are still under 3 px here: a second click on
	// the run zooms in at the cursor, and the zones come apart.
	b.click(lz.Left+lz.Width/2, l.Top+py)
	b.waitDrawn()
	lz = b.layout()
	var merged, zones int
	b.eval(fmt.Sprintf(`(() => { const t = __gotracy.timeline; const l = t.dataByKey.get(%q); let n = 0; for (let i = l.depthOff[2]; i < l.depthOff[3]; i++) if (l.flags[i] & 1 && l.end[i] > t.t0 && l.start[i] < t.t1) n++; return n })()`, laneKey(k.thread)), &merged)
	b.eval(fmt.Sprintf(`(() => { const t = __gotracy.timeline; const l = t.dataByKey.get(%q); let n = 0; for (let i = l.depthOff[2]; i < l.depthOff[3]; i++) if (!(l.flags[i] & 1) && l.end[i] > t.t0 && l.start[i] < t.t1) n++; return n })()`, laneKey(k.thread)), &zones)
	if merged != 0 || zones < 20 {
		t.Errorf("zoomed twice into the particle run ([%v, %v]): %d merged runs and %d single zones in view; want only single zones", lz.T0, lz.T1, merged, zones)
	}
	b.shot("04a-merged-zoom2")

	// The job zone's info: its text and its call stack with the inlined frame.
	b.nav(fmt.Sprintf("#zone=%d:%d", j.thread, j.index))
	b.waitFor("job zone info", `(() => { const n = document.querySelector('#zone-panel .zone-name'); return !!n && n.textContent === 'job' && !!document.querySelector('#zone-panel .callstack') })()`)
	b.shot("04e-callstack")
	var stack struct{ Text, Stack string }
	b.eval(`({text: document.querySelector('#zone-panel .zone-text').textContent, stack: [...document.querySelectorAll('#zone-panel .callstack tr')].map(r => [...r.cells].map(c => c.textContent).join(' | ')).join('\n')})`, &stack)
	if stack.Text != "job 5 of worker 0" {
		t.Errorf("job zone text = %q, want %q", stack.Text, "job 5 of worker 0")
	}
	for _, want := range []string{"0 | [inline] game.kernel | game.go:22 | game", " | game.job | game.go:21 | game", "1 | main.main | main.go:9 | game"} {
		if !strings.Contains(stack.Stack, want) {
			t.Errorf("job zone call stack:\n%s\nwant a row %q", stack.Stack, want)
		}
	}

	// Two links in quick succession: the second wins, even though the first
	// zone's info is still loading when it arrives.
	b.eval(fmt.Sprintf(`(() => { location.hash = '#zone=%d:%d'; setTimeout(() => { location.hash = '#zone=%d:%d' }, 1); return true })()`, k.thread, k.index, j.thread, j.index), nil)
	b.eval(`new Promise(r => setTimeout(() => r(true), 500))`, nil)
	b.waitFor("the second link's zone", `(() => { const n = document.querySelector('#zone-panel .zone-name'); return !!n && n.textContent === 'job' })()`)

	testInteraction(t, b, g)

	// Statistics: the numbers built into the trace.
	b.nav("#statistics")
	b.waitFor("statistics table", `!!document.querySelector('#stats-table tbody tr')`)
	b.shot("05-statistics")
	rows := statsRows(t, b)
	for _, name := range []string{"frame", "update", "particle", "render", "draw_batch", "job", "kernel"} {
		w := g.stats(name)
		r, ok := rows[name]
		if !ok {
			t.Errorf("statistics table has no row %q", name)
			continue
		}
		checkNum(t, name, "counts", r, float64(w.count), 0)
		checkNum(t, name, "total_ns", r, float64(w.total), 0)
		checkNum(t, name, "min_ns", r, float64(w.min), 0)
		checkNum(t, name, "max_ns", r, float64(w.max), 0)
		checkNum(t, name, "mean_ns", r, float64(w.total)/float64(w.count), 1)
		if _, ok := r["median_ns"]; ok {
			checkNum(t, name, "median_ns", r, w.median, 1)
		}
	}
	// Sorting and filtering are in the URL.
	b.nav("#statistics?sort=counts&desc=1&filter=a")
	b.waitFor("sorted statistics", `(() => { const r = document.querySelectorAll('#stats-table tbody tr'); return r.length > 0 && r[0].cells[0].textContent === 'particle' && [...r].every(x => x.cells[0].textContent.includes('a') || x.cells[1].textContent.includes('a')) })()`)
	b.shot("06-statistics-sorted")

	// Find zone: the right instance count and a jump to an instance.
	id := srclocID(t, b, "draw_batch")
	b.nav(fmt.Sprintf("#find?srcloc=%d&sort=duration", id))
	b.waitFor("find zone", `!!document.querySelector('#find-count') && !!document.querySelector('#find-table tbody tr')`)
	b.shot("07-find")
	var count int
	b.eval(`Number(document.querySelector('#find-count').dataset.v)`, &count)
	if want := len(g.durations["draw_batch"]); count != want {
		t.Errorf("find zone draw_batch: %d instances, want %d", count, want)
	}
	b.nav(fmt.Sprintf("#find?srcloc=%d&log=1", id))
	b.waitFor("log histogram", `document.querySelector('.seg button.on') && document.querySelector('.seg button.on').textContent === 'Log'`)
	b.shot("08-find-log")
	b.eval(`document.querySelector('#find-table tbody tr').click()`, nil)
	b.waitFor("zone info from find", `!!document.querySelector('#zone-panel .zone-duration') && document.body.dataset.view === 'timeline'`)
	b.waitDrawn()
	b.shot("09-find-jump")
	checkZoneInfo(t, b, "draw_batch", -1)

	// Messages: a real table, filtered.
	b.nav("#messages?filter=frame%205")
	b.waitFor("messages", `(() => { const r = document.querySelectorAll('#messages-table tbody tr'); return r.length === 1 && r[0].cells[2].textContent === 'frame 5 begins' })()`)
	b.shot("10-messages")
	// A message jumps to its moment on the timeline.
	b.eval(`document.querySelector('#messages-table tbody tr').click()`, nil)
	b.waitFor("timeline at the message", `document.body.dataset.view === 'timeline'`)
	b.waitDrawn()
	lm := b.layout()
	if mt := float64(g.t.FrameSets[0].Frames[5].Start + 50_000); mt < lm.T0 || mt > lm.T1 {
		t.Errorf("after the jump to message 'frame 5 begins' (%v ns) the view is [%v, %v]", mt, lm.T0, lm.T1)
	}

	// Frame images: the picture of frame 7 is the one built into the trace.
	checkFrameImage(t, b, g.t, 7)
	b.shot("11-frame-image")
	// Scrubbing: the slider moves through the images.
	b.eval(`(() => { const s = document.querySelector('#view-frames .scrub'); s.value = 12; s.dispatchEvent(new Event('input')); return true })()`, nil)
	b.waitFor("scrubbed image", `(() => { const i = document.querySelector('#view-frames .frame-image'); return i.dataset.frame === '12' && i.complete && i.naturalWidth > 0 && location.hash === '#frames?frame=12' })()`)
	b.shot("11b-frame-scrub")

	// The frame-time graph: one bar per frame in frame order, coloured by
	// frame time against 60 FPS (blue under half, green under, yellow
	// over, red over twice).
	fr := g.t.FrameSets[0].Frames
	b.open(fmt.Sprintf("#timeline?t0=%d&t1=%d", fr[20].Start, fr[22].Start))
	b.waitDrawn()
	b.waitFor("frame graph", `(() => { const g = document.querySelector('#framegraph canvas'); return g.width > 0 })()`)
	b.eval(`new Promise(r => setTimeout(() => r(true), 300))`, nil)
	for _, c := range []struct {
		frame int
		rgb   [3]int
	}{{0, [3]int{0x22, 0xdd, 0x22}}, {1, [3]int{0x00, 0x99, 0xdd}}, {3, [3]int{0xdd, 0xdd, 0x22}}, {11, [3]int{0xdd, 0x22, 0x22}}} {
		var px [3]int
		b.eval(fmt.Sprintf(`(() => { const c = document.querySelector('#framegraph canvas'); const dpr = window.devicePixelRatio || 1; const w = c.width / dpr;
			const x = (%d + 0.5) / %d * w; const d = c.getContext('2d').getImageData(Math.round(x * dpr), Math.round(52 * dpr), 1, 1).data; return [d[0], d[1], d[2]] })()`, c.frame, len(fr)), &px)
		if px != c.rgb {
			t.Errorf("frame graph bar of frame %d (%s) = %v, want %v", c.frame, time.Duration(lod.FrameEnd(g.t, 0, c.frame)-fr[c.frame].Start), px, c.rgb)
		}
	}
	b.shot("12a-frame-graph")

	// Hovering a frame of the frame row shows its thumbnail.
	b.open(fmt.Sprintf("#timeline?t0=%d&t1=%d", g.t.FrameSets[0].Frames[3].Start, lod.FrameEnd(g.t, 0, 6)))
	b.waitDrawn()
	l = b.layout()
	f4 := g.t.FrameSets[0].Frames[4]
	fx := (float64(f4.Start+lod.FrameEnd(g.t, 0, 4))/2 - l.T0) / (l.T1 - l.T0) * l.Width
	b.move(l.Left+fx, l.Top+24+9)
	b.waitFor("frame thumbnail", `(() => { const i = document.querySelector('#timeline-wrap .tooltip:not([hidden]) .thumb img'); return !!(i && i.complete && i.naturalWidth > 0) })()`)
	b.shot("12-frame-hover")
	// Hovering a message tick shows its text.
	var mainY float64
	for _, ln := range l.Lanes {
		if ln.Key == laneKey(g.known.thread) {
			mainY = ln.Y
		}
	}
	mx := (float64(f4.Start+50_000) - l.T0) / (l.T1 - l.T0) * l.Width
	b.move(l.Left+mx, l.Top+mainY+l.HeadH-4)
	b.waitFor("message tooltip", `(() => { const t = document.querySelector('#timeline-wrap .tooltip'); return !t.hidden && t.textContent.includes('frame 4 begins') })()`)
	b.shot("12b-message-hover")

	b.nav("#info")
	b.waitFor("trace info", `document.querySelectorAll('#view-info .card').length >= 3`)
	b.shot("13-info")
}

// testBrowserDemo runs on the real Tracy 0.14 recording and compares the
// statistics table with what the real csvexport printed.
func testBrowserDemo(t *testing.T) {
	path := fixtures.Path(t, "demo.tracy")
	tr, err := tracefile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, tr, "demo", 1600, 1000, 1)
	b.open("")
	b.waitDrawn()
	b.shot("01-timeline")

	// The first worker_frame zone of worker-0: drawn, and its info right.
	th, idx := findZone(t, tr, "worker-0", "worker_frame")
	z := tr.Threads[th].Zones.At(idx)
	s, e := z.Start(), z.End()
	b.open(fmt.Sprintf("#timeline?t0=%d&t1=%d", s-(e-s)/4, e+(e-s)/4))
	b.waitDrawn()
	b.shot("02-worker-frame")
	l := b.layout()
	x, y := l.zonePoint(t, laneKey(th), 0, s, e)
	if p := b.pixel(x, y+5); isBackground(p) {
		t.Errorf("pixel under worker_frame at (%.0f,%.0f) is background %v", x, y+5, p)
	}
	b.click(l.Left+x, l.Top+y)
	b.waitFor("zone info", `!!document.querySelector('#zone-panel .zone-duration')`)
	b.shot("03-zone-info")
	checkZoneInfo(t, b, "worker_frame", e-s)

	for _, self := range []bool{false, true} {
		name, hash := "demo.csv", "#statistics"
		if self {
			name, hash = "demo.self.csv", "#statistics?self=1"
		}
		b.nav(hash)
		b.waitFor("statistics "+name, fmt.Sprintf(`(() => { const t = document.querySelector('#stats-table'); return !!(t && t.dataset.self === %q && t.querySelector('tbody tr')) })()`, map[bool]string{false: "0", true: "1"}[self]))
		b.shot("04-statistics-" + strings.TrimSuffix(name, ".csv"))
		compareStatsWithCSV(t, statsRows(t, b), fixtures.Path(t, name))
	}

	id := srclocID(t, b, "work_item")
	b.nav(fmt.Sprintf("#find?srcloc=%d", id))
	b.waitFor("find zone", `!!document.querySelector('#find-count')`)
	b.shot("05-find")
	var count int
	b.eval(`Number(document.querySelector('#find-count').dataset.v)`, &count)
	if want := csvCount(t, fixtures.Path(t, "demo.csv"), "work_item"); count != want {
		t.Errorf("find zone work_item: %d instances, want %d (demo.csv)", count, want)
	}

	checkFrameImage(t, b, tr, 5)
	b.shot("06-frame-image")
	b.nav("#messages")
	b.waitFor("messages", `document.querySelectorAll('#messages-table tbody tr').length > 100`)
	b.shot("07-messages")
}

// testInteraction checks the wheel zooms around the cursor, dragging and
// the keys pan and zoom, Shift+drag measures, and a lane header collapses.
func testInteraction(t *testing.T, b *browser, g *gameTrace) {
	f := g.t.FrameSets[0].Frames
	b.open(fmt.Sprintf("#timeline?t0=%d&t1=%d", f[2].Start, f[10].Start))
	b.waitDrawn()
	l := b.layout()
	tAt := func(l layout, x float64) float64 { return l.T0 + x/l.Width*(l.T1-l.T0) }
	x := l.Width * 0.3
	before := tAt(l, x)
	b.wheel(l.Left+x, l.Top+200, -300)
	l2 := b.layout()
	if span, span2 := l.T1-l.T0, l2.T1-l2.T0; span2 >= span*0.9 {
		t.Errorf("a wheel step up did not zoom in: span %v -> %v", span, span2)
	}
	if after := tAt(l2, x); math.Abs(after-before) > (l2.T1-l2.T0)/l2.Width {
		t.Errorf("zoom moved the time under the cursor from %v to %v", before, after)
	}
	b.waitDrawn()
	b.drag(l.Left+800, l.Top+300, l.Left+600, l.Top+300, 8)
	l3 := b.layout()
	if want := l2.T0 + 200*(l2.T1-l2.T0)/l2.Width; math.Abs(l3.T0-want) > 2*(l2.T1-l2.T0)/l2.Width {
		t.Errorf("dragging 200 px left moved t0 from %v to %v, want %v", l2.T0, l3.T0, want)
	}
	b.key("d")
	l4 := b.layout()
	if l4.T0 <= l3.T0 {
		t.Errorf("D did not pan right: t0 %v -> %v", l3.T0, l4.T0)
	}
	b.key("w")
	l5 := b.layout()
	if l5.T1-l5.T0 >= l4.T1-l4.T0 {
		t.Errorf("W did not zoom in: span %v -> %v", l4.T1-l4.T0, l5.T1-l5.T0)
	}
	b.waitDrawn()
	// Measure: drag on the ruler selects a range and shows its length.
	b.drag(l.Left+300, l.Top+10, l.Left+700, l.Top+10, 6)
	b.waitFor("selection", `!document.querySelector('#selection').hidden`)
	l6 := b.layout()
	if l6.Sel == nil || math.Abs(math.Abs(l6.Sel.T1-l6.Sel.T0)-400*(l6.T1-l6.T0)/l6.Width) > 2*(l6.T1-l6.T0)/l6.Width {
		t.Errorf("selection after a 400 px ruler drag = %+v, want %v ns", l6.Sel, 400*(l6.T1-l6.T0)/l6.Width)
	}
	b.shot("04c-selection")
	b.key(kb.Escape)
	b.waitFor("Escape clears the selection", `document.querySelector('#selection').hidden && !__gotracy.timeline.sel`)
	// Clicking a lane's header collapses it.
	var top float64
	for _, ln := range l6.Lanes {
		if ln.Key == laneKey(g.job.thread) {
			top = ln.Y
		}
	}
	b.click(l.Left+60, l.Top+top+8)
	for _, ln := range b.layout().Lanes {
		if ln.Key == laneKey(g.job.thread) && !ln.Collapsed {
			t.Errorf("clicking the header of %s did not collapse it", ln.Key)
		}
	}
	b.shot("04d-collapsed")
	// ? lists the keys; Esc closes the list.
	b.key("?")
	b.waitFor("the key list", `!document.querySelector('#help').hidden`)
	b.shot("04f-help")
	b.key(kb.Escape)
	b.waitFor("the key list closed", `document.querySelector('#help').hidden`)
	// The URL follows the view, so a link reopens it.
	b.waitFor("the hash names the view", `(() => { const t = __gotracy.timeline; return location.hash === '#timeline?t0=' + Math.round(t.t0) + '&t1=' + Math.round(t.t1) })()`)
}

func laneKey(thread int) string { return "c" + strconv.Itoa(thread) }

func checkZoneInfo(t *testing.T, b *browser, name string, dur int64) {
	t.Helper()
	var got struct {
		Name string
		Ns   float64
	}
	b.eval(`({name: document.querySelector('#zone-panel .zone-name').textContent, ns: Number(document.querySelector('#zone-panel .zone-duration').dataset.ns)})`, &got)
	if got.Name != name {
		t.Errorf("zone info name = %q, want %q", got.Name, name)
	}
	if dur >= 0 && int64(got.Ns) != dur {
		t.Errorf("zone info duration = %v ns, want %d", got.Ns, dur)
	}
}

// statsRows reads the statistics table of the DOM: by name, the raw value
// (data-v) of each column key.
func statsRows(t *testing.T, b *browser) map[string]map[string]string {
	t.Helper()
	var rows []map[string]string
	b.eval(`(() => { const t = document.querySelector('#stats-table'); const keys = [...t.tHead.rows[0].cells].map(c => c.dataset.key);
		return [...t.tBodies[0].rows].map(r => { const o = {}; [...r.cells].forEach((c, i) => { o[keys[i]] = c.dataset.v ?? '' }); o.file = r.dataset.file; o.line = r.dataset.line; return o }) })()`, &rows)
	out := map[string]map[string]string{}
	for _, r := range rows {
		key := r["name"]
		if _, dup := out[key]; dup {
			key += "@" + r["file"] + ":" + r["line"]
		}
		out[key] = r
	}
	return out
}

func checkNum(t *testing.T, name, col string, r map[string]string, want, tol float64) {
	t.Helper()
	v, err := strconv.ParseFloat(r[col], 64)
	if err != nil {
		t.Errorf("%s %s: cell value %q is not a number", name, col, r[col])
		return
	}
	if math.Abs(v-want) > tol {
		t.Errorf("%s %s = %v, want %v", name, col, v, want)
	}
}

// compareStatsWithCSV checks every row of a csvexport file against the
// table: the same rows, and each number as the CSV prints it.
func compareStatsWithCSV(t *testing.T, rows map[string]map[string]string, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	head := recs[0]
	byName := map[string]map[string]string{}
	for _, r := range rows {
		byName[r["name"]+"\x00"+r["file"]+"\x00"+r["line"]] = r
	}
	if len(recs)-1 != len(rows) {
		t.Errorf("%s has %d rows, the table %d", path, len(recs)-1, len(rows))
	}
	for _, rec := range recs[1:] {
		want := map[string]string{}
		for i, h := range head {
			want[h] = rec[i]
		}
		key := want["name"] + "\x00" + want["src_file"] + "\x00" + want["src_line"]
		got, ok := byName[key]
		if !ok {
			t.Errorf("%s: row %s (%s:%s) missing from the table", path, want["name"], want["src_file"], want["src_line"])
			continue
		}
		for _, col := range []string{"total_ns", "counts", "mean_ns", "min_ns", "max_ns"} {
			if got[col] != want[col] {
				t.Errorf("%s %s: table %s, csv %s", want["name"], col, got[col], want[col])
			}
		}
		for _, col := range []string{"total_perc", "std_ns"} {
			v, err := strconv.ParseFloat(got[col], 64)
			if err != nil || fmt.Sprintf("%.6f", v) != want[col] {
				t.Errorf("%s %s: table %s, csv %s", want["name"], col, got[col], want[col])
			}
		}
	}
}

func csvCount(t *testing.T, path, name string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs[1:] {
		if r[0] == name {
			c, _ := strconv.Atoi(r[5])
			n += c
		}
	}
	return n
}

func srclocID(t *testing.T, b *browser, name string) int {
	t.Helper()
	var id *int
	b.eval(fmt.Sprintf(`(() => { const s = __gotracy.store.srclocs.find(s => s.name === %q); return s ? s.id : null })()`, name), &id)
	if id == nil {
		t.Fatalf("no source location %q in /api/v1/srclocs", name)
	}
	return *id
}

func findZone(t *testing.T, tr *model.Trace, thread, name string) (int, int) {
	t.Helper()
	for i := range tr.Threads {
		if tr.ThreadName(tr.Threads[i].ID) != thread {
			continue
		}
		zl := &tr.Threads[i].Zones
		for k := 0; k < zl.Len(); k++ {
			sl, _ := tr.SrcLoc(zl.At(k).SrcLoc)
			if tr.SrcLocName(sl) == name {
				return i, k
			}
		}
	}
	t.Fatalf("no zone %q on thread %q", name, thread)
	return 0, 0
}

// particleSpan is where the particle zones of thread th between t0 and t1
// start and end.
func particleSpan(g *gameTrace, th int, t0, t1 int64) (int64, int64) {
	zl := &g.t.Threads[th].Zones
	var s, e int64 = -1, 0
	for i := 0; i < zl.Len(); i++ {
		z := zl.At(i)
		sl, _ := g.t.SrcLoc(z.SrcLoc)
		if g.t.SrcLocName(sl) != "particle" || z.Start() < t0 || z.End() > t1 {
			continue
		}
		if s < 0 {
			s = z.Start()
		}
		e = z.End()
	}
	return s, e
}

// checkFrameImage opens the frame images view at frame f of set 0 and
// compares pixels the page decoded with the trace's own image decoded here.
func checkFrameImage(t *testing.T, b *browser, tr *model.Trace, f int) {
	t.Helper()
	img := tr.FrameSets[0].Frames[f].Image
	if img < 0 {
		t.Fatalf("frame %d has no image", f)
	}
	fi := tr.FrameImages[img]
	data, err := texture.ImageData(nil, fi.Data, int(fi.W), int(fi.H), fi.Packed)
	if err != nil {
		t.Fatal(err)
	}
	want, err := texture.Image(data, int(fi.W), int(fi.H), fi.Flip)
	if err != nil {
		t.Fatal(err)
	}
	b.nav(fmt.Sprintf("#frames?frame=%d", f))
	b.waitFor("frame image", fmt.Sprintf(`(() => { const i = document.querySelector('#view-frames .frame-image'); return !!(i && i.dataset.frame === '%d' && i.complete && i.naturalWidth > 0) })()`, f))
	var got struct {
		W, H int
		Px   [][4]int
	}
	pts := [][2]int{{1, 1}, {int(fi.W) / 2, int(fi.H) / 3}, {int(fi.W) - 3, int(fi.H) - 2}}
	b.eval(fmt.Sprintf(`(() => { const i = document.querySelector('#view-frames .frame-image'); const c = document.createElement('canvas'); c.width = i.naturalWidth; c.height = i.naturalHeight;
		const g = c.getContext('2d'); g.drawImage(i, 0, 0); return {w: i.naturalWidth, h: i.naturalHeight, px: %s.map(([x, y]) => [...g.getImageData(x, y, 1, 1).data])} })()`, jsPoints(pts)), &got)
	if got.W != int(fi.W) || got.H != int(fi.H) {
		t.Fatalf("frame %d image is %dx%d in the page, want %dx%d", f, got.W, got.H, fi.W, fi.H)
	}
	for i, p := range pts {
		c := want.NRGBAAt(p[0], p[1])
		w := [4]int{int(c.R), int(c.G), int(c.B), int(c.A)}
		if got.Px[i] != w {
			t.Errorf("frame %d image pixel %v = %v in the page, want %v", f, p, got.Px[i], w)
		}
	}
}

func jsPoints(p [][2]int) string {
	var s []string
	for _, q := range p {
		s = append(s, fmt.Sprintf("[%d,%d]", q[0], q[1]))
	}
	return "[" + strings.Join(s, ",") + "]"
}
