package viewer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer/lod"
)

// LiveState is one state of a trace that is still growing, as its source
// (a running capture) published it.
type LiveState struct {
	// Trace is the published trace, nil while no client is connected. It
	// is immutable: the source never writes to it again.
	Trace *model.Trace
	// Gen increases with every published trace.
	Gen uint64
	// Final says the trace is complete: no other state follows.
	Final bool
	// Status is a few words for the page: "waiting for the client",
	// "capturing", or why the capture ended.
	Status string
	// Events and Zones count what the capture had applied.
	Events, Zones uint64
	// Published is when the source made Trace.
	Published time.Time
}

// LiveSource returns the newest state. It is called for every request, so
// it must be cheap, and from many goroutines at once.
type LiveSource func() LiveState

// SaveFunc writes t as a .tracy file (atomically) and returns the path it
// wrote. The viewer never chooses a path: the function's owner does.
type SaveFunc func(ctx context.Context, t *model.Trace) (path string, err error)

// Live serves a trace while it grows: the same page and API as Server, each
// request answered from the newest published trace, plus GET /api/v1/live
// (what is published) and POST /api/v1/save.
//
// Every published trace gets a Server of its own, built by New on the
// first request that sees it: its level-of-detail index, statistics, find
// orders, lock states and every other cache belong to that one trace and
// go with it, so no handler ever sees two traces mixed, nor a cache of an
// older one. A handler reads its trace from s.t as it does for a file.
// The one expensive part of a Server, its level-of-detail index, is not
// rebuilt: the new Server's index extends the previous one's with the
// zones that arrived since (lod.Extend), leaving the previous one intact
// for the requests still using it. A new Server is made no sooner than a
// multiple of the previous one's own cost after it (liveServer.wait), so a
// viewer that polls without pause takes a bounded share of the machine,
// and requests during a build are answered from the previous trace rather
// than waiting.
type Live struct {
	src  LiveSource
	save SaveFunc
	opts []Option
	ui   fs.FS
	mux  *http.ServeMux

	mu  sync.Mutex // serialises builds
	cur atomic.Pointer[liveServer]

	builds    atomic.Int64 // Servers built
	buildTime atomic.Int64 // ns spent building them, in all

	logMu    sync.Mutex
	buildLog []buildRecord // the last maxBuildLog builds, oldest first

	growing  atomic.Bool // a Grow runs
	syncGrow bool        // tests: Grow on the building goroutine

	// Memory: the newest Server whose memory index is built (memory.go
	// prepareMemory), which answers memory requests while the current
	// one's is built in the background.
	memServer  atomic.Pointer[liveServer]
	memBusy    atomic.Bool
	memNext    atomic.Int64 // UnixNano before which no memory build starts
	memWaited  atomic.Int64 // memory requests that waited for a build (none was ready)
	memBuilds  atomic.Int64 // background memory builds
	memPending atomic.Pointer[liveServer]

	saveMu   sync.Mutex
	lastSave atomic.Pointer[saveResult]
}

type liveServer struct {
	s        *Server
	state    LiveState
	built    time.Time
	cost     time.Duration
	extended bool // its index extends the previous Server's (lod.Extend)
}

// wait is how long after this Server was built the next may be: a
// multiple of its own cost, so that building takes a bounded share of the
// machine, and never more than liveMaxWait, so that an event reaches the
// page within a bounded time whatever a build cost. Only the first Server
// is built from scratch: every later one extends the one before, so costs
// what came since it, and waiting longer would only make the next dearer
// and the page later.
func (ls *liveServer) wait() time.Duration {
	return min(liveWaitFactor*ls.cost, liveMaxWait)
}

// buildRecord is one Server built for a published trace.
type buildRecord struct {
	Gen       uint64
	Published time.Time // when the source published its trace
	Start     time.Time
	Cost      time.Duration
	Full      bool          // the index was built from scratch
	Index     lod.Stats     // how its threads were indexed
	Since     time.Duration // from the previous Server's build to this one's start
	Wait      time.Duration // the least time the previous Server had to be served
	Zones     int           // the trace's zones
	Added     int           // zones the previous Server's trace did not have
}

