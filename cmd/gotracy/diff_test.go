package main

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// syntheticPair writes synthtrace.ComparePair to two .tracy files, so the
// diff tests need nothing outside the repository.
func syntheticPair(t *testing.T) (a, b string) {
	t.Helper()
	ta, tb := synthtrace.ComparePair()
	dir := t.TempDir()
	a, b = filepath.Join(dir, "before.tracy"), filepath.Join(dir, "after.tracy")
	if err := tracefile.WriteFile(a, ta); err != nil {
		t.Fatal(err)
	}
	if err := tracefile.WriteFile(b, tb); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func TestDiffSyntheticGolden(t *testing.T) {
	a, b := syntheticPair(t)
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"diff/synthetic.txt", nil},
		{"diff/synthetic-match-file.txt", []string{"--match", "file"}},
		{"diff/synthetic-match-name.txt", []string{"--match", "name", "--sort", "name"}},
		{"diff/synthetic-filter.txt", []string{"-f", "TICK", "--sort", "total-a"}},
		{"diff/synthetic.csv", []string{"--csv"}},
		{"diff/synthetic.json", []string{"--json", "--fail-above", "25"}},
		{"diff/synthetic-frames.txt", []string{"--frames"}},
		{"diff/synthetic-frames.json", []string{"--frames", "--json", "--sort", "name"}},
	} {
		out, errOut, code := runCLI(t, append([]string{"diff", a, b}, c.args...)...)
		if c.golden == "diff/synthetic.json" {
			// render and the ticks are 30% slower: more than 25%.
			if code != 1 {
				t.Errorf("%v: exit %d, want 1 (stderr %q)", c.args, code, errOut)
			}
		} else if code != 0 {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
		}
		checkGolden(t, c.golden, []byte(out))
	}
}

// The exit status follows the slowest paired zone: the synthetic pair's
// render and ticks are 30% slower (by construction, checked here from the
// CSV output's own means), update about 18%.
func TestDiffFailAbove(t *testing.T) {
	a, b := syntheticPair(t)
	out, _, code := runCLI(t, "diff", "--csv", a, b)
	if code != 0 {
		t.Fatalf("diff --csv exited %d", code)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, r := range recs[1:] {
		if r[col["a_mean_ns"]] == "" || r[col["b_mean_ns"]] == "" {
			continue
		}
		ma, mb := atof(t, r[col["a_mean_ns"]]), atof(t, r[col["b_mean_ns"]])
		worst = max(worst, (mb-ma)/ma*100)
	}
	if worst < 25 || worst > 35 {
		t.Fatalf("worst slowdown %.2f%%, the pair was built for about 30%%", worst)
	}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--fail-above", "50"}, 0, ""},
		{[]string{"--fail-above", "0"}, 1, "render"},
		{[]string{"--fail-above", "25"}, 1, "tick"},
		{[]string{"--fail-above", "10", "--min-count", "1000"}, 0, ""},
		{[]string{"-f", "fast", "--fail-above", "0"}, 0, ""}, // fast got faster
		{[]string{"-f", "load", "--fail-above", "0"}, 0, ""}, // A's only: nothing to compare
		{[]string{"--fail-above", "1e9"}, 0, ""},
	} {
		_, errOut, code := runCLI(t, append([]string{"diff", a, b}, c.args...)...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errOut)
		}
		if c.code == 1 {
			oneLine(t, "diff", errOut)
			if !strings.Contains(errOut, c.says) {
				t.Errorf("%v: stderr %q does not name %s", c.args, errOut, c.says)
			}
		} else if errOut != "" {
			t.Errorf("%v: stderr %q", c.args, errOut)
		}
	}
	// A threshold just under the worst slowdown fails, just over passes:
	// the boundary is the measured figure, not a rounding of it.
	for _, c := range []struct {
		pct  float64
		code int
	}{{worst - 0.01, 1}, {worst + 0.01, 0}} {
		_, _, code := runCLI(t, "diff", a, b, "--fail-above", ftoa(c.pct))
		if code != c.code {
			t.Errorf("--fail-above %s: exit %d, want %d", ftoa(c.pct), code, c.code)
		}
	}
}

func TestDiffUsage(t *testing.T) {
	a, b := syntheticPair(t)
	for _, args := range [][]string{
		{"diff", a},
		{"diff", a, b, b},
		{"diff", a, b, "--json", "--csv"},
		{"diff", a, b, "--match", "lines"},
		{"diff", a, b, "--sort", "speed"},
		{"diff", a, b, "--fail-above", "-1"},
		{"diff", a, b, "--fail-above", "ten"},
		{"diff", a, b, "--no-such-flag"},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, "Usage: gotracy diff") {
			t.Errorf("%v: exit %d, want 2 with the usage (stderr %q)", args[1:], code, errOut)
		}
	}
	_, errOut, code := runCLI(t, "diff", a, filepath.Join(t.TempDir(), "missing.tracy"))
	if code != 1 {
		t.Errorf("a missing file: exit %d, want 1", code)
	}
	oneLine(t, "diff", errOut)
	_, errOut, code = runCLI(t, "diff", a, t.TempDir())
	if code != 1 {
		t.Errorf("a directory: exit %d, want 1 (%q)", code, errOut)
	}
}

