package symbols

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server answers the symbolication API v5 of the Firefox profiler and
// samply (POST /symbolicate/v5) and serves compact symbol tables
// (GET /symbol-table/v1/DEBUGNAME/BREAKPADID, JSON or ?format=binary).
// Modules are looked up by debug name in the Resolver's search path and
// accepted only when their breakpad id matches; build the Resolver with
// WithConfinement so requests cannot name files outside it.
//
// The server is meant to face clients it does not trust, so every cost a
// request can cause is capped: the body size, the addresses and modules it
// may name, the requests one client and all clients may have in flight,
// and the time each read and write may stall. Requests are parsed as they
// arrive into 8 bytes per address and answered as a stream, window by
// window, so the memory a request holds is RequestMemoryBound whatever the
// size of its answer. Set the fields before serving; HTTPServer returns an
// http.Server configured with the timeouts.
type Server struct {
	r *Resolver

	// MaxBody bounds request bodies (default 16 MiB); larger ones get 413.
	MaxBody int64
	// MaxAddresses bounds the frames plus stacks of one request, over all
	// its jobs (default 1 << 20); larger requests get 413.
	MaxAddresses int
	// MaxModules bounds the memoryMap entries of one request, over all its
	// jobs (default 4096); more get 413.
	MaxModules int
	// MaxConcurrent requests are answered at once over all clients
	// (default 4); a further one waits up to QueueTimeout for a slot
	// (default 10 s), then gets 503 with Retry-After.
	MaxConcurrent int
	QueueTimeout  time.Duration
	// MaxPerClient requests may be in flight from one client address
	// (default 2); a further one gets 429 at once. Behind a proxy every
	// client has the proxy's address.
	MaxPerClient int

	// ReadHeaderTimeout bounds the request line and headers (default 10 s).
	ReadHeaderTimeout time.Duration
	// BodyReadTimeout is how long the body may stall between two reads
	// (default 10 s): a client that sends headers and no body is answered
	// 408 and disconnected after it, not held open.
	BodyReadTimeout time.Duration
	// ReadTimeout bounds the whole request, headers and body (default 60 s:
	// a full 16 MiB body at 300 KB/s).
	ReadTimeout time.Duration
	// WriteTimeout is how long each 64 KiB of response may wait for the
	// client to take it (default 30 s); a client that stops reading has its
	// connection closed.
	WriteTimeout time.Duration
	// RequestTimeout bounds the work of one request, resolution included
	// (default 5 min).
	RequestTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long (default 60 s).
	IdleTimeout time.Duration

	once     sync.Once
	sem      chan struct{}
	mu       sync.Mutex
	clients  map[string]int
	inFlight atomic.Int32
}

// NewServer returns an http.Handler over r with the default limits.
func NewServer(r *Resolver) *Server {
	return &Server{
		r: r, MaxBody: 16 << 20, MaxAddresses: 1 << 20, MaxModules: 4096,
		MaxConcurrent: 4, QueueTimeout: 10 * time.Second, MaxPerClient: 2,
		ReadHeaderTimeout: 10 * time.Second, BodyReadTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 30 * time.Second, RequestTimeout: 5 * time.Minute, IdleTimeout: 60 * time.Second,
	}
}

// HTTPServer returns an http.Server for s with its header, whole-request
// and idle timeouts. The body and write timeouts are applied per read and
// per write by the handler: a long answer may take longer than any fixed
// deadline while never stalling.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.ReadHeaderTimeout,
		ReadTimeout:       s.ReadTimeout,
		IdleTimeout:       s.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
}

// InFlight is the number of requests being answered (holding a slot).
func (s *Server) InFlight() int { return int(s.inFlight.Load()) }

// RequestMemoryBound is the most memory one symbolication request of that
// many addresses and stacks keeps alive: 8 bytes per address and 4 per
// stack for the parsed request, plus a fixed part for one window of
// results (resolveWindow addresses), the 64 KiB response buffer, the JSON
// decoder's buffer and the module table. The response is streamed and never
// held. With the defaults one request holds at most about 20 MiB, and the
// server MaxConcurrent times that (plus the Resolver's module cache, which
// is shared and bounded by the files in the symbol path).
func RequestMemoryBound(addresses, stacks int) int64 {
	return 8*int64(addresses) + 4*int64(stacks) + 12<<20
}

// resolveWindow is how many addresses are resolved and written at a time.
const resolveWindow = 1024

