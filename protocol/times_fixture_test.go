package protocol

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
)

type zoneSpan struct{ start, dur int64 }

// TestFixtureZoneTimes reconstructs every zone's start and duration from the
// compact time encodings and the thread context of a real recording, and
// compares them with what the real csvexport printed (-u: one row per zone,
// ns since start and execution time). This checks TimeRefs on real data.
func TestFixtureZoneTimes(t *testing.T) {
	for _, c := range []struct{ name, csv string }{{"demo", "demo.unwrap.csv"}, {"heavy1m", "heavy1m.unwrap.csv.gz"}} {
		if race.Enabled && c.name == "heavy1m" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(fixtures.Path(t, c.name+".c2s.bin"))
			if err != nil {
				t.Fatal(err)
			}
			want := readUnwrapCSV(t, fixtures.Path(t, c.csv))
			got := zoneSpans(t, data)
			slices.SortFunc(got, cmpSpan)
			slices.SortFunc(want, cmpSpan)
			if len(got) != len(want) {
				t.Fatalf("%d zones decoded, csvexport has %d", len(got), len(want))
			}
			bad := 0
			for i := range got {
				if got[i] != want[i] {
					if bad++; bad < 5 {
						t.Errorf("zone %d: decoded %+v, csvexport %+v", i, got[i], want[i])
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d zones differ", bad, len(got))
			}
		})
	}
}

func cmpSpan(a, b zoneSpan) int {
	if a.start != b.start {
		return int(min(max(a.start-b.start, -1), 1))
	}
	return int(min(max(a.dur-b.dur, -1), 1))
}

// zoneSpans pairs zone begins and ends per thread as the server does.
func zoneSpans(t *testing.T, data []byte) []zoneSpan {
	r := bytes.NewReader(data)
	s, err := ReadSession(r)
	if err != nil {
		t.Fatal(err)
	}
	ns := func(tick int64) int64 { return int64(float64(tick-s.Welcome.InitBegin) * s.Welcome.TimerMul) }
	fr := NewFrameReader(r, s.Size)
	var d ItemDecoder
	var refs TimeRefs
	stacks := map[uint32][]int64{}
	var thread uint32
	var spans []zoneSpan
	for {
		f, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		d.Reset(f, fr.DecodedOffset())
		for it, ok := d.Next(); ok; it, ok = d.Next() {
			tm, hasTime := refs.Time(it)
			switch it.Type {
			case ThreadContext:
				thread, _ = it.Thread()
			case ZoneBegin, ZoneBegin32, ZoneBegin16, ZoneBeginCallstack, ZoneBeginCallstack32,
				ZoneBeginCallstack16, ZoneBeginAllocSrcLoc, ZoneBeginAllocSrcLocCallstack:
				stacks[thread] = append(stacks[thread], ns(tm))
			case ZoneEnd, ZoneEnd32, ZoneEnd16:
				st := stacks[thread]
				if len(st) == 0 || !hasTime {
					t.Fatalf("zone end without begin on thread %d", thread)
				}
				b := st[len(st)-1]
				stacks[thread] = st[:len(st)-1]
				e := ns(tm)
				if e < b {
					t.Fatalf("zone ends before it begins: %d < %d", e, b)
				}
				spans = append(spans, zoneSpan{b, e - b})
			}
		}
	}
	for th, st := range stacks {
		if len(st) != 0 {
			t.Errorf("thread %d: %d zones left open", th, len(st))
		}
	}
	return spans
}

func readUnwrapCSV(t *testing.T, path string) []zoneSpan {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var spans []zoneSpan
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		// Zone texts continue on following lines (ZoneValue appends one);
		// rows are the lines with all seven columns.
		fs := strings.Split(sc.Text(), ",")
		if len(fs) < 7 {
			continue
		}
		start, err1 := strconv.ParseInt(fs[3], 10, 64)
		dur, err2 := strconv.ParseInt(fs[4], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		spans = append(spans, zoneSpan{start, dur})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return spans
}
