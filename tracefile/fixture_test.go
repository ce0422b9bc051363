package tracefile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
)

// demoCounts is the part of NAME.json (the demo's own count of what it
// emitted) the loader can be checked against.
type demoCounts struct {
	Zones       map[string]int `json:"zones"`
	ZonesTotal  int            `json:"zones_total"`
	Frames      int            `json:"frames"`
	FrameImages int            `json:"frame_images"`
	Plots       map[string]int `json:"plots"`
	Messages    int            `json:"messages"`
	Allocs      int            `json:"allocs"`
	Frees       int            `json:"frees"`
	AllocBytes  uint64         `json:"alloc_bytes"`
	LockAcq     int            `json:"lock_acquisitions"`
	ZoneTexts   int            `json:"zone_texts"`
	ZoneColors  int            `json:"zone_colors"`
}

func fixtureNames() []string {
	if race.Enabled || testing.Short() {
		return []string{"demo", "demo-ondemand", "heavy1m"}
	}
	return fixtures.Recordings
}

var infoFrames = regexp.MustCompile(`(?m)^Frames: (\d+)`)
var infoZones = regexp.MustCompile(`(?m)^Zones: ([\d,]+)`)

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
	}
	return n
}

// TestFixtures loads every real capture and checks its contents against the
// capture tool's summary (NAME.info.txt), the demo's own counts (NAME.json)
// and the real csvexport's message list.
func TestFixtures(t *testing.T) {
	for _, name := range fixtureNames() {
		t.Run(name, func(t *testing.T) {
			tr, err := ReadFile(fixtures.Path(t, name+".tracy"))
			if err != nil {
				t.Fatal(err)
			}
			info, err := os.ReadFile(fixtures.Path(t, name+".info.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var want demoCounts
			js, err := os.ReadFile(fixtures.Path(t, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(js, &want); err != nil {
				t.Fatal(err)
			}

			frames, _ := strconv.Atoi(infoFrames.FindStringSubmatch(string(info))[1])
			if got := len(tr.FrameSets[0].Frames); got != frames {
				t.Errorf("base frames = %d, capture said %d", got, frames)
			}
			zones, _ := strconv.Atoi(strings.ReplaceAll(infoZones.FindStringSubmatch(string(info))[1], ",", ""))
			if got := tr.ZoneCount(); got != zones || got != want.ZonesTotal {
				t.Errorf("zones = %d, capture said %d, demo emitted %d", got, zones, want.ZonesTotal)
			}
			byName := map[string]int{}
			texts, colors := 0, 0
			for i := range tr.Threads {
				for _, z := range tr.Threads[i].Zones.All() {
					byName[tr.ZoneName(z)]++
					if x := z.Extra(); x != 0 {
						if tr.ZoneExtras[x].Text != model.NoString {
							texts++
						}
						if tr.ZoneExtras[x].Color != 0 {
							colors++
						}
					}
				}
			}
			for n, c := range want.Zones {
				if byName[n] != c {
					t.Errorf("zones named %q = %d, want %d", n, byName[n], c)
				}
			}
			if texts != want.ZoneTexts || colors != want.ZoneColors {
				t.Errorf("zone texts/colours = %d/%d, want %d/%d", texts, colors, want.ZoneTexts, want.ZoneColors)
			}
			wantImages := want.FrameImages
			if tr.Metadata.OnDemand && wantImages > 0 {
				// The server drops an on-demand client's image of the frame
				// in which it connected (Worker::ProcessFrameImage, fidx <= 1).
				wantImages--
			}
			if got := len(tr.FrameImages); got != wantImages {
				t.Errorf("frame images = %d, want %d", got, wantImages)
			}
			linked := 0
			for _, f := range tr.FrameSets[0].Frames {
				if f.Image >= 0 {
					linked++
				}
			}
			if linked != wantImages {
				t.Errorf("frames with images = %d, want %d", linked, wantImages)
			}
			// csvexport -m prints every message: the demo's plus Tracy's own.
			if got, wantMsgs := len(tr.Messages), countLines(t, fixtures.Path(t, name+".messages.csv"))-1; got != wantMsgs {
				t.Errorf("messages = %d, csvexport listed %d", got, wantMsgs)
			}
			user := 0
			for i := range tr.Messages {
				if tr.Messages[i].Thread == 0xFFFF {
					t.Fatalf("message %d belongs to no thread", i)
				}
				s := tr.RefString(tr.Messages[i].Text)
				if strings.HasPrefix(s, "worker ") || s == "literal message" || s == "demo start" || s == "demo end" {
					user++
				}
			}
			if user != want.Messages {
				t.Errorf("user messages = %d, want %d", user, want.Messages)
			}
			for n, c := range want.Plots {
				found := false
				for _, p := range tr.Plots {
					if s, _ := tr.PtrString(p.Name); s == n {
						found = true
						if len(p.Points) != c {
							t.Errorf("plot %q has %d points, want %d", n, len(p.Points), c)
						}
					}
				}
				if !found {
					t.Errorf("plot %q missing", n)
				}
			}
			c := fixtures.Count(tr)
			if c.Allocs != want.Allocs || c.Frees != want.Frees || c.AllocBytes != want.AllocBytes {
				t.Errorf("memory: %d allocs, %d frees, %d bytes; want %d, %d, %d", c.Allocs, c.Frees, c.AllocBytes, want.Allocs, want.Frees, want.AllocBytes)
			}
			if c.LockObtains != want.LockAcq {
				t.Errorf("lock acquisitions = %d, want %d", c.LockObtains, want.LockAcq)
			}
			if want.Allocs > 0 {
				// TracyAllocS with depth 8: call stacks resolve to frames and symbols.
				if tr.NumCallStacks() == 0 || len(tr.Frames) == 0 || len(tr.Symbols) == 0 {
					t.Errorf("call stacks %d, frames %d, symbols %d", tr.NumCallStacks(), len(tr.Frames), len(tr.Symbols))
				}
			}
		})
	}
}

// TestFixtureRoundTrip: fixture -> read -> write -> read gives the same
// model, and writing that again gives the same bytes.
func TestFixtureRoundTrip(t *testing.T) {
	// heavy10m adds nothing heavy1m does not cover but half a minute.
	for _, name := range []string{"demo", "demo-ondemand", "heavy1m"} {
		t.Run(name, func(t *testing.T) {
			tr, err := ReadFile(fixtures.Path(t, name+".tracy"))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WritePayload(&buf, tr); err != nil {
				t.Fatal(err)
			}
			first := buf.Bytes()
			tr2, err := ReadPayload(bytes.NewReader(first), int64(len(first)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := diffTraces(tr, tr2); diff != "" {
				t.Fatalf("model changed in a round trip: %s", diff)
			}
			var buf2 bytes.Buffer
			if err := WritePayload(&buf2, tr2); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first, buf2.Bytes()) {
				t.Fatalf("second write differs (%d vs %d bytes)", len(first), buf2.Len())
			}
		})
	}
}

// TestRewriteMatchesRealLayout: writing a real capture back gives a
// payload of exactly the real writer's length. Only identities (string
// ptrs, message ids) and hash-map order may differ from Tracy's bytes, and
// none of them changes a length, so any layout slip in any section shows.
func TestRewriteMatchesRealLayout(t *testing.T) {
	for _, name := range []string{"demo", "demo-ondemand", "heavy1m"} {
		p := fixturePayload(t, name+".tracy")
		tr, err := ReadPayload(bytes.NewReader(p), int64(len(p)))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WritePayload(&buf, tr); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != len(p) {
			t.Errorf("%s: rewrote %d bytes, Tracy wrote %d", name, buf.Len(), len(p))
		}
		// The zone-heavy capture has few strings, messages and map entries:
		// only their identity bytes (ptrs, ids, map order; 155 bytes when
		// this was written) may differ, never the 26 MB of zones.
		if name == "heavy1m" && buf.Len() == len(p) {
			diff := 0
			for i := range p {
				if p[i] != buf.Bytes()[i] {
					diff++
				}
			}
			if diff > 1024 {
				t.Errorf("%s: %d of %d bytes differ from Tracy's", name, diff, len(p))
			}
		}
	}
}
