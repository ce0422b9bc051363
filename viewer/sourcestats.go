package viewer

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gotracy/gotracy/model"
)

type fileLine struct {
	file string
	line uint32
}

type lineSamples struct{ self, incl uint64 }

// sourceIndex is what the source view counts, built once: zones and
// their time per source location, samples per file line (innermost frame:
// self; any frame of the stack: inclusive).
type sourceIndex struct {
	zoneCount map[model.SrcLocID]uint64
	zoneNs    map[model.SrcLocID]int64
	samples   map[fileLine]lineSamples
}

func (s *Server) sourceIdx() *sourceIndex {
	d := s.deepCaches()
	d.srcOnce.Do(func() {
		x := &sourceIndex{zoneCount: map[model.SrcLocID]uint64{}, zoneNs: map[model.SrcLocID]int64{}, samples: map[fileLine]lineSamples{}}
		for ti := range s.t.Threads {
			for _, z := range s.t.Threads[ti].Zones.All() {
				x.zoneCount[z.SrcLoc]++
				if d := z.Duration(); d > 0 {
					x.zoneNs[z.SrcLoc] += d
				}
			}
		}
		per := map[uint32]uint64{}
		for ti := range s.t.Threads {
			for _, sm := range s.t.Threads[ti].Samples {
				per[sm.CallStack]++
			}
		}
		seen := map[fileLine]bool{}
		for cs, n := range per {
			clear(seen)
			for fi, id := range s.t.CallStack(cs) {
				fd, ok := s.t.Frames[id]
				if !ok {
					continue
				}
				for ii, in := range fd.Frames {
					k := fileLine{s.t.Str(in.File), in.Line}
					v := x.samples[k]
					if fi == 0 && ii == 0 {
						v.self += n
					}
					if !seen[k] {
						seen[k] = true
						v.incl += n
					}
					x.samples[k] = v
				}
			}
		}
		d.src = x
	})
	return d.src
}

// sameFile says whether a file name from a source location or a frame
// names the cached source file: equal, or one is a path ending in the
// other (a client may send "demo.cpp" for "/src/demo/demo.cpp").
func sameFile(a, cached string) bool {
	if a == "" {
		return false
	}
	if a == cached {
		return true
	}
	return strings.HasSuffix(cached, "/"+a) || strings.HasSuffix(a, "/"+cached)
}

type srcLineZone struct {
	SrcLoc int16  `json:"srcloc"`
	Name   string `json:"name"`
	Count  uint64 `json:"count"`
	Ns     int64  `json:"ns"`
}

type srcLineJSON struct {
	Line       uint32        `json:"line"`
	Zones      uint64        `json:"zones"`   // zones whose source location is this line
	ZoneNs     int64         `json:"zone_ns"` // their total time
	SrcLocs    []srcLineZone `json:"srclocs,omitempty"`
	Samples    uint64        `json:"samples"`      // samples whose innermost frame is this line
	SamplesAll uint64        `json:"samples_incl"` // samples with this line anywhere in their stack
}

// apiSourceStats answers, for a source file the trace holds, per line the
// zones located there and their time, and the call-stack samples.
func (s *Server) apiSourceStats(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "file"); err != nil {
		return err
	}
	p := params{r: r}
	name := p.str("file", 4096)
	if p.err != nil {
		return p.err
	}
	if name == "" {
		return badRequest("parameter file is required (GET /api/v1/sources lists the files the trace holds)")
	}
	var src *model.SourceFile
	for i := range s.t.SourceCache {
		if s.t.SourceCache[i].Name == name {
			src = &s.t.SourceCache[i]
			break
		}
	}
	if src == nil {
		return notFound("the trace holds no source file %q (the server never reads files from disk)", name)
	}
	x := s.sourceIdx()
	lines := map[uint32]*srcLineJSON{}
	get := func(l uint32) *srcLineJSON {
		if v := lines[l]; v != nil {
			return v
		}
		v := &srcLineJSON{Line: l}
		lines[l] = v
		return v
	}
	var zones, samples uint64
	var zoneNs int64
	for id, n := range x.zoneCount {
		sl, ok := s.t.SrcLoc(id)
		if !ok || !sameFile(s.t.RefString(sl.File), src.Name) {
			continue
		}
		v := get(sl.Line)
		v.Zones += n
		v.ZoneNs += x.zoneNs[id]
		v.SrcLocs = append(v.SrcLocs, srcLineZone{id, s.t.SrcLocName(sl), n, x.zoneNs[id]})
		zones += n
		zoneNs += x.zoneNs[id]
	}
	for k, v := range x.samples {
		if !sameFile(k.file, src.Name) {
			continue
		}
		l := get(k.line)
		l.Samples += v.self
		l.SamplesAll += v.incl
		samples += v.self
	}
	out := make([]srcLineJSON, 0, len(lines))
	for _, v := range lines {
		slices.SortFunc(v.SrcLocs, func(a, b srcLineZone) int { return int(a.SrcLoc) - int(b.SrcLoc) })
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b srcLineJSON) int { return int(a.Line) - int(b.Line) })
	return writeJSON(w, struct {
		File    string        `json:"file"`
		Lines   int           `json:"lines"` // lines of the file
		Zones   uint64        `json:"zones"`
		ZoneNs  int64         `json:"zone_ns"`
		Samples uint64        `json:"samples"`
		Period  int64         `json:"sampling_period"`
		PerLine []srcLineJSON `json:"per_line"`
	}{src.Name, strings.Count(string(src.Data), "\n") + 1, zones, zoneNs, samples, s.t.Metadata.SamplingPeriod, out})
}
