// Package viewer is the server half of `gotracy view`: it holds one loaded
// trace and its level-of-detail index and answers the page (viewer/ui,
// embedded) and headless clients over the HTTP API under /api/v1/ (see
// docs/viewer-api.md).
//
// Every answer that draws something over time is reduced on the server to
// the pixels it covers (package lod), so a browser never receives more than
// a screenful, whatever the trace holds. Nothing a request says is ever used
// to open a file: the server reads only the trace it was given.
package viewer

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/tracereport"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/viewer/lod"
	"github.com/klauspost/compress/gzip"
)

// The page ships inside the binary: `gotracy view` works offline, with no
// CDN, no Node and no files beside the executable.
//
//go:embed ui
var uiFiles embed.FS

// Server serves one trace. It is read-only after New and safe for
// concurrent requests.
type Server struct {
	t      *model.Trace
	ix     *lod.Index
	report *tracereport.Report
	plots  []model.Plot // analysis.PlotsInTracyOrder: memory plots first
	plotIx []*lod.PlotIndex
	ui     fs.FS
	mux    *http.ServeMux

	// Per-request scratch of the timeline-like endpoints, so a request
	// costs what lod costs and allocates nothing per zone.
	tlPool   sync.Pool // *timelineBuf
	spanPool sync.Pool // *spanBuf

	statsOnce sync.Once
	stats     *statsCache

	// A live trace's report is made on first use (see Report): the summary
	// is a pass over every zone, and most published traces are never
	// asked for it.
	reportOnce sync.Once
	reportFn   func() *tracereport.Report

	lockOnce  sync.Once
	lockState [][]lockRow // by lock, by thread of the lock

	deep atomic.Pointer[deepState] // memory, flame graph, lock statistics, source (memory.go)
}

type config struct {
	path   string
	rep    *tracefile.Report
	name   string
	report *tracereport.Report
	lazy   bool // the report on first use (live traces)
	prev   *lod.Index
	tally  *tallyBox   // live traces: the newest zone tally, to extend
	stream *lod.Stream // IndexWhileReading
}

// tallyBox holds the newest zone tally (analysis.ZoneTally) the Servers of
// one live capture made, so that each summary walks only the zones added
// since the last one made, whichever Server made it.
type tallyBox struct {
	mu sync.Mutex
	zt *analysis.ZoneTally
}

func (b *tallyBox) get() *analysis.ZoneTally {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.zt
}

// put keeps zt unless the box holds a tally of more zones (a later trace's).
func (b *tallyBox) put(zt *analysis.ZoneTally) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.zt == nil || zt.Zones() >= b.zt.Zones() {
		b.zt = zt
	}
}

// withTallies makes the summary extend the newest tally in b (and keep
// its own there).
func withTallies(b *tallyBox) Option { return func(c *config) { c.tally = b } }

// withPrevIndex makes New extend prev, the index of an earlier snapshot of
// the same live capture, instead of indexing t from scratch (lod.Extend).
func withPrevIndex(prev *lod.Index) Option { return func(c *config) { c.prev = prev } }

// withLazyReport makes the report (and its summary) on first use.
func withLazyReport() Option { return func(c *config) { c.lazy = true } }

// Option configures New.
type Option func(*config)

// WithFileInfo says the trace was read from the file at path with report
// rep, so /api/v1/trace answers exactly what `gotracy info --json` prints
// for that file (only the base name of path is shown).
func WithFileInfo(path string, rep *tracefile.Report) Option {
	return func(c *config) { c.path, c.rep = path, rep }
}

// WithName names a trace that was not read from a file (a capture, a
// test), for the "file.name" of /api/v1/trace.
func WithName(name string) Option {
	return func(c *config) { c.name = name }
}

// WithReport serves r as /api/v1/trace (a report without a summary gets
// the trace's), for a caller that already built it with tracereport.New.
func WithReport(r *tracereport.Report) Option {
	return func(c *config) { c.report = r }
}

