package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/synthtrace"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	// -update refreshes golden files. Another test file of this package may
	// define it too; whichever comes first wins.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files in testdata")
	}
}

func updatingGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if updatingGolden() {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	compareLines(t, name, got, want)
}

// stripLoadLine drops the one line of `info` text that varies run to run.
func stripLoadLine(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "Load time:") {
			b.WriteString(l)
		}
	}
	return b.String()
}

func TestInfoGolden(t *testing.T) {
	cacheLoads(t)
	for _, name := range fixtureTraces() {
		t.Run(name, func(t *testing.T) {
			trace := fixtures.Path(t, name+".tracy")
			out, errOut, code := runCLI(t, "info", trace)
			if code != 0 {
				t.Fatalf("info: exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, "\nLoad time:") {
				t.Errorf("info output has no load time line:\n%s", out)
			}
			checkGolden(t, "info/"+name+".txt", []byte(stripLoadLine(out)))

			out, errOut, code = runCLI(t, "info", "--json", trace)
			if code != 0 {
				t.Fatalf("info --json: exit %d: %s", code, errOut)
			}
			checkAgainstCapture(t, trace, name, out)
			var doc map[string]any
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("info --json is not JSON: %v\n%s", err, out)
			}
			load, ok := doc["load"].(map[string]any)
			if !ok || load["seconds"] == nil || load["payload_mb_per_s"] == nil {
				t.Errorf("info --json has no load figures: %v", doc["load"])
			}
			delete(doc, "load")
			stable, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "info/"+name+".json", append(stable, '\n'))
		})
	}
}

// checkAgainstCapture compares info --json with what the real capture tool
// printed for the recording (NAME.info.txt: frames, time span, zones).
func checkAgainstCapture(t *testing.T, trace, name, jsonOut string) {
	t.Helper()
	captured, err := os.ReadFile(filepath.Join(filepath.Dir(trace), name+".info.txt"))
	if err != nil {
		t.Logf("no capture summary: %v", err)
		return
	}
	var doc struct {
		Summary struct {
			Frames     int   `json:"frames"`
			Zones      int64 `json:"zones"`
			TimeSpanNs int64 `json:"time_span_ns"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &doc); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, l := range strings.Split(string(captured), "\n") {
		var got, want string
		switch {
		case strings.HasPrefix(l, "Frames: "):
			got, want = thousands(uint64(doc.Summary.Frames)), strings.TrimPrefix(l, "Frames: ")
		case strings.HasPrefix(l, "Zones: "):
			got, want = thousands(uint64(doc.Summary.Zones)), strings.TrimPrefix(l, "Zones: ")
		case strings.HasPrefix(l, "Time span: "):
			got, want = analysis.FormatTime(doc.Summary.TimeSpanNs), strings.TrimPrefix(l, "Time span: ")
		default:
			continue
		}
		seen++
		if got != want {
			t.Errorf("%s: gotracy says %s, the capture tool said %s", l, got, want)
		}
	}
	if seen != 3 {
		t.Errorf("found %d of the 3 figures in %s.info.txt", seen, name)
	}
}

// TestInfoCountsWhileLoading: info counts the zones it summarizes (depth,
// unended, zero-length) while the file loads, thread by thread, and prints
// what Summarize gives after the load (run with -race).
func TestInfoCountsWhileLoading(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 120_000, Threads: 6, Seed: 8})
	z := tr.Threads[3].Zones.At(11)
	z.SetEnd(z.Start())
	path := filepath.Join(t.TempDir(), "six.tracy")
	if err := tracefile.WriteFile(path, tr); err != nil {
		t.Fatal(err)
	}
	loaded, err := tracefile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := analysis.Summarize(loaded)
	summarizedWhileLoading = 0
	out, errOut, code := runCLI(t, "info", "--json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if summarizedWhileLoading != len(loaded.Threads) {
		t.Errorf("%d threads counted while loading, want all %d", summarizedWhileLoading, len(loaded.Threads))
	}
	var doc struct {
		Summary struct {
			Depth int    `json:"max_zone_depth"`
			Zero  uint64 `json:"zones_zero_length"`
			Unend uint64 `json:"zones_unended"`
			Zones uint64 `json:"zones"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Summary
	if got.Depth != want.MaxZoneDepth || got.Zero != want.ZonesZeroLength || got.Unend != want.ZonesUnended || got.Zones != want.Zones || got.Zero != 1 || got.Depth < 5 {
		t.Errorf("info says depth %d, zero-length %d, unended %d, zones %d; Summarize %d %d %d %d",
			got.Depth, got.Zero, got.Unend, got.Zones, want.MaxZoneDepth, want.ZonesZeroLength, want.ZonesUnended, want.Zones)
	}
}
