package chrome

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

var update = flag.Bool("update", false, "rewrite the golden csv files")

// TestImportGolden imports testdata/golden.json, written by hand from the
// Chrome trace event format, and compares gotracy csv's outputs with
// goldens whose figures were checked by hand against Tracy 0.14's
// import-chrome rules (DESIGN.md, "formats"): 2.038 µs truncates to 2037 ns as the double
// 2.038*1000 does, the whole trace shifts by the first zone event (1.5 µs),
// the unmatched E at 20 µs ends the trace at 18500 ns, "second" and
// "hello" (equal times) come out reversed, "Frame start" becomes frames.
func TestImportGolden(t *testing.T) {
	in, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Import(bytes.NewReader(in), ImportOptions{CaptureName: "golden.tracy", CaptureProgram: "golden.json"})
	if err != nil {
		t.Fatal(err)
	}
	// What the csv reads is the saved file, as with Tracy's tools: save and
	// load it first.
	var file bytes.Buffer
	if err := tracefile.Write(&file, tr); err != nil {
		t.Fatal(err)
	}
	if tr, err = tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len())); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		o    analysis.CSVOptions
	}{
		{"golden.csv", analysis.CSVOptions{}},
		{"golden.self.csv", analysis.CSVOptions{SelfTime: true}},
		{"golden.unwrap.csv", analysis.CSVOptions{Unwrap: true, Plots: true}},
		{"golden.messages.csv", analysis.CSVOptions{Messages: true}},
	} {
		c.o.Separator = ","
		var got bytes.Buffer
		if err := analysis.WriteCSV(&got, tr, c.o); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", c.file)
		if *update {
			os.WriteFile(path, got.Bytes(), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs:\n got:\n%s\nwant:\n%s", c.file, got.Bytes(), want)
		}
	}
	if got := tr.Metadata.LastTime; got != 18500 {
		t.Errorf("LastTime %d, want 18500 (the unmatched E at 20 µs, shifted by 1.5 µs)", got)
	}
	names := map[string]bool{}
	for _, th := range tr.Threads {
		names[tr.ThreadName(th.ID)] = true
	}
	for _, n := range []string{"(PID 1 TID 10) main", "7"} {
		if !names[n] {
			t.Errorf("no thread named %q (have %v)", n, names)
		}
	}
	if len(tr.FrameSets) != 1 || len(tr.FrameSets[0].Frames) != 2 || tr.FrameSets[0].Frames[1].Start != 6500 {
		t.Errorf("frame sets %+v, want one set of two frames (0, 6500)", tr.FrameSets)
	} else if n, _ := tr.PtrString(tr.FrameSets[0].Name); n != "Frame start" {
		t.Errorf("frame set named %q", n)
	}
	open := 0
	for _, th := range tr.Threads {
		for _, z := range th.Zones.All() {
			if z.End() < 0 {
				open++
				if tr.ZoneName(z) != "open" {
					t.Errorf("zone %q never ended", tr.ZoneName(z))
				}
			}
		}
	}
	if open != 1 {
		t.Errorf("%d open zones, want 1", open)
	}
	var memFormat uint8 = 99
	for _, p := range tr.Plots {
		if n, _ := tr.PtrString(p.Name); n == "heap_bytes" {
			memFormat = p.Format
		}
	}
	if memFormat != model.PlotFormatMemory {
		t.Errorf("heap_bytes plot format %d, want memory", memFormat)
	}
}
