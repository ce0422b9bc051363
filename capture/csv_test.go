package capture

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// TestReplayCSV is the end-to-end check of the issue: replay a recording,
// save it as a .tracy file, load it back, and the csvexport output equals
// what the real Tracy 0.14.0 csvexport printed for the real capture.
func TestReplayCSV(t *testing.T) {
	cases := []struct {
		name string
		file string // expected output beside the recording
		opt  analysis.CSVOptions
	}{
		{"demo", "demo.csv", analysis.CSVOptions{}},
		{"demo", "demo.self.csv", analysis.CSVOptions{SelfTime: true}},
		{"demo", "demo.messages.csv", analysis.CSVOptions{Messages: true}},
		{"demo", "demo.unwrap.csv", analysis.CSVOptions{Unwrap: true}},
		{"demo", "demo.plots.csv", analysis.CSVOptions{Unwrap: true, Plots: true}},
		{"demo-ondemand", "demo-ondemand.csv", analysis.CSVOptions{}},
		{"demo-ondemand", "demo-ondemand.self.csv", analysis.CSVOptions{SelfTime: true}},
		{"demo-ondemand", "demo-ondemand.messages.csv", analysis.CSVOptions{Messages: true}},
		{"demo-ondemand", "demo-ondemand.unwrap.csv", analysis.CSVOptions{Unwrap: true}},
		{"demo-ondemand", "demo-ondemand.plots.csv", analysis.CSVOptions{Unwrap: true, Plots: true}},
		{"heavy1m", "heavy1m.csv", analysis.CSVOptions{}},
		{"heavy1m", "heavy1m.self.csv", analysis.CSVOptions{SelfTime: true}},
		{"heavy1m", "heavy1m.messages.csv", analysis.CSVOptions{Messages: true}},
		{"heavy1m", "heavy1m.unwrap.csv.gz", analysis.CSVOptions{Unwrap: true}},
		{"heavy10m", "heavy10m.csv", analysis.CSVOptions{}},
		{"heavy10m", "heavy10m.self.csv", analysis.CSVOptions{SelfTime: true}},
	}
	loaded := map[string]*model.Trace{}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			if c.name == "heavy10m" && (race.Enabled || testing.Short()) {
				t.Skip("10M-zone replay skipped under -race/-short")
			}
			want := readExpected(t, c.file)
			tr := loaded[c.name]
			if tr == nil {
				res := replayFixture(t, c.name)
				var file bytes.Buffer
				if err := tracefile.Write(&file, res.Trace); err != nil {
					t.Fatalf("write: %v", err)
				}
				var err error
				tr, err = tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
				if err != nil {
					t.Fatalf("read back: %v", err)
				}
				loaded = map[string]*model.Trace{c.name: tr}
			}
			var got bytes.Buffer
			if err := analysis.WriteCSV(&got, tr, c.opt); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				diffLines(t, got.String(), want)
			}
		})
	}
}

func readExpected(t *testing.T, name string) string {
	f, err := os.Open(fixtures.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func diffLines(t *testing.T, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	bad := 0
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			if bad < 5 {
				t.Errorf("line %d:\n got  %q\n want %q", i+1, gl, wl)
			}
			bad++
		}
	}
	t.Errorf("%d of %d lines differ (got %d lines)", bad, len(w), len(g))
}
