package viewer_test

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// TestBrowserDeep drives the memory, flame-graph, locks and source views in
// headless Chromium on the demo fixture and on a synthetic trace with
// samples, checking what the tables show against counts made from the
// model, and saves a screenshot of every step.
func TestBrowserDeep(t *testing.T) {
	startBrowserSuite(t)
	t.Run("Demo", testBrowserDeepDemo)
	t.Run("Synthetic", testBrowserDeepSynth)
}

func (b *browser) text(sel string) string {
	b.tb.Helper()
	var s string
	b.eval(fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel), &s)
	return s
}

func (b *browser) count(sel string) int {
	b.tb.Helper()
	var n int
	b.eval(fmt.Sprintf(`document.querySelectorAll(%q).length`, sel), &n)
	return n
}

// cells reads column col (0-based) of a table's body as the raw values the
// cells carry (data-v), else their text.
func (b *browser) cells(sel string, col int) []string {
	b.tb.Helper()
	var out []string
	b.eval(fmt.Sprintf(`[...document.querySelectorAll(%q + ' tbody tr')].map(tr => { const td = tr.children[%d]; return td ? (td.dataset.v ?? td.textContent) : "" })`, sel, col), &out)
	return out
}

func testBrowserDeepDemo(t *testing.T) {
	tr, err := tracefile.ReadFile(fixtures.Path(t, "demo.tracy"))
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, tr, "deep-demo", 1600, 1000, 1)

	// Memory: the default pool's list, sorted by size on the server.
	b.open("#memory?pool=0&sort=size&desc=1")
	b.waitFor("the memory list", `document.querySelectorAll('#mem-table tbody tr').length > 0 && document.querySelector('.memgraph').dataset.drawn === '1'`)
	b.shot("01-memory-list")
	sizes := b.cells("#mem-table", 1)
	var big uint64
	for _, e := range tr.MemPools[0].Events {
		big = max(big, e.Size)
	}
	if len(sizes) != len(tr.MemPools[0].Events) || sizes[0] != strconv.FormatUint(big, 10) {
		t.Errorf("memory list: %d rows, first size %v; the pool has %d events, the largest %d", len(sizes), sizes[:min(1, len(sizes))], len(tr.MemPools[0].Events), big)
	}
	// A click on a row shows its call stack.
	b.eval(`document.querySelector('#mem-table tbody tr').click()`, nil)
	b.waitFor("the allocation's call stack", `document.querySelectorAll('#mem-callstack tbody tr').length > 0`)
	b.shot("02-memory-callstack")
	// Frames in files the trace holds (std_mutex.h) link to the source view,
	// opened at the frame's line.
	var href string
	b.eval(`(document.querySelector('#mem-callstack a') || {}).getAttribute?.('href') || ""`, &href)
	if !strings.HasPrefix(href, "#source?file=") || !strings.Contains(href, "line=") {
		t.Errorf("call stack source link %q", href)
	} else {
		b.eval(`document.querySelector('#mem-callstack a').click()`, nil)
		b.waitFor("the frame's source line", `!!document.querySelector('#source-table tr.hit')`)
		b.shot("02b-callstack-source")
	}
	// Clicking the usage graph lists what was live at that moment.
	e := tr.MemPools[1].Events[10]
	b.open(fmt.Sprintf("#memory?pool=1&filter=active&t=%d", e.TimeAlloc))
	b.waitFor("the live list", `!!document.querySelector('#mem-table') && document.querySelector('.memgraph').dataset.drawn === '1'`)
	live := 0
	for _, x := range tr.MemPools[1].Events {
		if x.TimeAlloc <= e.TimeAlloc && (x.TimeFree < 0 || x.TimeFree > e.TimeAlloc) {
			live++
		}
	}
	if n := b.count("#mem-table tbody tr"); n != live {
		t.Errorf("live at %d: %d rows, the events say %d", e.TimeAlloc, n, live)
	}
	b.shot("03-memory-active")
	b.open("#memory?pool=0&view=bottomup")
	b.waitFor("the bottom-up tree", `document.querySelectorAll('#mem-tree tbody tr').length > 0`)
	b.shot("04-memory-tree")
	var rootBytes uint64
	for _, v := range b.cells("#mem-tree", 1)[:1] {
		rootBytes, _ = strconv.ParseUint(v, 10, 64)
	}
	var callstackBytes uint64
	for _, x := range tr.MemPools[0].Events {
		if x.CSAlloc != 0 {
			callstackBytes += x.Size
		}
	}
	if rootBytes == 0 || rootBytes > callstackBytes {
		t.Errorf("bottom-up tree: heaviest root %d bytes; allocations with call stacks hold %d", rootBytes, callstackBytes)
	}

	// Locks: one lock, 200 acquisitions (counted from the events).
	acq := 0
	for _, ev := range tr.Locks[0].Events {
		if ev.Type == model.LockObtain || ev.Type == model.LockObtainShared {
			acq++
		}
	}
	b.open("#locks")
	b.waitFor("the locks table", `document.querySelectorAll('#locks-table tbody tr').length === 1 && !!document.querySelector('#lock-worst')`)
	b.shot("05-locks")
	if got := b.cells("#locks-table", 2); len(got) != 1 || got[0] != strconv.Itoa(acq) {
		t.Errorf("locks table acquisitions %v, the events say %d", got, acq)
	}
	// The worst wait opens the timeline around it.
	var start, end int64
	b.eval(`Number(document.querySelector('#lock-worst tbody tr').dataset.start)`, &start)
	b.eval(`Number(document.querySelector('#lock-worst tbody tr').dataset.end)`, &end)
	b.eval(`document.querySelector('#lock-worst tbody tr').click()`, nil)
	b.waitDrawn()
	b.shot("06-worst-wait-on-timeline")
	l := b.layout()
	if l.T0 > float64(start) || l.T1 < float64(end) {
		t.Errorf("the timeline shows %.0f..%.0f, the wait is %d..%d", l.T0, l.T1, start, end)
	}

	// Flame graph of zones, then zoomed into worker_frame.
	b.open("#flame")
	b.waitFor("the flame graph", `document.querySelectorAll('.fnode').length > 5`)
	b.shot("07-flame")
	var wf struct {
		ID    string
		Count string
	}
	b.eval(`(() => { const n = [...document.querySelectorAll('.fnode')].find(n => n.dataset.name === 'worker_frame'); return {id: n.dataset.id, count: n.dataset.count} })()`, &wf)
	if wf.Count != "40" {
		t.Errorf("worker_frame node counts %s zones; the demo runs 2 workers x 20 frames", wf.Count)
	}
	b.eval(fmt.Sprintf(`document.querySelector('.fnode[data-id="%s"]').click()`, wf.ID), nil)
	b.waitFor("the zoomed flame graph", `location.hash.includes('root=`+wf.ID+`') && document.querySelectorAll('.crumbs a').length === 2 && document.querySelector('.fnode').dataset.name === 'worker_frame'`)
	b.shot("08-flame-zoomed")
	b.key(kb.Escape) // zooms out
	b.waitFor("back to the whole graph by Esc", `!location.hash.includes('root=') && document.querySelectorAll('.crumbs a').length === 1`)
	b.eval(fmt.Sprintf(`document.querySelector('.fnode[data-id="%s"]').click()`, wf.ID), nil)
	b.waitFor("zoomed again", `location.hash.includes('root=`+wf.ID+`')`)
	b.eval(`document.querySelector('.crumbs a').click()`, nil)
	b.waitFor("back to the whole graph", `!location.hash.includes('root=') && document.querySelectorAll('.crumbs a').length === 1`)

	// Source: a file from the trace's source cache.
	b.open("#source?file=" + url.QueryEscape(tr.SourceCache[0].Name))
	b.waitFor("the source", `document.querySelectorAll('#source-table tbody tr').length > 10`)
	b.shot("09-source")
}

