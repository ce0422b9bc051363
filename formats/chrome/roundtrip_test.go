package chrome

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/tracefile"
)

// csvRows returns the csv output's header and its rows sorted: an imported
// trace's source locations are new ones, so Tracy's hash order of them
// differs from the original's. Every column is compared, total_perc too:
// the exported frame at 0 and the last events pin the trace's span.
func csvRows(data []byte) []string {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	slices.Sort(lines[1:])
	return lines
}

func TestFixtureRoundTrip(t *testing.T) {
	fixtures.Path(t, "demo.tracy") // one skip line when the fixtures are absent
	for _, name := range []string{"demo", "demo-ondemand", "heavy1m"} {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name == "heavy1m" {
				t.Skip("heavy1m in -short mode")
			}
			path := fixtures.Path(t, name+".tracy")
			orig, err := tracefile.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var js bytes.Buffer
			if err := Export(&js, orig, ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			back, err := Import(bytes.NewReader(js.Bytes()), ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if back.ZoneCount() != orig.ZoneCount() {
				t.Errorf("zones: %d after the round trip, %d before", back.ZoneCount(), orig.ZoneCount())
			}
			for _, self := range []bool{false, true} {
				want, err := os.ReadFile(fixtures.Path(t, name+map[bool]string{false: ".csv", true: ".self.csv"}[self]))
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := analysis.WriteCSV(&got, back, analysis.CSVOptions{Separator: ",", SelfTime: self}); err != nil {
					t.Fatal(err)
				}
				g, w := csvRows(got.Bytes()), csvRows(want)
				if !slices.Equal(g, w) {
					for i := range max(len(g), len(w)) {
						var a, b string
						if i < len(g) {
							a = g[i]
						}
						if i < len(w) {
							b = w[i]
						}
						if a != b {
							t.Errorf("self=%v row %d:\n got %s\nwant %s", self, i, a, b)
						}
					}
				}
			}
		})
	}
}