// grow prepares, beside the requests, the larger arrays the next
// extensions of ix will need (lod.Index.Grow), so that no extension on
// the way from a published trace to the page copies a lane's positions.
// One Grow runs at a time; a newer index waits for the next build.
func (l *Live) grow(ix *lod.Index) {
	if l.syncGrow {
		ix.Grow()
		return
	}
	if !l.growing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer l.growing.Store(false)
		ix.Grow()
	}()
}

const maxBuildLog = 4096

type saveResult struct {
	Path  string `json:"path,omitempty"`
	Zones int    `json:"zones"`
	Gen   uint64 `json:"gen"`
	Error string `json:"error,omitempty"`
	At    string `json:"at"`
}

// NewLive serves the traces src publishes. save, when not nil, is what
// POST /api/v1/save (the page's Save button) calls with the newest trace.
// opts are passed to New for every published trace (WithName names it).
func NewLive(src LiveSource, save SaveFunc, opts ...Option) (*Live, error) {
	if src == nil {
		return nil, fmt.Errorf("viewer: no live source")
	}
	ui, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		return nil, fmt.Errorf("viewer: embedded page missing: %w", err)
	}
	// The summary behind /api/v1/trace is made only when asked for, and
	// walks only the zones added since the last one made.
	opts = append(append([]Option(nil), opts...), withLazyReport(), withTallies(new(tallyBox)))
	l := &Live{src: src, save: save, opts: opts, ui: ui}
	m := http.NewServeMux()
	m.HandleFunc("GET /api/v1/{$}", apiHandler(l.apiIndex))
	m.HandleFunc("GET /api/v1/live", apiHandler(l.apiLive))
	m.HandleFunc("POST /api/v1/save", apiHandler(l.apiSave))
	m.HandleFunc("/api/v1/save", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "POST")
		writeError(w, &apiError{code: http.StatusMethodNotAllowed, msg: fmt.Sprintf("save answers POST only, got %s", r.Method)})
	})
	m.HandleFunc("/api/", l.dispatch)
	page := pageHandler(ui)
	m.Handle("/", page)
	l.mux = m
	return l, nil
}

// Builds reports how many Servers were built for published traces and
// the time spent building them: what viewing costs beside the capture.
func (l *Live) Builds() (int, time.Duration) {
	return int(l.builds.Load()), time.Duration(l.buildTime.Load())
}

// Handler serves the page at "/" and the API at /api/v1/.
func (l *Live) Handler() http.Handler { return l.mux }

// Server returns the Server of the newest published trace, building it if
// needed (nil while nothing is published).
func (l *Live) Server() *Server {
	ls, _ := l.server()
	if ls == nil {
		return nil
	}
	return ls.s
}

var errNoTrace = &apiError{code: http.StatusServiceUnavailable, msg: "no trace yet: waiting for the client to connect (GET /api/v1/live says when)"}