// On the real fixtures: the golden table, its exit statuses, and each
// side's figures equal to `gotracy csv` of its file.
func TestDiffFixtures(t *testing.T) {
	cacheLoads(t)
	a, b := fixtures.Path(t, "demo.tracy"), fixtures.Path(t, "demo-ondemand.tracy")
	out, errOut, code := runCLI(t, "diff", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkGolden(t, "diff/demo.txt", []byte(out))
	out, _, _ = runCLI(t, "diff", a, b, "--sort", "name", "--json")
	checkGolden(t, "diff/demo.json", []byte(out))
	out, _, _ = runCLI(t, "diff", a, b, "--frames")
	checkGolden(t, "diff/demo-frames.txt", []byte(out))
	// The base frame set got 11.5% faster (29.57 ms to 26.17 ms a frame).
	if _, errOut, code := runCLI(t, "diff", b, a, "--frames", "--fail-above", "10"); code != 1 || !strings.Contains(errOut, "1 frame set's mean frame time is more than 10% slower") {
		t.Errorf("frames, B against A: exit %d, %q", code, errOut)
	}
	// main_wait_workers is the slowest, +224.4%.
	if _, errOut, code := runCLI(t, "diff", a, b, "--fail-above", "200"); code != 1 || !strings.Contains(errOut, "main_wait_workers +224.4%") {
		t.Errorf("--fail-above 200: exit %d, %q", code, errOut)
	}
	if _, _, code := runCLI(t, "diff", a, b, "--fail-above", "225"); code != 0 {
		t.Errorf("--fail-above 225: exit %d", code)
	}
	// The same file against itself: all ratios 1, nothing slower.
	out, _, code = runCLI(t, "diff", a, a, "--fail-above", "0", "--csv")
	if code != 0 {
		t.Errorf("demo against itself: exit %d", code)
	}
	self, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range self[1:] {
		if r[len(r)-1] != "1.000000" || r[len(r)-2] != "0" {
			t.Errorf("demo against itself: %v", r)
		}
	}

	var j struct {
		Rows []struct {
			Name string `json:"name"`
			A, B *struct {
				File  string `json:"src_file"`
				Line  uint32 `json:"src_line"`
				Count uint64 `json:"counts"`
				Total int64  `json:"total_ns"`
				Mean  int64  `json:"mean_ns"`
				Min   int64  `json:"min_ns"`
				Max   int64  `json:"max_ns"`
			}
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out2(t, "diff", a, b, "--json")), &j); err != nil {
		t.Fatal(err)
	}
	for side, file := range map[string]string{"A": a, "B": b} {
		csvOut := out2(t, "csv", file)
		recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, r := range recs[1:] {
			want[r[0]+" "+r[1]+":"+r[2]] = strings.Join([]string{r[5], r[3], r[6], r[7], r[8]}, ",")
		}
		n := 0
		for _, r := range j.Rows {
			s := r.A
			if side == "B" {
				s = r.B
			}
			if s == nil {
				continue
			}
			n++
			k := r.Name + " " + s.File + ":" + itoa(int64(s.Line))
			got := strings.Join([]string{itoa(int64(s.Count)), itoa(s.Total), itoa(s.Mean), itoa(s.Min), itoa(s.Max)}, ",")
			if want[k] != got {
				t.Errorf("%s %s: count,total,mean,min,max %s; gotracy csv says %s", side, k, got, want[k])
			}
		}
		if n != len(want) {
			t.Errorf("%s: %d rows, gotracy csv has %d", side, n, len(want))
		}
	}
}

func out2(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	return out
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// The stderr line names the worst slowdowns first, whatever the table's
// order.
func TestDiffFailNamesWorstFirst(t *testing.T) {
	a, b := syntheticPair(t)
	_, errOut, code := runCLI(t, "diff", a, b, "--sort", "name", "--fail-above", "10")
	// tick (line 40) +31.0%, render +27.8%, tick (line 30) +27.7%, update +17.7%.
	want := "4 zones' means are more than 10% slower in after.tracy than in before.tracy: tick +31.0% (12.43 μs -> 16.29 μs), render +27.8% (256.88 μs -> 328.4 μs), tick +27.7% (12.65 μs -> 16.15 μs), update +17.7% (1.12 ms -> 1.32 ms)\n"
	if code != 1 || errOut != "gotracy diff: "+want {
		t.Errorf("exit %d, stderr\n%q, want\n%q", code, errOut, "gotracy diff: "+want)
	}
}

// A trace without zones against one with: every row is B's only, nothing
// to compare, exit 0 even with --fail-above 0.
func TestDiffEmptyTrace(t *testing.T) {
	_, b := syntheticPair(t)
	empty := filepath.Join(t.TempDir(), "empty.tracy")
	if err := tracefile.WriteFile(empty, model.NewBuilder().Finish()); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "diff", empty, b, "--fail-above", "0")
	if code != 0 || !strings.Contains(out, "0 locations paired by name, file and line, then name and file, then name; 0 only in A, 7 only in B") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	out, _, code = runCLI(t, "diff", empty, empty, "--json")
	if code != 0 || !strings.Contains(out, `"rows": []`) {
		t.Errorf("two empty traces: exit %d:\n%s", code, out)
	}
}