func testBrowserDeepSynth(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 20000, Threads: 3, MaxDepth: 8, Seed: 5})
	tr = synthtrace.AddDeep(tr, synthtrace.MemSpec{Allocs: 50000, Pools: 2, Stacks: 300, Samples: 5000, Locks: 3, LockOps: 500, Seed: 5})
	b := newBrowser(t, tr, "deep-synth", 1600, 1000, 1)

	mid := tr.Metadata.LastTime / 2
	b.open(fmt.Sprintf("#memory?pool=0&filter=active&t=%d&sort=size&desc=1", mid))
	b.waitFor("the live list", `document.querySelectorAll('#mem-table tbody tr').length === 100 && document.querySelector('.memgraph').dataset.drawn === '1'`)
	live := 0
	for _, x := range tr.MemPools[0].Events {
		if x.TimeAlloc <= mid && (x.TimeFree < 0 || x.TimeFree > mid) {
			live++
		}
	}
	if got := b.text("#mem-page"); got != fmt.Sprintf("1–100 of %s", commas(live)) {
		t.Errorf("pager says %q; %d allocations are live at %d", got, live, mid)
	}
	b.shot("01-memory-active")
	b.eval(`[...document.querySelectorAll('.pager .btn')].find(x => x.textContent.startsWith('Next')).click()`, nil)
	b.waitFor("page 2", `(document.querySelector('#mem-page') || {}).textContent === "101–200 of `+commas(live)+`"`)
	// Allocations made in the range measured on the timeline.
	r0, r1 := tr.Metadata.LastTime/5, tr.Metadata.LastTime/4
	b.eval(fmt.Sprintf(`__gotracy.timeline.sel = {t0: %d, t1: %d}`, r0, r1), nil)
	b.eval(`document.querySelector('#view-memory .seg button[data-v="range"]').click()`, nil)
	madeIn := 0
	for _, x := range tr.MemPools[0].Events {
		if x.TimeAlloc >= r0 && x.TimeAlloc <= r1 {
			madeIn++
		}
	}
	b.waitFor("the range list", fmt.Sprintf(`location.hash.includes('filter=range') && (document.querySelector('#mem-page') || {}).textContent === "1–100 of %s"`, commas(madeIn)))
	b.shot("01b-memory-range")
	b.open(fmt.Sprintf("#memory?pool=0&filter=active&t=%d&view=topdown", mid))
	b.waitFor("the top-down tree", `document.querySelectorAll('#mem-tree tbody tr').length > 3`)
	b.shot("02-memory-topdown")

	b.open("#flame?kind=samples")
	b.waitFor("the samples flame graph", `document.querySelectorAll('.fnode').length > 5`)
	b.shot("03-flame-samples")
	b.open("#flame")
	b.waitFor("the zones flame graph", `document.querySelectorAll('.fnode').length > 5`)
	b.shot("04-flame-zones")
	// A range measured on the timeline: the graph covers only it.
	t0, t1 := tr.Metadata.LastTime/4, tr.Metadata.LastTime/3
	b.eval(fmt.Sprintf(`__gotracy.timeline.sel = {t0: %d, t1: %d}`, t1, t0), nil)
	b.eval(`[...document.querySelectorAll('#view-flame .btn')].find(x => x.textContent === 'Use timeline range').click()`, nil)
	b.waitFor("the range's flame graph", fmt.Sprintf(`location.hash.includes('t0=%d') && location.hash.includes('t1=%d') && !document.querySelector('#view-flame .summary').textContent.startsWith('whole')`, t0, t1))
	var inRange int
	for ti := range tr.Threads {
		for _, z := range tr.Threads[ti].Zones.All() {
			if z.End() > t0 && z.Start() < t1 {
				inRange++
			}
		}
	}
	if got := b.text("#view-flame .summary"); !strings.Contains(got, commas(inRange)+" zones") {
		t.Errorf("range summary %q; %d zones overlap the range", got, inRange)
	}
	b.shot("04b-flame-range")
	// Zoom into the widest root: the breadcrumb and root line name it.
	b.eval(`document.querySelector('.fnode').click()`, nil)
	b.waitFor("the zoomed range graph", `location.hash.includes('root=') && location.hash.includes('t0=') && document.querySelector('.flame-root').textContent.includes('find these zones')`)
	b.shot("04c-flame-range-zoomed")

	// On the timeline, F opens the flame graph of the measured range and
	// M the allocations made in it.
	b.open("#timeline")
	b.waitDrawn()
	b.eval(fmt.Sprintf(`(() => { const tl = __gotracy.timeline; tl.sel = {t0: %d, t1: %d}; tl.hooks.onSelect(tl.sel); tl.draw(); tl.canvas.focus(); return true })()`, t0, t1), nil)
	b.key("f")
	b.waitFor("the flame graph of the selection", fmt.Sprintf(`location.hash.startsWith('#flame') && location.hash.includes('t0=%d') && document.querySelectorAll('.fnode').length > 0`, t0))
	b.open("#timeline")
	b.waitDrawn()
	b.eval(fmt.Sprintf(`(() => { const tl = __gotracy.timeline; tl.sel = {t0: %d, t1: %d}; tl.hooks.onSelect(tl.sel); tl.canvas.focus(); return true })()`, r0, r1), nil)
	b.key("m")
	b.waitFor("the allocations of the selection", fmt.Sprintf(`location.hash.startsWith('#memory') && location.hash.includes('filter=range') && (document.querySelector('#mem-page') || {}).textContent === "1–100 of %s"`, commas(madeIn)))

	b.open("#locks?lock=1")
	b.waitFor("the lock detail", `document.querySelectorAll('#locks-table tbody tr').length === 3 && !!document.querySelector('#lock-worst')`)
	b.shot("05-locks")

	b.open("#source?file=" + synthtrace.SynthFile)
	b.waitFor("the source", `document.querySelectorAll('#source-table tbody tr').length > 100`)
	b.shot("06-source-samples")
	// Samples per line, counted from the model: the innermost frame's line.
	want := map[int]int{}
	for ti := range tr.Threads {
		for _, s := range tr.Threads[ti].Samples {
			fr := tr.CallStack(s.CallStack)
			want[int(tr.Frames[fr[0]].Frames[0].Line)]++
		}
	}
	lines := b.cells("#source-table", 0)
	samples := b.cells("#source-table", 3)
	for i := range lines {
		ln, _ := strconv.Atoi(lines[i])
		got, _ := strconv.Atoi(samples[i])
		if got != want[ln] {
			t.Errorf("%s:%d shows %d samples, the model says %d", synthtrace.SynthFile, ln, got, want[ln])
		}
	}
	b.open("#source?file=synth.go")
	b.waitFor("the zone source", `document.querySelectorAll('#source-table tbody tr.hot').length > 5`)
	b.shot("07-source-zones")
}

func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