// BadRequestError is what malformed requests produce; the HTTP layer turns
// it into 400 with the message, or into Status when set (413 for a request
// over a limit).
type BadRequestError struct {
	Reason string
	Status int
}

func (e *BadRequestError) Error() string { return "bad request: " + e.Reason }

func (e *BadRequestError) status() int {
	if e.Status != 0 {
		return e.Status
	}
	return http.StatusBadRequest
}

func badf(format string, args ...any) error {
	return &BadRequestError{Reason: fmt.Sprintf(format, args...)}
}

func tooLargef(format string, args ...any) error {
	return &BadRequestError{Reason: fmt.Sprintf(format, args...), Status: http.StatusRequestEntityTooLarge}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch {
	case req.URL.Path == "/symbolicate/v5":
		if req.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "symbolicate/v5 takes POST", http.StatusMethodNotAllowed)
			return
		}
		release, ok := s.acquire(w, req)
		if !ok {
			return
		}
		defer release()
		s.serveSymbolicate(w, req)
	case strings.HasPrefix(req.URL.Path, "/symbol-table/v1/"):
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			http.Error(w, "symbol-table takes GET", http.StatusMethodNotAllowed)
			return
		}
		release, ok := s.acquire(w, req)
		if !ok {
			return
		}
		defer release()
		s.serveSymbolTable(w, req)
	default:
		http.NotFound(w, req)
	}
}

// acquire takes a per-client slot and a global one, or answers 429 or 503.
func (s *Server) acquire(w http.ResponseWriter, req *http.Request) (release func(), ok bool) {
	s.once.Do(func() {
		s.sem = make(chan struct{}, max(s.MaxConcurrent, 1))
		s.clients = map[string]int{}
	})
	client, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		client = req.RemoteAddr
	}
	s.mu.Lock()
	if s.clients[client] >= max(s.MaxPerClient, 1) {
		s.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("this client already has %d requests in flight, the most allowed", s.MaxPerClient), http.StatusTooManyRequests)
		return nil, false
	}
	s.clients[client]++
	s.mu.Unlock()
	leave := func() {
		s.mu.Lock()
		if s.clients[client]--; s.clients[client] <= 0 {
			delete(s.clients, client)
		}
		s.mu.Unlock()
	}
	t := time.NewTimer(s.QueueTimeout)
	defer t.Stop()
	select {
	case s.sem <- struct{}{}:
	case <-t.C:
		leave()
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(s.QueueTimeout.Seconds()))))
		http.Error(w, "the server is busy with other requests; retry later", http.StatusServiceUnavailable)
		return nil, false
	case <-req.Context().Done():
		leave()
		return nil, false
	}
	s.inFlight.Add(1)
	return func() {
		s.inFlight.Add(-1)
		<-s.sem
		leave()
	}, true
}

// deadlineReader gives each read of the body BodyReadTimeout to make
// progress, within the request's overall deadline.
type deadlineReader struct {
	r    io.Reader
	rc   *http.ResponseController
	idle time.Duration
	end  time.Time
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if d.idle > 0 {
		dl := time.Now().Add(d.idle)
		if !d.end.IsZero() && d.end.Before(dl) {
			dl = d.end
		}
		d.rc.SetReadDeadline(dl) // test recorders do not support it: no deadline
	}
	return d.r.Read(p)
}

// deadlineWriter gives each 64 KiB of the response WriteTimeout.
type deadlineWriter struct {
	w    io.Writer
	rc   *http.ResponseController
	idle time.Duration
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), 64<<10)
		if d.idle > 0 {
			d.rc.SetWriteDeadline(time.Now().Add(d.idle))
		}
		m, err := d.w.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}

// writeDeadlines makes the response's writes subject to WriteTimeout
// (net/http clears the connection's write deadline after each request, so
// the next keep-alive request starts afresh).
func (s *Server) writeDeadlines(w http.ResponseWriter) *deadlineWriter {
	return &deadlineWriter{w: w, rc: http.NewResponseController(w), idle: s.WriteTimeout}
}