// New indexes t for viewing. t must not change afterwards.
func New(t *model.Trace, opts ...Option) (*Server, error) {
	if t == nil {
		return nil, fmt.Errorf("viewer: no trace to serve")
	}
	var c config
	for _, o := range opts {
		o(&c)
	}
	ui, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		return nil, fmt.Errorf("viewer: embedded page missing: %w", err)
	}
	s := &Server{t: t, ui: ui}
	// The summary and the plots are one pass over the trace each and the
	// index another: on two cores they overlap, so a 10M-zone file is
	// served sooner after it loads.
	var wg sync.WaitGroup
	wg.Add(1)
	// makeReport runs once s.plots is set (in the goroutine below, or on
	// first use after New returned).
	summarize := func() *analysis.Summary {
		if c.tally == nil {
			return analysis.SummarizePlots(t, s.plots)
		}
		sum, zt := analysis.SummarizeFrom(c.tally.get(), t, s.plots)
		c.tally.put(zt)
		return sum
	}
	makeReport := func() *tracereport.Report {
		switch {
		case c.report != nil:
			if c.report.Summary == nil {
				r := *c.report
				r.Summary = summarize()
				return &r
			}
			return c.report
		case c.rep != nil:
			return tracereport.New(c.path, c.rep, summarize())
		}
		return &tracereport.Report{File: tracereport.File{Name: c.name}, Summary: summarize()}
	}
	if c.lazy {
		s.reportFn = makeReport
	}
	go func() {
		defer wg.Done()
		// The plots first: the summary counts their points, and
		// rebuilding the memory plots is the dearest part of it.
		s.plots = analysis.PlotsInTracyOrder(t)
		for i := range s.plots {
			s.plotIx = append(s.plotIx, lod.NewPlotIndex(s.plots[i].Points))
		}
		if !c.lazy {
			s.report = makeReport()
		}
	}()
	if c.stream != nil && c.prev == nil {
		s.ix = c.stream.Index(t) // what was indexed while t was read, and the rest
	} else {
		s.ix = lod.Extend(c.prev, t) // Build(t) when there is no earlier index
	}
	wg.Wait()
	if !c.lazy && hasMemEvents(t) {
		// The memory index takes about a second at 10M allocations: build
		// it now, beside the first page load, so that the memory view's
		// first question waits for what is left of it, not all of it.
		// (A live trace builds it only when asked: every snapshot would.)
		go s.memIndex()
	}
	s.tlPool.New = func() any { return new(timelineBuf) }
	s.spanPool.New = func() any { return new(spanBuf) }
	s.routes()
	return s, nil
}

// Trace is the served trace.
func (s *Server) Trace() *model.Trace { return s.t }

// Report is what /api/v1/trace answers (gotracy info --json). Handlers use
// it rather than the field: a live trace's report is made on first use.
func (s *Server) Report() *tracereport.Report {
	s.reportOnce.Do(func() {
		if s.report == nil && s.reportFn != nil {
			s.report = s.reportFn()
		}
	})
	return s.report
}

// Handler serves the page at "/" and the API at /api/v1/.
func (s *Server) Handler() http.Handler { return s.mux }

func (s *Server) routes() {
	m := http.NewServeMux()
	api := apiRoutes(m)
	api("{$}", s.apiIndex)
	api("trace", s.apiTrace)
	api("lanes", s.apiLanes)
	api("srclocs", s.apiSrcLocs)
	api("timeline", s.apiTimeline)
	s.moreRoutes(api)
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, &apiError{code: http.StatusMethodNotAllowed, msg: fmt.Sprintf("the API answers GET only, got %s", r.Method)})
			return
		}
		writeError(w, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("no API endpoint %s (see /api/v1/ for the list)", r.URL.Path)})
	})
	m.Handle("/", pageHandler(s.ui))
	s.mux = m
}

