package viewer

import (
	"fmt"
	"io/fs"
	"net/http"
	"sync"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/model"
)

// Compare serves two traces for `gotracy view A.tracy B.tracy`: the
// compare page at "/" (per source location, both traces' count, total,
// mean and median, the change, and overlaid duration histograms), its API
// under /api/v1/ (compare, comparehist), and each trace's own viewer, page
// and API, at /a/ and /b/, exactly as a single-trace Server serves them.
// It is read-only after NewCompare and safe for concurrent requests.
type Compare struct {
	a, b *Server
	mux  *http.ServeMux

	// Each trace's figures, made on the first compare request (one
	// statistics pass and one median pass over each trace) and kept: a
	// comparison under any rule or filter is then a matter of the
	// locations, not the zones.
	profOnce sync.Once
	profA    *analysis.CompareProfile
	profB    *analysis.CompareProfile

	frameOnce sync.Once // the same for frame sets (kind=frames)
	frameA    *analysis.CompareProfile
	frameB    *analysis.CompareProfile
}

// NewCompare serves a (the baseline) against b.
func NewCompare(a, b *Server) (*Compare, error) {
	if a == nil || b == nil {
		return nil, fmt.Errorf("viewer: compare needs two traces")
	}
	c := &Compare{a: a, b: b}
	c.routes()
	return c, nil
}

// Handler serves the compare page at "/", its API at /api/v1/, and the two
// traces' viewers at /a/ and /b/.
func (c *Compare) Handler() http.Handler { return c.mux }

// compareEndpoints is what GET /api/v1/ lists in compare mode.
var compareEndpoints = []string{"compare", "comparehist"}

func (c *Compare) routes() {
	m := http.NewServeMux()
	api := apiRoutes(m)
	api("{$}", c.apiIndex)
	api("compare", c.apiCompare)
	api("comparehist", c.apiCompareHist)
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		writeError(w, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("no API endpoint %s in compare mode (see /api/v1/; each trace's API is under /a/api/v1/ and /b/api/v1/)", r.URL.Path)})
	})
	// Each trace's viewer is the single-trace Server, unchanged: its page
	// asks for "api/v1/..." relative to itself, so under /a/ it reaches
	// /a/api/v1/.
	m.Handle("/a/", http.StripPrefix("/a", c.a.Handler()))
	m.Handle("/b/", http.StripPrefix("/b", c.b.Handler()))
	m.Handle("GET /a", http.RedirectHandler("/a/", http.StatusMovedPermanently))
	m.Handle("GET /b", http.RedirectHandler("/b/", http.StatusMovedPermanently))
	page, _ := fs.ReadFile(c.a.ui, "compare.html")
	files := http.FileServerFS(c.a.ui)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if !pageRequest(w, r) {
			return
		}
		switch r.URL.Path {
		case "/", "/compare.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
			return
		case "/index.html":
			// The single-trace page has no trace at the root here.
			http.Redirect(w, r, "/", http.StatusFound)
			return
		}
		files.ServeHTTP(w, r)
	})
	c.mux = m
}

func (c *Compare) frameProfiles() (a, b *analysis.CompareProfile) {
	c.frameOnce.Do(func() {
		c.frameA, c.frameB = analysis.NewFrameProfile(c.a.t), analysis.NewFrameProfile(c.b.t)
	})
	return c.frameA, c.frameB
}

// profilesOf is the zone or the frame-set profiles.
func (c *Compare) profilesOf(kind string) (a, b *analysis.CompareProfile) {
	if kind == "frames" {
		return c.frameProfiles()
	}
	return c.profiles()
}

func (c *Compare) profiles() (a, b *analysis.CompareProfile) {
	c.profOnce.Do(func() {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // two passes over two traces: on two cores, side by side
			defer wg.Done()
			c.profA = analysis.NewCompareProfile(c.a.t)
		}()
		c.profB = analysis.NewCompareProfile(c.b.t)
		wg.Wait()
	})
	return c.profA, c.profB
}

// compareTrace names one side of the comparison.
type compareTrace struct {
	Name     string `json:"name"`
	Program  string `json:"program"`
	Zones    uint64 `json:"zones"`
	Frames   int    `json:"frames"` // of the default set, as info's
	SpanNs   int64  `json:"time_span_ns"`
	Page     string `json:"page"` // where its own viewer is
	Captured uint64 `json:"capture_time_unix"`
}