// server returns the Server for the newest state, or the current one while
// a rebuild is throttled or in progress.
func (l *Live) server() (*liveServer, error) {
	st := l.src()
	cur := l.cur.Load()
	if st.Trace == nil {
		if cur != nil {
			return cur, nil
		}
		return nil, errNoTrace
	}
	if cur != nil && (cur.state.Gen >= st.Gen || (!st.Final && time.Since(cur.built) < cur.wait())) {
		return cur, nil
	}
	if cur != nil && !l.mu.TryLock() {
		return cur, nil // being rebuilt: the previous trace answers meanwhile
	} else if cur == nil {
		l.mu.Lock()
	}
	defer l.mu.Unlock()
	if c := l.cur.Load(); c != nil && c.state.Gen >= st.Gen {
		return c, nil
	}
	start := time.Now()
	opts := l.opts
	extended := false
	if c := l.cur.Load(); c != nil {
		extended = true
		// The newest trace extends the served one: index only what came
		// since. The final trace too: it is the last snapshot's trace
		// completed as a snapshot is (capture's finish), and indexing it
		// afresh would be the one pass over every zone left on the way
		// from the client to the page.
		opts = append(opts[:len(opts):len(opts)], withPrevIndex(c.s.ix))
	}
	s, err := New(st.Trace, opts...)
	if err != nil {
		return nil, err
	}
	ls := &liveServer{s: s, state: st, built: time.Now(), extended: extended}
	ls.cost = ls.built.Sub(start)
	l.builds.Add(1)
	l.buildTime.Add(int64(ls.cost))
	rec := buildRecord{Gen: st.Gen, Published: st.Published, Start: start, Cost: ls.cost, Full: !extended, Index: s.ix.Stats(), Zones: st.Trace.ZoneCount()}
	rec.Added = rec.Zones
	if c := l.cur.Load(); c != nil {
		rec.Since = start.Sub(c.built)
		rec.Wait = c.wait()
		rec.Added -= c.s.t.ZoneCount()
	}
	if !st.Final {
		l.grow(s.ix)
	} else {
		s.ix.DropGrow() // no extension follows the final trace's
	}
	if hasMemEvents(st.Trace) {
		l.prepareMemory(ls)
	}
	l.logMu.Lock()
	if len(l.buildLog) == maxBuildLog {
		l.buildLog = append(l.buildLog[:0], l.buildLog[1:]...)
	}
	l.buildLog = append(l.buildLog, rec)
	l.logMu.Unlock()
	l.cur.Store(ls)
	return ls, nil
}

// prepareMemory builds ls's memory index beside the requests (one build
// at a time, the newest Server's; the next no sooner than
// liveMemWaitFactor times the last one's cost after it), so memory
// requests are answered at once: by ls once it is ready, by the newest
// ready Server before.
func (l *Live) prepareMemory(ls *liveServer) {
	l.memPending.Store(ls)
	l.kickMemory()
}

func (l *Live) kickMemory() {
	if time.Now().UnixNano() < l.memNext.Load() || !l.memBusy.CompareAndSwap(false, true) {
		return
	}
	ls := l.memPending.Swap(nil)
	if ls == nil {
		l.memBusy.Store(false)
		return
	}
	go func() {
		start := time.Now()
		ls.s.prepareMemory()
		l.memBuilds.Add(1)
		if m := l.memServer.Load(); m == nil || m.state.Gen < ls.state.Gen {
			l.memServer.Store(ls)
		}
		l.memNext.Store(time.Now().Add(liveMemWaitFactor * time.Since(start)).UnixNano())
		l.memBusy.Store(false)
	}()
}

// liveMemWaitFactor: a background memory build is followed no sooner than
// this many times its cost (it is a pass over every allocation, seconds
// at 10M), so it takes at most a fifth of a core from the capture.
const liveMemWaitFactor = 4

// dispatch answers every other API request from the newest trace's Server.
func (l *Live) dispatch(w http.ResponseWriter, r *http.Request) {
	ls, err := l.server()
	if err == nil && isMemoryPath(r.URL.Path) && !ls.s.memoryReady() {
		l.kickMemory() // a build the wait held back may start now
		if m := l.memServer.Load(); m != nil {
			ls = m // the newest trace whose memory data is ready
		} else {
			l.memWaited.Add(1) // none yet: this request builds it
		}
	}
	if err != nil {
		w.Header().Set("Cache-Control", "no-store")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, &apiError{code: http.StatusMethodNotAllowed, msg: fmt.Sprintf("the API answers GET only (and POST for save), got %s", r.Method)})
			return
		}
		writeError(w, err)
		return
	}
	// Which published trace answered: a client can tell two answers of
	// different traces apart.
	w.Header().Set("X-Gotracy-Gen", strconv.FormatUint(ls.state.Gen, 10))
	ls.s.mux.ServeHTTP(w, r)
}

func (l *Live) apiIndex(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	return writeJSON(w, struct {
		Docs      string   `json:"docs"`
		Endpoints []string `json:"endpoints"`
	}{"docs/viewer-api.md", append(append([]string(nil), endpointList...), "live", "save")})
}