func (s *Server) serveSymbolicate(w http.ResponseWriter, req *http.Request) {
	rc := http.NewResponseController(w)
	var end time.Time
	if s.ReadTimeout > 0 {
		end = time.Now().Add(s.ReadTimeout)
	}
	body := &deadlineReader{r: http.MaxBytesReader(w, req.Body, s.MaxBody), rc: rc, idle: s.BodyReadTimeout, end: end}
	jobs, err := s.parseV5(body)
	if err != nil {
		var bad *BadRequestError
		var tooBig *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooBig):
			http.Error(w, fmt.Sprintf("request body over %d bytes", s.MaxBody), http.StatusRequestEntityTooLarge)
		case errors.As(err, &ne) && ne.Timeout():
			w.Header().Set("Connection", "close")
			rc.SetWriteDeadline(time.Now().Add(time.Second))
			http.Error(w, "request body not received in time", http.StatusRequestTimeout)
		case errors.As(err, &bad):
			http.Error(w, bad.Reason, bad.status())
		default:
			w.Header().Set("Connection", "close")
			http.Error(w, "reading request: "+err.Error(), http.StatusBadRequest)
		}
		return
	}
	ctx := req.Context()
	if s.RequestTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.RequestTimeout)
		defer cancel()
	}
	w.Header().Set("Content-Type", "application/json")
	dw := s.writeDeadlines(w)
	bw := bufio.NewWriterSize(dw, 64<<10)
	if err := s.writeV5(ctx, bw, jobs); err != nil {
		// The status line is out: the only way left to say the answer is
		// incomplete is to cut the connection.
		panic(http.ErrAbortHandler)
	}
}

func (s *Server) serveSymbolTable(w http.ResponseWriter, req *http.Request) {
	parts := strings.Split(strings.TrimPrefix(req.URL.Path, "/symbol-table/v1/"), "/")
	if len(parts) != 2 {
		http.Error(w, "want /symbol-table/v1/DEBUGNAME/BREAKPADID", http.StatusBadRequest)
		return
	}
	img, err := moduleImage(parts[0], parts[1])
	if err != nil {
		http.Error(w, err.(*BadRequestError).Reason, http.StatusBadRequest)
		return
	}
	t, err := s.r.SymbolTable(img)
	if err != nil {
		if errors.Is(err, ErrImageNotFound) {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	dw := s.writeDeadlines(w)
	switch req.URL.Query().Get("format") {
	case "binary":
		b, _ := t.AppendBinary(nil)
		w.Header().Set("Content-Type", "application/octet-stream")
		dw.Write(b)
	case "", "json":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(dw).Encode(struct {
			Addr   []uint32 `json:"addr"`
			Index  []uint32 `json:"index"`
			Buffer string   `json:"buffer"`
		}{t.Addr, t.Index, string(t.Buffer)})
	default:
		http.Error(w, "format must be json or binary", http.StatusBadRequest)
	}
}

// moduleImage validates a (debugName, breakpadId) pair from a request. The
// debug name must be a plain file name: it is joined to search directories.
func moduleImage(name, id string) (Image, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return Image{}, badf("debug name %q is not a plain file name", name)
	}
	if len(id) < 33 || len(id) > 40 {
		return Image{}, badf("breakpad id %q: want 33 to 40 hex digits", id)
	}
	for _, c := range id {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return Image{}, badf("breakpad id %q: not hex", id)
		}
	}
	return Image{Path: name, ID: ID{Kind: IDBreakpad, Bytes: []byte(strings.ToUpper(id))}}, nil
}

// errMessages word module errors for remote clients without revealing the
// server's paths (the full error stays in the server's own logs).
var errMessages = map[string]string{
	"BuildIDMismatch":   "a file was found but its build id differs from the one requested",
	"NotFound":          "not found in the symbol path",
	"NoDebugInfo":       "found, but without symbols or debug information",
	"UnsupportedFormat": "not an ELF, Mach-O or PE file",
	"Malformed":         "found, but its debug information is malformed",
	"Error":             "could not be read",
}

// errName gives module_errors a stable machine-readable name.
func errName(err error) string {
	names := []struct {
		e error
		n string
	}{
		{ErrBuildIDMismatch, "BuildIDMismatch"}, {ErrImageNotFound, "NotFound"},
		{ErrNoDebugInfo, "NoDebugInfo"}, {ErrUnsupportedFormat, "UnsupportedFormat"},
		{ErrMalformed, "Malformed"},
	}
	// Checked in order: a not-found error that rejected a mismatching file
	// is reported as the mismatch, the actionable reason.
	for _, x := range names {
		if errors.Is(err, x.e) {
			return x.n
		}
	}
	return "Error"
}
