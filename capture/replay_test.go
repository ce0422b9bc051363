package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
)

// demoCounts is the part of NAME.json (the demo's own count of what it
// emitted) the replay is checked against.
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
	Locks       int            `json:"lock_acquisitions"`
	ZoneTexts   int            `json:"zone_texts"`
	ZoneColors  int            `json:"zone_colors"`
}

func replayFixture(t testing.TB, name string) *Result {
	t.Helper()
	f, err := os.Open(fixtures.Path(t, name+".c2s.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Replay(context.Background(), f)
	if err != nil {
		t.Fatalf("replay %s: %v", name, err)
	}
	if res.Stop != StopClientExit {
		t.Fatalf("replay %s stopped with %v", name, res.Stop)
	}
	return res
}

func loadCounts(t testing.TB, name string) demoCounts {
	b, err := os.ReadFile(fixtures.Path(t, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var c demoCounts
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func zoneNameCounts(tr *model.Trace) map[string]int {
	m := map[string]int{}
	for i := range tr.Threads {
		for _, z := range tr.Threads[i].Zones.All() {
			m[tr.ZoneName(z)]++
		}
	}
	return m
}

func TestReplayFixtures(t *testing.T) {
	for _, name := range fixtures.Recordings {
		t.Run(name, func(t *testing.T) {
			if name == "heavy10m" && (race.Enabled || testing.Short()) {
				t.Skip("10M-zone replay skipped under -race/-short")
			}
			res := replayFixture(t, name)
			tr := res.Trace
			want := loadCounts(t, name)
			got := zoneNameCounts(tr)
			for n, c := range want.Zones {
				if got[n] != c {
					t.Errorf("zone %q: %d, want %d", n, got[n], c)
				}
			}
			if n := tr.ZoneCount(); n != want.ZonesTotal {
				t.Errorf("zones: %d, want %d", n, want.ZonesTotal)
			}
			// Tracy adds a frame at time 0 and at the client's init end (and
			// at the connection time on demand).
			extra := 2
			if res.OnDemand != nil {
				extra = 3
			}
			if n := len(tr.FrameSets[0].Frames); n != want.Frames+extra {
				t.Errorf("base frames: %d, want %d", n, want.Frames+extra)
			}
			// An on-demand server drops images for frames before the
			// connection (fidx <= 1): the demo's first image, frame 0.
			wantImages := want.FrameImages
			if res.OnDemand != nil {
				wantImages--
			}
			if n := len(tr.FrameImages); n != wantImages {
				t.Errorf("frame images: %d, want %d", n, wantImages)
			}
			user := 0
			for _, m := range tr.Messages {
				if m.Source == model.MsgSourceUser {
					user++
				}
			}
			if user != want.Messages {
				t.Errorf("user messages: %d, want %d", user, want.Messages)
			}
			plots := map[string]int{}
			for _, p := range tr.Plots {
				if p.Type == model.PlotUser {
					s, _ := tr.PtrString(p.Name)
					plots[s] = len(p.Points)
				}
			}
			for n, c := range want.Plots {
				if plots[n] != c {
					t.Errorf("plot %q: %d points, want %d", n, plots[n], c)
				}
			}
			c := fixtures.Count(tr)
			if c.Allocs != want.Allocs || c.Frees != want.Frees || c.AllocBytes != want.AllocBytes {
				t.Errorf("memory: %d allocs, %d frees, %d bytes; want %d, %d, %d", c.Allocs, c.Frees, c.AllocBytes, want.Allocs, want.Frees, want.AllocBytes)
			}
			if c.LockObtains != want.Locks {
				t.Errorf("lock obtains: %d, want %d", c.LockObtains, want.Locks)
			}
			texts, colors := 0, 0
			for _, e := range tr.ZoneExtras[1:] {
				if e.Text != 0 {
					texts++
				}
				if e.Color != 0 {
					colors++
				}
			}
			if texts != want.ZoneTexts || colors != want.ZoneColors {
				t.Errorf("zone texts %d colours %d, want %d %d", texts, colors, want.ZoneTexts, want.ZoneColors)
			}
			t.Logf("%s: %d zones, %d frames, %d messages, %d plots, %d callstacks, %d frames resolved, %d symbols, %d symbol code, %d source files, %d strings",
				name, tr.ZoneCount(), len(tr.FrameSets[0].Frames), len(tr.Messages), len(tr.Plots), tr.NumCallStacks(), len(tr.Frames), len(tr.Symbols), len(tr.SymbolCode), len(tr.SourceCache), len(tr.Strings))
			if strings.Contains(name, "demo") {
				for _, m := range tr.Messages[:3] {
					t.Logf("first messages: %q", tr.RefString(m.Text))
				}
			}
		})
	}
}

// TestReplayQueries checks that the server asks what Tracy's server asked
// for the same stream: NAME.s2c.bin holds the real capture's queries,
// including the call-stack frames of every instruction and branch target of
// the symbol code Tracy's server disassembled.
func TestReplayQueries(t *testing.T) {
	for _, name := range []string{"demo", "demo-ondemand", "heavy1m"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(fixtures.Path(t, name+".s2c.bin"))
			if err != nil {
				t.Fatal(err)
			}
			want := queryCounts(raw[12:])
			f, err := os.Open(fixtures.Path(t, name+".c2s.bin"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var log bytes.Buffer
			if _, err := Replay(context.Background(), f, func(c *config) { c.queryLog = &log }); err != nil {
				t.Fatal(err)
			}
			got := queryCounts(log.Bytes())
			for typ := protocol.ServerQuery(1); typ < protocol.NumServerQueries; typ++ {
				switch typ {
				case protocol.ServerQuerySourceCode, protocol.ServerQueryDataTransfer, protocol.ServerQueryDataTransferPart:
					// Source files present on this machine are read, not
					// asked for; on the recording machine these counts
					// are equal.
					if got[typ] < want[typ] {
						t.Errorf("%v: %d, want >= %d", typ, got[typ], want[typ])
					} else if got[typ] != want[typ] {
						t.Logf("%v: %d, recording has %d (local source files differ)", typ, got[typ], want[typ])
					}
				default:
					if got[typ] != want[typ] {
						t.Errorf("%v: %d, want %d", typ, got[typ], want[typ])
					}
				}
			}
			// Beyond the counts, the queries that do not depend on this
			// machine's files (all but source-code transfers) are the same
			// packets in the same order: the disassembly asks for the same
			// instruction and branch-target addresses, in Tracy's order.
			w, g := keyedQueries(raw[12:]), keyedQueries(log.Bytes())
			n := 0
			for n < len(w) && n < len(g) && w[n] == g[n] {
				n++
			}
			if n != len(w) || n != len(g) {
				t.Errorf("query %d of %d (got %d): first difference", n, len(w), len(g))
				if n < len(w) && n < len(g) {
					t.Errorf("got %+v, want %+v", g[n], w[n])
				}
			}
		})
	}
}

// keyedQueries returns the queries of types String..SymbolCode in order.
func keyedQueries(b []byte) []protocol.ServerQueryPacket {
	var r []protocol.ServerQueryPacket
	for ; len(b) >= protocol.ServerQueryPacketSize; b = b[protocol.ServerQueryPacketSize:] {
		typ := protocol.ServerQuery(b[0])
		if typ == protocol.ServerQueryTerminate || typ >= protocol.ServerQuerySourceCode {
			continue
		}
		r = append(r, protocol.ServerQueryPacket{Type: typ, Ptr: binary.LittleEndian.Uint64(b[1:]), Extra: binary.LittleEndian.Uint32(b[9:])})
	}
	return r
}

func queryCounts(b []byte) map[protocol.ServerQuery]int {
	m := map[protocol.ServerQuery]int{}
	for len(b) >= protocol.ServerQueryPacketSize {
		m[protocol.ServerQuery(b[0])]++
		b = b[protocol.ServerQueryPacketSize:]
	}
	return m
}
