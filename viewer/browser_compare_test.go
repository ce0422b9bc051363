package viewer_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// TestBrowserCompare drives the compare page of `gotracy view A B` in
// headless Chromium: on the synthetic pair (any clone) and on the
// demo/demo-ondemand fixtures.
func TestBrowserCompare(t *testing.T) {
	startBrowserSuite(t)
	t.Run("Synthetic", testBrowserCompareSynthetic)
	t.Run("Demo", testBrowserCompareDemo)
}

// domRow is one row of #cmp-table as the page shows it: each cell's raw
// value (data-v) by column key.
type domRow struct {
	Key     string            `json:"key"`
	A       string            `json:"a"`
	B       string            `json:"b"`
	Matched string            `json:"matched"`
	Cells   map[string]string `json:"cells"`
	Text    map[string]string `json:"text"`
}

const readCompareTable = `(() => {
  const t = document.querySelector('#cmp-table');
  const keys = [...t.tHead.rows[0].cells].map((th) => th.dataset.key);
  return [...t.tBodies[0].rows].map((tr) => {
    const cells = {}, text = {};
    [...tr.cells].forEach((td, i) => { if (td.dataset.v !== undefined) cells[keys[i]] = td.dataset.v; text[keys[i]] = td.textContent; });
    return { key: tr.dataset.key, a: tr.dataset.a, b: tr.dataset.b, matched: tr.dataset.matched, cells, text };
  });
})()`

func (b *browser) openCompare(hash string) {
	b.tb.Helper()
	b.checkErrors()
	b.run("open "+hash, chromedp.Navigate("about:blank"), chromedp.Navigate(b.base+hash))
	b.waitLoaded("the compare table", `!!document.querySelector('#cmp-table')`)
}

// evalSafe is eval, tried again while the evaluation lands in a context a
// navigation replaced (see waitLoaded).
func (b *browser) evalSafe(expr string, out any) {
	b.tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr, chromedp.EvalAwaitPromise))
		cancel()
		if err != nil && strings.Contains(err.Error(), "Cannot find context") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil && !(out == nil && errors.Is(err, chromedp.ErrJSUndefined)) {
			b.tb.Fatalf("evaluate %s: %v", short(expr), err)
		}
		if out != nil {
			if err := json.Unmarshal(raw, out); err != nil {
				b.tb.Fatalf("evaluate %s: result %s: %v", short(expr), raw, err)
			}
		}
		return
	}
}

// waitLoaded is waitFor right after a navigation: an evaluation may land
// in the context the navigation is replacing ("Cannot find context"),
// which only means "not yet", so it is tried again until the deadline.
func (b *browser) waitLoaded(what, expr string) {
	b.tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(20 * time.Millisecond)
	}
	b.shot("timeout-" + sanitize(what))
	b.tb.Fatalf("waiting for %s (%s): %v", what, expr, last)
}

func (b *browser) compareRows() []domRow {
	b.tb.Helper()
	var rows []domRow
	b.evalSafe(readCompareTable, &rows)
	return rows
}

// checkRowsByHand holds every figure the table shows to the hand count of
// each trace's zones, and each ratio to mean B / mean A of that count.
func checkRowsByHand(t *testing.T, rows []domRow, ha, hb map[model.SrcLocID]*handLoc) {
	t.Helper()
	for _, r := range rows {
		name := r.Text["name"]
		for _, side := range []struct {
			id   string
			hand map[model.SrcLocID]*handLoc
			suf  string
		}{{r.A, ha, "-a"}, {r.B, hb, "-b"}} {
			if side.id == "" {
				if v, ok := r.Cells["count"+side.suf]; ok {
					t.Errorf("%s: no location in %s, yet count %s", name, side.suf, v)
				}
				continue
			}
			id, _ := strconv.Atoi(side.id)
			h := side.hand[model.SrcLocID(id)]
			if h == nil {
				t.Errorf("%s: location %d has no zones", name, id)
				continue
			}
			if h.name != name {
				t.Errorf("row %s shows location %d of trace%s, which is %s", name, id, side.suf, h.name)
			}
			want := map[string]int64{"count" + side.suf: int64(h.count), "total" + side.suf: h.total, "mean" + side.suf: h.mean, "median" + side.suf: h.median}
			for k, w := range want {
				if r.Cells[k] != strconv.FormatInt(w, 10) {
					t.Errorf("%s %s: the page shows %q, by hand %d", name, k, r.Cells[k], w)
				}
			}
		}
		if r.A != "" && r.B != "" {
			ia, _ := strconv.Atoi(r.A)
			ib, _ := strconv.Atoi(r.B)
			want := float64(hb[model.SrcLocID(ib)].mean) / float64(ha[model.SrcLocID(ia)].mean)
			got, err := strconv.ParseFloat(r.Cells["ratio"], 64)
			if err != nil || math.Abs(got-want) > 1e-12 {
				t.Errorf("%s: ratio %q, by hand %v", name, r.Cells["ratio"], want)
			}
		}
	}
}

