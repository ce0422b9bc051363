package viewer_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/synthtrace"
)

// BenchmarkBrowserMemory10M drives the memory view in headless Chromium on
// a synthetic trace of 10 M allocations in one pool: each step is a click
// (next page of the live allocations sorted by size, a sort by lifetime,
// the bottom-up tree of what is live, a new moment on the graph) timed in
// the page from the click until the new table is in the DOM. The first
// request builds the server's memory index; it is reported on its own.
func BenchmarkBrowserMemory10M(b *testing.B) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 100_000, Threads: 4, Seed: 3})
	tr = synthtrace.AddDeep(tr, synthtrace.MemSpec{Allocs: 10_000_000, Pools: -1, Seed: 3})
	br := newBrowser(b, tr, "mem10m", 1600, 1000, 1)
	mid := tr.Metadata.LastTime / 2
	start := time.Now()
	br.open(fmt.Sprintf("#memory?filter=active&t=%d&sort=size&desc=1", mid))
	br.waitFor("the first live page", `document.querySelectorAll('#mem-table tbody tr').length === 100`)
	firstPage := time.Since(start)
	// Let the background sort orders finish, as a user reading the first
	// page would.
	time.Sleep(8 * time.Second)
	br.shot("01-live-by-size")
	// step clicks what the expression finds and waits for a new table.
	names := map[string][]float64{}
	step := func(click string) float64 {
		var ms float64
		br.eval(`(async () => {
			const old = document.querySelector('#mem-table, #mem-tree');
			const t0 = performance.now();
			`+click+`;
			for (;;) {
				await new Promise(r => requestAnimationFrame(r));
				const now = document.querySelector('#mem-table, #mem-tree');
				if (now && now !== old) return performance.now() - t0;
				if (performance.now() - t0 > 20000) return -1;
			}
		})()`, &ms)
		if ms < 0 {
			b.Fatalf("no new table after %s", click)
		}
		names[click[:min(60, len(click))]] = append(names[click[:min(60, len(click))]], ms)
		return ms
	}
	var times []float64
	b.ResetTimer()
	for b.Loop() {
		for k := 0; k < 5; k++ {
			times = append(times, step(`[...document.querySelectorAll('.pager .btn')].find(x => x.textContent.startsWith('Next')).click()`))
		}
		times = append(times, step(`document.querySelector('#mem-table th[data-key="lifetime"]').click()`))
		times = append(times, step(`document.querySelector('#mem-table th[data-key="size"]').click()`))
		times = append(times, step(`document.querySelector('#view-memory .seg button[data-v="bottomup"]').click()`))
		times = append(times, step(`document.querySelector('#view-memory .seg button[data-v="list"]').click()`))
		times = append(times, step(`(() => { const c = document.querySelector('.memgraph'); const r = c.getBoundingClientRect(); c.dispatchEvent(new MouseEvent('click', {clientX: r.left + r.width * 0.3, clientY: r.top + 40, bubbles: true})) })()`))
	}
	b.StopTimer()
	br.shot("02-after-steps")
	for k, v := range names {
		b.Logf("%6.1f ms max  %s", slices.Max(v), k)
	}
	b.ReportMetric(firstPage.Seconds(), "first-page-s")
	slices.Sort(times)
	b.ReportMetric(times[len(times)/2], "median-ms")
	b.ReportMetric(times[len(times)*95/100], "p95-ms")
	b.ReportMetric(times[len(times)-1], "max-ms")
}