func traceOf(s *Server, page string) compareTrace {
	ct := compareTrace{Name: s.Report().File.Name, Page: page}
	if sm := s.Report().Summary; sm != nil {
		ct.Program, ct.Zones, ct.Frames, ct.SpanNs, ct.Captured = sm.Program, sm.Zones, sm.Frames, sm.TimeSpanNs, sm.CaptureTime
	}
	if ct.Name == "" {
		ct.Name = ct.Program
	}
	return ct
}

func (c *Compare) apiIndex(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	return writeJSON(w, struct {
		Docs      string       `json:"docs"`
		Endpoints []string     `json:"endpoints"`
		A         compareTrace `json:"a"`
		B         compareTrace `json:"b"`
	}{"docs/viewer-api.md", compareEndpoints, traceOf(c.a, "a/"), traceOf(c.b, "b/")})
}

type compareAnswer struct {
	Kind  string                `json:"kind"`
	A     compareTrace          `json:"a"`
	B     compareTrace          `json:"b"`
	Match string                `json:"match"`
	Rows  []analysis.CompareRow `json:"rows"`
}

// apiCompare answers the table `gotracy diff` prints, in A's row order
// (the page sorts and filters it itself; filter here is csv -f's).
func (c *Compare) apiCompare(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "kind", "match", "filter", "case", "sort", "desc"); err != nil {
		return err
	}
	p := params{r: r}
	kind := p.oneOf("kind", "zones", "frames")
	match := p.oneOf("match", "line", "file", "name")
	filter := p.str("filter", 1024)
	caseSens := p.bool("case")
	sortKey := p.oneOf("sort", append([]string{""}, analysis.CompareSortKeys...)...)
	desc := p.bool("desc")
	if p.err != nil {
		return p.err
	}
	rule, err := analysis.ParseMatchRule(match)
	if err != nil {
		return badRequest("%v", err)
	}
	if kind == "frames" {
		// Frame sets pair by name only (analysis.CompareFrames).
		rule, match = analysis.MatchName, "name"
	}
	pa, pb := c.profilesOf(kind)
	cmp := analysis.CompareProfiles(pa, pb, analysis.CompareOptions{Filter: filter, CaseSensitive: caseSens, Match: rule})
	if sortKey != "" {
		if err := analysis.SortCompareRows(cmp.Rows, sortKey, desc); err != nil {
			return badRequest("%v", err)
		}
	}
	return writeJSON(w, &compareAnswer{Kind: kind, A: traceOf(c.a, "a/"), B: traceOf(c.b, "b/"), Match: match, Rows: cmp.Rows})
}

// apiCompareHist bins the durations of location a of trace A and b of
// trace B (either may be left out, for a location only one trace has)
// over the range both share.
func (c *Compare) apiCompareHist(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "kind", "a", "b", "bins", "log"); err != nil {
		return err
	}
	p := params{r: r}
	kind := p.oneOf("kind", "zones", "frames")
	_, hasA := p.raw("a")
	_, hasB := p.raw("b")
	ida := p.int("a", 0, -32768, 32767)
	idb := p.int("b", 0, -32768, 32767)
	bins := int(p.int("bins", 100, 1, 4096))
	logTime := p.bool("log")
	if p.err != nil {
		return p.err
	}
	if !hasA && !hasB {
		return badRequest("comparehist needs a (a source location of trace A), b (of trace B), or both")
	}
	pa, pb := c.profilesOf(kind)
	what := "counted zones of source location"
	durs := func(t *model.Trace, id int64) []int64 { return analysis.Durations(t, model.SrcLocID(id)) }
	if kind == "frames" {
		what = "frames in frame set"
		durs = func(t *model.Trace, id int64) []int64 { return analysis.FrameDurations(t, int(id)) }
	}
	var da, db []int64
	if hasA {
		if _, ok := pa.Side(model.SrcLocID(ida)); !ok {
			return notFound("trace A has no %s %d", what, ida)
		}
		da = durs(c.a.t, ida)
	}
	if hasB {
		if _, ok := pb.Side(model.SrcLocID(idb)); !ok {
			return notFound("trace B has no %s %d", what, idb)
		}
		db = durs(c.b.t, idb)
	}
	return writeJSON(w, analysis.CompareHist(da, db, bins, logTime))
}