// histPixels counts the canvas's pixels of A's, B's and the overlap's
// colours.
func (b *browser) histPixels() (a, bb, both int) {
	b.tb.Helper()
	var n [3]int
	b.evalSafe(`(() => {
  const c = document.querySelector('#cmp-hist');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const n = [0, 0, 0];
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    if (r === 0xdd && g === 0xdd && b === 0x22) n[0]++;
    else if (r === 0xdd && g === 0x22 && b === 0x22) n[1]++;
    else if (r === 0xdd && g === 0x88 && b === 0x22) n[2]++;
  }
  return n;
})()`, &n)
	return n[0], n[1], n[2]
}

func (b *browser) clickSelector(sel string) {
	b.tb.Helper()
	var r struct{ X, Y float64 }
	b.evalSafe(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "nearest"}); const r = e.getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`, sel), &r)
	b.click(r.X, r.Y)
}

func atoi64(s string) int64 {
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}

func testBrowserCompareSynthetic(t *testing.T) {
	ta, tb := synthtrace.ComparePair()
	c := newCompareServer(t, ta, tb)
	b := newBrowserHandler(t, c.Handler(), "compare-synthetic", 1500, 900, 1)
	ha, hb := handStats(ta), handStats(tb)

	b.openCompare("")
	b.waitLoaded("8 rows", `document.querySelectorAll('#cmp-table tbody tr').length === 8`)
	b.shot("01-table")
	rows := b.compareRows()
	checkRowsByHand(t, rows, ha, hb)
	// Sorted by ratio, slowest first; the rows of one trace only last.
	if rows[0].Text["name"] != "tick" || rows[6].B != "" || rows[7].A != "" {
		t.Errorf("order: first %s, last two %+v %+v", rows[0].Text["name"], rows[6], rows[7])
	}
	matched := map[string]string{}
	for _, r := range rows {
		matched[r.Text["name"]] = r.Matched
	}
	if matched["render"] != "file" || matched["physics"] != "name" || matched["update"] != "line" {
		t.Errorf("pairing shown: %v", matched)
	}
	var hash string
	b.evalSafe(`location.hash`, &hash)
	if hash != "#compare" {
		t.Errorf("hash %q, want #compare", hash)
	}

	// A click on update overlays both histograms; the bins hold every
	// counted zone of both traces.
	var updA string
	for _, r := range rows {
		if r.Text["name"] == "update" {
			updA = r.A
		}
	}
	b.clickSelector(`#cmp-table tr[data-key="a:` + updA + `"]`)
	b.waitLoaded("update's histogram", `!!(window.__gotracyCompare.drawn && window.__gotracyCompare.hist.row.name === 'update')`)
	b.evalSafe(`new Promise(r => requestAnimationFrame(() => r(true)))`, nil)
	b.shot("02-update-histogram")
	var sums [2]int
	b.evalSafe(`(() => { const h = window.__gotracyCompare.hist.h; return [h.counts_a.reduce((a, b) => a + b, 0), h.counts_b.reduce((a, b) => a + b, 0)]; })()`, &sums)
	id, _ := strconv.Atoi(updA)
	if uint64(sums[0]) != ha[model.SrcLocID(id)].count || sums[1] != 40 {
		t.Errorf("update's histogram holds %v zones, want %d and 40", sums, ha[model.SrcLocID(id)].count)
	}
	pa, pb, pboth := b.histPixels()
	if pa+pboth == 0 || pb+pboth == 0 {
		t.Errorf("histogram pixels: A %d, B %d, both %d: a trace is not drawn", pa, pb, pboth)
	}
	b.evalSafe(`location.hash`, &hash)
	if !strings.Contains(hash, "sel=a%3A"+updA) && !strings.Contains(hash, "sel=a:"+updA) {
		t.Errorf("hash %q does not name the selected row", hash)
	}
	var facts []string
	b.evalSafe(`[...document.querySelectorAll('#cmp-facts tbody tr')].map(tr => tr.textContent)`, &facts)
	if len(facts) != 7 || !strings.HasPrefix(facts[0], "Count4040") {
		t.Errorf("facts of update: %q", facts)
	}

	// Log time, as a link.
	b.clickSelector(`.cmp-hist .seg button:nth-child(2)`)
	b.waitLoaded("log time", `window.__gotracyCompare.hist && window.__gotracyCompare.hist.log === true && !!window.__gotracyCompare.drawn`)
	b.evalSafe(`new Promise(r => requestAnimationFrame(() => r(true)))`, nil)
	b.shot("03-log-time")
	b.evalSafe(`location.hash`, &hash)
	if !strings.Contains(hash, "log=1") {
		t.Errorf("hash %q lacks log=1", hash)
	}

	// Filter by typing; sort by a header.
	b.clickSelector("#cmp-filter")
	b.run("type a filter", chromedp.KeyEvent("TiCk"))
	b.waitLoaded("2 rows", `document.querySelectorAll('#cmp-table tbody tr').length === 2`)
	b.clickSelector(`#cmp-table th[data-key="mean-b"]`)
	b.waitLoaded("sorted by mean B", `location.hash.includes('sort=mean-b')`)
	rows = b.compareRows()
	if len(rows) != 2 || atoi64(rows[0].Cells["mean-b"]) < atoi64(rows[1].Cells["mean-b"]) {
		t.Errorf("after the filter and sort: %+v", rows)
	}
	b.shot("04-filter-sort")

	// The link reopens the same view in a fresh page.
	b.evalSafe(`location.hash`, &hash)
	b.openCompare(hash)
	b.waitLoaded("the same 2 rows", `document.querySelectorAll('#cmp-table tbody tr').length === 2`)
	var filter string
	b.evalSafe(`document.querySelector('#cmp-filter').value`, &filter)
	if filter != "TiCk" {
		t.Errorf("reopened filter %q", filter)
	}

	// Every sort key of the page orders rows as gotracy diff --sort does.
	for _, key := range analysis.CompareSortKeys {
		b.openCompare("#compare?sort=" + key)
		b.waitLoaded("8 rows", `document.querySelectorAll('#cmp-table tbody tr').length === 8`)
		cmp := analysis.Compare(ta, tb, analysis.CompareOptions{})
		if err := analysis.SortCompareRows(cmp.Rows, key, key != "name"); err != nil {
			t.Fatal(err)
		}
		got := b.compareRows()
		for i, r := range cmp.Rows {
			var want string
			if r.A != nil {
				want = "a:" + strconv.Itoa(int(r.A.SrcLoc))
			} else {
				want = "b:" + strconv.Itoa(int(r.B.SrcLoc))
			}
			if got[i].Key != want {
				t.Errorf("sort %s: row %d is %s, gotracy diff puts %s (%s) there", key, i, got[i].Key, want, r.Name)
				break
			}
		}
	}

	// Frame sets, as Tracy's Frames mode.
	b.openCompare("#compare?mode=frames")
	b.waitLoaded("3 frame sets", `document.querySelectorAll('#cmp-table tbody tr').length === 3 && document.querySelector('#cmp-match').hidden`)
	var frameRow string
	for _, r := range b.compareRows() {
		if r.Text["name"] == "Frame" {
			frameRow = r.Key
			if r.Cells["count-a"] != "39" || r.Cells["count-b"] != "39" {
				t.Errorf("Frame: %s and %s frames, want 39 each (the last runs to the end)", r.Cells["count-a"], r.Cells["count-b"])
			}
		}
	}
	b.clickSelector(`#cmp-table tr[data-key="` + frameRow + `"]`)
	b.waitLoaded("the frame-time histogram", `!!(window.__gotracyCompare.drawn && window.__gotracyCompare.hist.row.name === 'Frame')`)
	b.evalSafe(`(() => { const h = window.__gotracyCompare.hist.h; return [h.counts_a.reduce((a, b) => a + b, 0), h.counts_b.reduce((a, b) => a + b, 0)]; })()`, &sums)
	if sums != [2]int{39, 39} {
		t.Errorf("frame-time histogram holds %v frames, want 39 and 39", sums)
	}
	b.evalSafe(`new Promise(r => requestAnimationFrame(() => r(true)))`, nil)
	b.shot("06-frames")

	// Name-only pairing.
	b.openCompare("#compare?match=name")
	b.waitLoaded("8 rows", `document.querySelectorAll('#cmp-table tbody tr').length === 8`)
	for _, r := range b.compareRows() {
		if r.A != "" && r.B != "" && r.Matched != "name" {
			t.Errorf("match=name: %s paired by %q", r.Text["name"], r.Matched)
		}
	}

	// Trace A on its own: the full single-trace viewer, with a way back.
	// (Followed by navigating: a poll across a page change loses its
	// context.)
	var href string
	b.evalSafe(`document.querySelector('#tab-a').href`, &href)
	if href != b.base+"a/#statistics" {
		t.Errorf("tab A links to %q", href)
	}
	b.checkErrors()
	b.run("open A", chromedp.Navigate(href))
	b.waitLoaded("A's statistics", `!!document.querySelector('#stats-table') && !!document.querySelector('#tab-compare')`)
	var n int
	b.evalSafe(`document.querySelectorAll('#stats-table tbody tr').length`, &n)
	if n != len(ha) {
		t.Errorf("A's statistics: %d rows, want %d", n, len(ha))
	}
	var name string
	b.evalSafe(`document.querySelector('#trace-name').textContent`, &name)
	if name != "A · before.tracy" {
		t.Errorf("A's page is named %q", name)
	}
	b.shot("05-trace-a")
	b.evalSafe(`document.querySelector('#tab-compare').href`, &href)
	if href != b.base+"#compare" {
		t.Errorf("A's link back is %q", href)
	}
	b.checkErrors()
	b.run("back", chromedp.Navigate(href))
	b.waitLoaded("back to the comparison", `!!document.querySelector('#cmp-table')`)
}