// liveAnswer is GET /api/v1/live.
type liveAnswer struct {
	Live   bool   `json:"live"`   // always true: the trace may still grow
	Gen    uint64 `json:"gen"`    // newest published trace
	Served uint64 `json:"served"` // the trace the other endpoints answer from now
	Final  bool   `json:"final"`  // the capture has ended
	Status string `json:"status"`
	Events uint64 `json:"events"`
	Zones  uint64 `json:"zones"`
	// LastTime is the end of the published trace, ns (its lanes'
	// last_time), 0 before a client connected.
	LastTime int64 `json:"last_time_ns"`
	// AgeMS is how old the published trace is, ms.
	AgeMS     int64       `json:"age_ms"`
	BuildMS   float64     `json:"build_ms"` // cost of the served trace's index
	CanSave   bool        `json:"can_save"`
	LastSaved *saveResult `json:"last_save,omitempty"`
}

func (l *Live) apiLive(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	a := l.status()
	return writeJSON(w, a)
}

func (l *Live) status() liveAnswer {
	st := l.src()
	// Bring the served trace up to date (or start doing so), so that a
	// page polling this endpoint moves on to the newest trace.
	ls, _ := l.server()
	a := liveAnswer{Live: true, Gen: st.Gen, Final: st.Final, Status: st.Status, Events: st.Events, Zones: st.Zones,
		CanSave: l.save != nil, LastSaved: l.lastSave.Load()}
	if st.Trace != nil {
		a.LastTime = st.Trace.Metadata.LastTime
		a.AgeMS = time.Since(st.Published).Milliseconds()
	}
	if ls != nil {
		a.Served = ls.state.Gen
		a.BuildMS = float64(ls.cost.Microseconds()) / 1000
	}
	return a
}

// apiSave writes the newest trace with the SaveFunc. It changes a file on
// this machine, so it answers only a request from this machine made by
// the page itself: from a loopback address, with the X-Gotracy-Save
// header, which a page of another site cannot send without a CORS
// preflight this server never grants, and not marked cross-site by the
// browser. Nothing in the request names the file.
func (l *Live) apiSave(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	if l.save == nil {
		return &apiError{code: http.StatusNotImplemented, msg: "this server was started without a way to save (give -o FILE.tracy)"}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return &apiError{code: http.StatusForbidden, msg: "save is accepted only from this machine (loopback), got a request from " + r.RemoteAddr}
	}
	if r.Header.Get("X-Gotracy-Save") != "1" {
		return &apiError{code: http.StatusForbidden, msg: "save needs the header X-Gotracy-Save: 1 (the page sends it; other sites' pages cannot)"}
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s == "cross-site" || s == "same-site" {
		return &apiError{code: http.StatusForbidden, msg: "save refused: the request came from another site (Sec-Fetch-Site: " + s + ")"}
	}
	st := l.src()
	if st.Trace == nil {
		return errNoTrace
	}
	l.saveMu.Lock()
	defer l.saveMu.Unlock()
	path, err := l.save(r.Context(), st.Trace)
	res := &saveResult{Path: path, Zones: st.Trace.ZoneCount(), Gen: st.Gen, At: time.Now().UTC().Format(time.RFC3339)}
	if err != nil {
		res.Error = err.Error()
		l.lastSave.Store(res)
		if errors.Is(err, context.Canceled) {
			return &apiError{code: http.StatusServiceUnavailable, msg: "save interrupted: " + err.Error()}
		}
		return &apiError{code: http.StatusInternalServerError, msg: "save failed: " + err.Error()}
	}
	l.lastSave.Store(res)
	return writeJSON(w, res)
}

// liveWaitFactor: a Server is followed no sooner than this many times its
// own build time. An extension's cost follows the zones that arrived since
// the previous trace (plus a small fixed part), so building stays at about
// 1/(1+liveWaitFactor) of a core at the worst, and usually far less: every
// new zone is indexed once however often the page asks.
const liveWaitFactor = 4

// liveMaxWait bounds every wait between two Servers (see wait): with the
// publisher's interval it bounds how late the page is.
const liveMaxWait = 250 * time.Millisecond
