// Package pprof exports a trace's CPU zones as a pprof profile
// (profile.proto), so `go tool pprof -http` shows where zone time goes: each
// zone is named by its source location (as csv names its rows, ZoneName
// overrides aside), and each
// sample is the self time and count of the zones with one nesting path,
// the path (innermost zone first) its stack.
package pprof

import (
	"io"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/gotracy/gotracy/model"
)

// Options tunes Export.
type Options struct {
	// Filter keeps only samples whose innermost zone's name contains it
	// (ASCII case-insensitive unless CaseSensitive); their stacks keep every
	// enclosing zone.
	Filter        string
	CaseSensitive bool
}

// Export writes t's zones as a gzipped profile.proto to w. Two sample
// values: "zones/count" and "self/nanoseconds" (the default). Self time is
// computed as `gotracy csv -e` does (duration minus the durations of the
// direct children), and only zones csv counts contribute (ended, longer
// than 0 ns), so per-location totals equal csv -e's. Samples are merged by
// stack and thread (label "thread"), so the profile is bounded by the
// number of distinct nesting paths, not by the number of zones.
func Export(w io.Writer, t *model.Trace, o Options) error {
	p := build(t, o)
	return p.Write(w)
}

type locKey struct {
	name, file string
	line       uint32
}

type sampleKey struct {
	stack  string // location ids, 4 bytes each, innermost first
	thread int
}

func build(t *model.Trace, o Options) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "zones", Unit: "count"},
			{Type: "self", Unit: "nanoseconds"},
		},
		DefaultSampleType: "self",
		PeriodType:        &profile.ValueType{Type: "zone", Unit: "count"},
		Period:            1,
		TimeNanos:         int64(t.Metadata.CaptureTime) * 1e9,
		DurationNanos:     t.Metadata.LastTime,
	}
	filter := o.Filter
	if !o.CaseSensitive {
		filter = strings.ToLower(filter)
	}
	funcs := map[[2]string]*profile.Function{}
	locs := map[locKey]*profile.Location{}
	keep := map[uint64]bool{} // location id -> passes the filter
	slt := model.NewSrcLocTable(t)
	location := func(z *model.Zone) *profile.Location {
		sl, _ := slt.Get(z.SrcLoc)
		k := locKey{name: t.SrcLocName(sl), file: t.RefString(sl.File), line: sl.Line}
		if l, ok := locs[k]; ok {
			return l
		}
		fk := [2]string{k.name, k.file}
		f := funcs[fk]
		if f == nil {
			f = &profile.Function{ID: uint64(len(p.Function) + 1), Name: k.name, SystemName: k.name, Filename: k.file, StartLine: int64(k.line)}
			funcs[fk] = f
			p.Function = append(p.Function, f)
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f, Line: int64(k.line)}}}
		locs[k] = l
		p.Location = append(p.Location, l)
		name := k.name
		if !o.CaseSensitive {
			name = strings.ToLower(name)
		}
		keep[l.ID] = filter == "" || strings.Contains(name, filter)
		return l
	}

	samples := map[sampleKey]*profile.Sample{}
	var stack []*profile.Location // outermost first
	var ends []int
	var key []byte
	for ti := range t.Threads {
		th := &t.Threads[ti]
		zones := &th.Zones
		n := zones.Len()
		stack, ends = stack[:0], ends[:0]
		tname := t.ThreadName(th.ID)
		for zi, z := range zones.All() {
			for len(ends) > 0 && zi >= ends[len(ends)-1] {
				ends, stack = ends[:len(ends)-1], stack[:len(stack)-1]
			}
			loc := location(z)
			next := zones.NextOf(z)
			if next > zi+1 {
				ends = append(ends, next)
				stack = append(stack, loc)
			}
			start, end := z.Start(), z.End()
			if end < 0 || end-start <= 0 || !keep[loc.ID] {
				continue
			}
			self := end - start
			for c := zi + 1; c < next && c < n; {
				cz := zones.At(c)
				self -= max(0, cz.End()-cz.Start())
				nc := zones.NextOf(cz)
				if nc <= c {
					break
				}
				c = nc
			}
			// The stack is the zone, then its ancestors outward.
			key = key[:0]
			key = appendID(key, loc.ID)
			top := len(stack)
			if next > zi+1 {
				top-- // the zone itself was pushed
			}
			for i := top - 1; i >= 0; i-- {
				key = appendID(key, stack[i].ID)
			}
			sk := sampleKey{stack: string(key), thread: ti}
			s := samples[sk]
			if s == nil {
				ls := []*profile.Location{loc}
				for i := top - 1; i >= 0; i-- {
					ls = append(ls, stack[i])
				}
				s = &profile.Sample{Location: ls, Value: []int64{0, 0}}
				if tname != "" {
					s.Label = map[string][]string{"thread": {tname}}
				}
				s.NumLabel = map[string][]int64{"tid": {int64(th.ID)}}
				samples[sk] = s
				p.Sample = append(p.Sample, s)
			}
			s.Value[0]++
			s.Value[1] += self
		}
	}
	return p
}

func appendID(b []byte, id uint64) []byte {
	return append(b, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
}