func testBrowserCompareDemo(t *testing.T) {
	pa, pb := fixtures.Path(t, "demo.tracy"), fixtures.Path(t, "demo-ondemand.tracy")
	ta, err := tracefile.ReadFile(pa)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := tracefile.ReadFile(pb)
	if err != nil {
		t.Fatal(err)
	}
	c := newCompareServer(t, ta, tb, "demo.tracy", "demo-ondemand.tracy")
	b := newBrowserHandler(t, c.Handler(), "compare-demo", 1600, 1000, 1)
	ha, hb := handStats(ta), handStats(tb)
	b.openCompare("#compare?sort=total-a")
	b.waitLoaded("18 rows", `document.querySelectorAll('#cmp-table tbody tr').length === 18`)
	rows := b.compareRows()
	checkRowsByHand(t, rows, ha, hb)
	// And each side as tracy-csvexport printed it.
	for _, side := range []struct {
		csv  string
		suf  string
		pick func(domRow) string
	}{{"demo.csv", "-a", func(r domRow) string { return r.A }}, {"demo-ondemand.csv", "-b", func(r domRow) string { return r.B }}} {
		f, err := os.Open(fixtures.Path(t, side.csv))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][3]string{}
		for _, r := range recs[1:] {
			want[r[0]+" "+r[1]+":"+r[2]] = [3]string{r[5], r[3], r[6]}
		}
		for _, r := range rows {
			k := r.Text["name"] + " " + strings.SplitN(r.Text["location"], " → ", 2)[0]
			got := [3]string{r.Cells["count"+side.suf], r.Cells["total"+side.suf], r.Cells["mean"+side.suf]}
			if want[k] != got {
				t.Errorf("%s %s: count,total,mean %v, %s says %v", side.csv, k, got, side.csv, want[k])
			}
		}
	}
	var mww string
	for _, r := range rows {
		if r.Text["name"] == "main_wait_workers" {
			mww = r.A
			if r.Text["change"] != "+224.4%" {
				t.Errorf("main_wait_workers' change %q, gotracy diff says +224.4%%", r.Text["change"])
			}
		}
	}
	b.clickSelector(`#cmp-table tr[data-key="a:` + mww + `"]`)
	b.waitLoaded("main_wait_workers' histogram", `!!(window.__gotracyCompare.drawn && window.__gotracyCompare.hist.row.name === 'main_wait_workers')`)
	b.evalSafe(`new Promise(r => requestAnimationFrame(() => r(true)))`, nil)
	b.shot("01-main-wait-workers")
	pxa, pxb, both := b.histPixels()
	if pxa+both == 0 || pxb+both == 0 {
		t.Errorf("histogram pixels: A %d, B %d, both %d", pxa, pxb, both)
	}
	b.clickSelector(`.cmp-hist .seg button:nth-child(2)`)
	b.waitLoaded("log time", `window.__gotracyCompare.hist && window.__gotracyCompare.hist.log === true && !!window.__gotracyCompare.drawn`)
	b.evalSafe(`new Promise(r => requestAnimationFrame(() => r(true)))`, nil)
	b.shot("02-main-wait-workers-log")
}