// pageHandler serves the embedded page.
func pageHandler(ui fs.FS) http.Handler {
	files := http.FileServerFS(ui)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pageRequest(w, r) {
			files.ServeHTTP(w, r)
		}
	})
}

// pageRequest refuses a request for the page's files that is not GET or
// HEAD, and otherwise sets the headers every file of the page is served
// with and reports true.
func pageRequest(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "the viewer answers GET only", http.StatusMethodNotAllowed)
		return false
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", pagePolicy)
	h.Set("Referrer-Policy", "no-referrer")
	// The page is embedded in the binary, so a stale copy in the browser
	// cache is the only way to see an old page after an upgrade: make the
	// browser ask each time (the answer is tiny).
	h.Set("Cache-Control", "no-cache")
	return true
}

// pagePolicy lets the page load nothing but itself and the API: no CDN,
// no remote fonts, no beacons, even by mistake, and no framing by other
// sites. Inline styles stay allowed because the page sets element styles
// from script.
const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// apiError is an answer other than 200: a status and one sentence.
type apiError struct {
	code int
	msg  string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{code: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &apiError{code: http.StatusNotFound, msg: fmt.Sprintf(format, args...)}
}

func writeError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	msg := err.Error()
	var ae *apiError
	if errors.As(err, &ae) {
		code = ae.code
	}
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// apiWriter carries whether the client takes gzip to writeJSON.
type apiWriter struct {
	http.ResponseWriter
	gzip    bool
	started bool // the status line went out: an error can no longer be answered
}

func (aw *apiWriter) WriteHeader(code int) {
	aw.started = true
	aw.ResponseWriter.WriteHeader(code)
}

func (aw *apiWriter) Write(b []byte) (int, error) {
	aw.started = true
	return aw.ResponseWriter.Write(b)
}

// apiRoutes returns the function that registers a GET endpoint of the API
// on m, wrapped by apiHandler.
func apiRoutes(m *http.ServeMux) func(path string, h func(w http.ResponseWriter, r *http.Request) error) {
	return func(path string, h func(w http.ResponseWriter, r *http.Request) error) {
		m.HandleFunc("GET /api/v1/"+path, apiHandler(h))
	}
}

// apiHandler serves one API endpoint: answers are never cached, gzip is
// offered to writeJSON, and the handler's error becomes the JSON error
// answer, unless the answer had already begun (the page aborted it, a
// write failed): then there is nothing left to answer, and a second status
// would only be logged.
func apiHandler(h func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		aw := &apiWriter{ResponseWriter: w, gzip: acceptsGzip(r)}
		if err := h(aw, r); err != nil && !aw.started {
			writeError(w, err)
		}
	}
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// gzipMin is the JSON size from which answers are compressed: big tables
// (statistics of thousands of locations, long find pages) shrink several
// times, which matters once the viewer is served beyond loopback. The
// binary timeline and PNGs are already compact and are sent as they are.
const gzipMin = 16 << 10

var gzipPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

// writeJSON answers v as JSON with a Content-Length, so a client can tell
// a cut-off answer from a whole one.
func writeJSON(w http.ResponseWriter, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	body := b.Bytes()
	if aw, ok := w.(*apiWriter); ok {
		h.Add("Vary", "Accept-Encoding")
		if aw.gzip && len(body) >= gzipMin {
			var z bytes.Buffer
			zw := gzipPool.Get().(*gzip.Writer)
			zw.Reset(&z)
			_, err := zw.Write(body)
			if err == nil {
				err = zw.Close()
			}
			gzipPool.Put(zw)
			if err != nil {
				return err
			}
			h.Set("Content-Encoding", "gzip")
			body = z.Bytes()
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, err := w.Write(body)
	return err
}

func (s *Server) apiIndex(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	return writeJSON(w, struct {
		Docs      string   `json:"docs"`
		Endpoints []string `json:"endpoints"`
	}{"docs/viewer-api.md", endpointList})
}

func (s *Server) apiTrace(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	return writeJSON(w, s.Report())
}
