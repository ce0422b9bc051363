package tracereport

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// TestReportKeys: the keys scripts read from `gotracy info --json` and
// /api/v1/trace stay what they are, and the figures come from the load
// report.
func TestReportKeys(t *testing.T) {
	rep := &tracefile.Report{Version: 0x000E0000, Compression: "Zstd", Streams: 4, FileBytes: 1000, PayloadBytes: 4000, Duration: 2 * time.Second}
	s := analysis.Summarize(model.New())
	s.Zones = 10
	r := New("/home/someone/traces/x.tracy", rep, s)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	keys := func(o map[string]any) []string {
		var k []string
		for n := range o {
			k = append(k, n)
		}
		slices.Sort(k)
		return k
	}
	if got, want := keys(m["file"]), []string{"compression", "file_bytes", "name", "payload_bytes", "streams", "version"}; !slices.Equal(got, want) {
		t.Errorf("file keys %v, want %v", got, want)
	}
	if got, want := keys(m["load"]), []string{"payload_mb_per_s", "seconds", "zones_per_s"}; !slices.Equal(got, want) {
		t.Errorf("load keys %v, want %v", got, want)
	}
	if r.File.Name != "x.tracy" || r.File.Version != tracefile.VersionString(rep.Version) || r.Load.Seconds != 2 || r.Load.ZonesPerSec != 5 {
		t.Errorf("report %+v", r)
	}
	if _, ok := m["summary"]["zones"]; !ok {
		t.Errorf("summary lacks zones: %v", m["summary"])
	}
}
