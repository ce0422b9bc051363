package pprof

import (
	"bytes"
	"encoding/csv"
	"os"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

type total struct{ count, self int64 }

// leafTotals sums a parsed profile's samples by their innermost location.
func leafTotals(t *testing.T, p *profile.Profile) map[locKey]total {
	t.Helper()
	m := map[locKey]total{}
	for _, s := range p.Sample {
		l := s.Location[0].Line[0]
		k := locKey{l.Function.Name, l.Function.Filename, uint32(l.Line)}
		v := m[k]
		v.count += s.Value[0]
		v.self += s.Value[1]
		m[k] = v
	}
	return m
}

func parse(t *testing.T, tr *model.Trace, o Options) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := Export(&buf, tr, o); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatalf("profile.Parse: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

// statsTotals is csv -e's figures, summed by (name, file, line).
func statsTotals(tr *model.Trace) map[locKey]total {
	m := map[locKey]total{}
	for _, s := range analysis.ComputeZoneStats(tr, analysis.StatsOptions{}).Locations {
		if s.Count == 0 {
			continue
		}
		sl, _ := tr.SrcLoc(s.SrcLoc)
		k := locKey{tr.SrcLocName(sl), tr.RefString(sl.File), sl.Line}
		v := m[k]
		v.count += int64(s.Count)
		v.self += s.SelfTotal
		m[k] = v
	}
	return m
}

func TestBuiltTotals(t *testing.T) {
	b := model.NewBuilder()
	a := b.AddStaticSrcLoc(1, model.SourceLocation{Name: model.IdxRef(b.Intern("a")), File: model.IdxRef(b.Intern("x.c")), Line: 1})
	c := b.AddStaticSrcLoc(2, model.SourceLocation{Name: model.IdxRef(b.Intern("c")), File: model.IdxRef(b.Intern("x.c")), Line: 2})
	th := b.Thread(5)
	b.SetThreadName(5, "main")
	// a[0,100] { c[10,30] { a[12,20] } c[40,45] }, a[200,201], c[300,300]
	b.BeginZone(th, 0, a)
	b.BeginZone(th, 10, c)
	b.BeginZone(th, 12, a)
	b.EndZone(th, 20)
	b.EndZone(th, 30)
	b.BeginZone(th, 40, c)
	b.EndZone(th, 45)
	b.EndZone(th, 100)
	b.BeginZone(th, 200, a)
	b.EndZone(th, 201)
	b.BeginZone(th, 300, c)
	b.EndZone(th, 300)
	b.BeginZone(th, 400, c) // never ends
	tr := b.Finish()
	p := parse(t, tr, Options{})
	got := leafTotals(t, p)
	want := map[locKey]total{
		{"a", "x.c", 1}: {3, (100 - 20 - 5) + 8 + 1},
		{"c", "x.c", 2}: {2, (20 - 8) + 5},
	}
	if len(got) != len(want) || got[locKey{"a", "x.c", 1}] != want[locKey{"a", "x.c", 1}] || got[locKey{"c", "x.c", 2}] != want[locKey{"c", "x.c", 2}] {
		t.Errorf("totals %v, want %v", got, want)
	}
	if s := statsTotals(tr); s[locKey{"a", "x.c", 1}] != want[locKey{"a", "x.c", 1}] {
		t.Errorf("the csv -e statistics %v disagree with the hand count %v", s, want)
	}
	// The recursion a > c > a is one stack of three frames.
	deep := false
	for _, s := range p.Sample {
		if len(s.Location) == 3 && s.Label["thread"][0] == "main" {
			deep = true
		}
	}
	if !deep {
		t.Error("no three-frame sample for a > c > a on thread main")
	}
	f := leafTotals(t, parse(t, tr, Options{Filter: "C"}))
	if len(f) != 1 || f[locKey{"c", "x.c", 2}] != want[locKey{"c", "x.c", 2}] {
		t.Errorf("filtered totals %v", f)
	}
}

// TestFixtureSelfTimes checks the profile's totals against the real
// tracy-csvexport -e output of the fixtures.
func TestFixtureSelfTimes(t *testing.T) {
	fixtures.Path(t, "demo.tracy") // one skip line when the fixtures are absent
	for _, name := range []string{"demo", "heavy1m"} {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name != "demo" {
				t.Skip("-short")
			}
			tr, err := tracefile.ReadFile(fixtures.Path(t, name+".tracy"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(fixtures.Path(t, name+".self.csv"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			want := map[locKey]total{}
			for _, r := range rows[1:] {
				line, _ := strconv.Atoi(r[2])
				tot, _ := strconv.ParseInt(r[3], 10, 64)
				cnt, _ := strconv.ParseInt(r[5], 10, 64)
				k := locKey{r[0], r[1], uint32(line)}
				v := want[k]
				v.count += cnt
				v.self += tot
				want[k] = v
			}
			got := leafTotals(t, parse(t, tr, Options{}))
			if len(got) != len(want) {
				t.Errorf("%d locations in the profile, %d in csv -e", len(got), len(want))
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%v: profile %+v, csv -e %+v", k, got[k], w)
				}
			}
		})
	}
}
