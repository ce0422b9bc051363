package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/symbolize"
	"github.com/gotracy/gotracy/symbols"
)

// StopReason says why a capture ended.
type StopReason uint8

const (
	// StopClientExit: the client terminated its session and every answer
	// arrived (or, in a replay, the recording ended after Terminate).
	StopClientExit StopReason = iota + 1
	// StopCancelled: the caller's context ended (Ctrl-C).
	StopCancelled
	// StopTimeLimit: WithTimeLimit expired.
	StopTimeLimit
	// StopMemoryLimit: the process used more memory than WithMemoryLimit.
	StopMemoryLimit
	// StopError: the capture ended with the error it returned (connection
	// lost, malformed stream, instrumentation failure).
	StopError
)

func (r StopReason) String() string {
	switch r {
	case StopClientExit:
		return "client exited"
	case StopCancelled:
		return "interrupted"
	case StopTimeLimit:
		return "time limit reached"
	case StopMemoryLimit:
		return "memory limit reached"
	case StopError:
		return "error"
	}
	return "not stopped"
}

// Stats are the live figures of a capture (Tracy capture's status line).
type Stats struct {
	Elapsed      time.Duration
	BytesIn      int64 // compressed bytes received, frame headers included
	BytesDecoded int64 // decompressed item bytes
	Frames       int64 // transport frames
	Events       int64 // items processed
	Zones        int64 // CPU zones begun
	QueriesSent  int64
	QueryBacklog int64  // queries waiting for budget
	Memory       uint64 // bytes of live heap objects
}

// Result is what a capture produced. Trace is set whenever the handshake
// succeeded, also when an error is returned alongside: a capture always
// keeps what it received.
type Result struct {
	Trace    *model.Trace
	Welcome  protocol.Welcome
	OnDemand *protocol.OnDemandPayload
	Stop     StopReason
	Stats    Stats
	// Symbols is the outcome of server-side resolution (WithSymbols with
	// SymbolsServer): frames asked, resolved, and why others were not, per
	// image. Nil in the other modes.
	Symbols *symbolize.Report
}

type config struct {
	timeLimit    time.Duration
	memoryLimit  uint64
	memoryMeter  func() uint64              // what memoryLimit is held to; nil: the live heap
	flight       *FlightRecorder            // flight.go; nil: keep everything
	snapshots    <-chan chan<- *model.Trace // flight.go: snapshot requests
	record       io.Writer
	progress     func(Stats)
	progressInt  time.Duration
	retry        time.Duration
	connected    func(protocol.Welcome)
	localSources bool
	queryLog     io.Writer // tests: where a replay's queries go
	budget       int       // tests: query budget instead of the socket's
	// broadcastWait is how long a refused capture listens for the client's
	// discovery broadcast to learn its protocol version (it sends one every
	// 3 s while it waits for a server).
	broadcastWait time.Duration
	symMode       SymbolMode
	resolver      *symbols.Resolver

	publisher *Publisher // live readers (WithPublisher), nil = none

	connectTimeout   time.Duration // 0: wait for a client until ctx ends
	handshakeTimeout time.Duration
	idleTimeout      time.Duration // 0: none
}

// Default timeouts. A Tracy client answers the handshake at once and, when
// it has nothing else to send, sends a keepalive every 5 s; the defaults
// leave a wide margin over both while still ending a session with a hung or
// foreign peer on their own.
const (
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultIdleTimeout      = 60 * time.Second
)

// WithConnectTimeout bounds how long Connect waits for a client to accept
// the connection (tracy-capture waits forever; so does the default, 0).
// When it expires Connect returns an error wrapping ErrNoClient.
func WithConnectTimeout(d time.Duration) Option { return func(c *config) { c.connectTimeout = d } }

// WithHandshakeTimeout bounds the handshake once connected: the client's
// status byte, welcome and on-demand payload must arrive within d
// (default DefaultHandshakeTimeout; d <= 0 restores the default, because a
// handshake without a deadline can hang forever on a silent peer).
func WithHandshakeTimeout(d time.Duration) Option { return func(c *config) { c.handshakeTimeout = d } }

// WithIdleTimeout ends a capture whose client sends nothing for d (default
// DefaultIdleTimeout; 0 disables it). The trace so far is kept and the
// error wraps ErrIdleTimeout. The same bound applies to sending queries to
// a client that stopped reading them.
//
// Tracy clients send a keepalive after 5 s without events, so silence
// means a dead or foreign peer. gotracy's Go client (recognised by the
// "gotracy-ext:" lines of its HostInfo) sent none before it advertised
// ExtKeepAliveHostInfo; for such a client silence is normal and the read
// side has no idle timeout.
func WithIdleTimeout(d time.Duration) Option { return func(c *config) { c.idleTimeout = max(d, 0) } }

// ExtKeepAliveHostInfo is the HostInfo line with which a gotracy Go client
// says it sends Tracy's keepalive when idle (see WithIdleTimeout).
const ExtKeepAliveHostInfo = protocol.ExtKeepAliveHostInfo

// sendsKeepAlives tells whether silence from this client means trouble:
// every client but a gotracy Go client that does not advertise keepalives.
func sendsKeepAlives(hostInfo string) bool {
	if !strings.Contains(hostInfo, "gotracy-ext:") {
		return true
	}
	for _, line := range strings.Split(hostInfo, "\n") {
		if strings.TrimSpace(line) == ExtKeepAliveHostInfo {
			return true
		}
	}
	return false
}

// Option configures a capture.
type Option func(*config)

// WithTimeLimit stops the capture after d (tracy-capture -s).
func WithTimeLimit(d time.Duration) Option { return func(c *config) { c.timeLimit = d } }

// WithMemoryLimit stops the capture when the live heap exceeds n bytes
// (tracy-capture -m, see MemoryLimitPercent).
func WithMemoryLimit(n uint64) Option { return func(c *config) { c.memoryLimit = n } }

// WithMemoryMeter replaces what WithMemoryLimit is compared with (the
// process's live heap) by fn, called from the capture's monitor goroutine.
// A process running several captures (gotracy daemon -m) uses it to hold
// each client to its own share of the heap.
func WithMemoryMeter(fn func() uint64) Option { return func(c *config) { c.memoryMeter = fn } }

// WithRecord copies every byte the client sends (status, welcome, on-demand
// payload, frames) to w, the layout `gotracy replay` reads.
func WithRecord(w io.Writer) Option { return func(c *config) { c.record = w } }

// WithProgress calls fn every interval with the live figures, from a
// goroutine of the capture's own.
func WithProgress(interval time.Duration, fn func(Stats)) Option {
	return func(c *config) { c.progress, c.progressInt = fn, interval }
}

// WithRetryInterval sets how long Connect waits between attempts while no
// client listens (default 100 ms).
func WithRetryInterval(d time.Duration) Option { return func(c *config) { c.retry = d } }

// WithConnected calls fn once the client's welcome has been read.
func WithConnected(fn func(protocol.Welcome)) Option { return func(c *config) { c.connected = fn } }

// WithLocalSources says whether source files found on this machine (and
// older than the client's executable) are read into the trace instead of
// being asked from the client. Tracy's capture does so, and so does the
// default, for Replay too: which files are read locally decides the
// numbering of the source-code queries, and a recording's answers carry the
// numbers its server gave on the machine it ran on.
func WithLocalSources(on bool) Option {
	return func(c *config) { c.localSources = on }
}

func newConfig(opts []Option) *config {
	c := &config{retry: 100 * time.Millisecond, localSources: true, progressInt: 100 * time.Millisecond, broadcastWait: 3500 * time.Millisecond,
		handshakeTimeout: DefaultHandshakeTimeout, idleTimeout: DefaultIdleTimeout}
	for _, o := range opts {
		o(c)
	}
	if c.handshakeTimeout <= 0 {
		c.handshakeTimeout = DefaultHandshakeTimeout
	}
	return c
}

// Connect captures the client at addr (host:port). It waits for the client
// to listen, performs the handshake and runs until the client exits, ctx
// ends, or a limit is reached. On any stop it sends ServerQueryTerminate
// and returns the trace it built; errors (handshake refused, connection
// lost, malformed stream) come with the partial trace.
func Connect(ctx context.Context, addr string, opts ...Option) (*Result, error) {
	c := newConfig(opts)
	conn, err := dial(ctx, addr, c.retry, c.connectTimeout)
	if err != nil {
		if ctx.Err() != nil {
			return &Result{Stop: StopCancelled}, err
		}
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() {
		// Unblock a handshake read; the pipeline handles ctx itself later.
		conn.SetDeadline(time.Now())
	})
	conn.SetDeadline(time.Now().Add(c.handshakeTimeout))
	if err := sendHandshake(conn); err != nil {
		stop()
		if ctx.Err() != nil {
			return &Result{Stop: StopCancelled}, fmt.Errorf("capture: connecting to %s: %w", addr, ctx.Err())
		}
		he := &HandshakeError{Addr: addr, Status: protocol.HandshakeDropped, Want: 1 + protocol.WelcomeSize, Err: err}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			he.Timeout, he.Err = c.handshakeTimeout, nil
		}
		return nil, he
	}
	rec := newRecorder(c.record)
	var src io.Reader = conn
	if rec != nil {
		src = io.TeeReader(conn, rec)
	}
	peek := func() { conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond)) }
	h, err := readHello(src, addr, c.handshakeTimeout, peek)
	if !stop() || ctx.Err() != nil {
		return &Result{Stop: StopCancelled}, fmt.Errorf("capture: connecting to %s: %w", addr, ctx.Err())
	}
	if err != nil {
		var he *HandshakeError
		if errors.As(err, &he) && he.Status == protocol.HandshakeProtocolMismatch {
			he.ClientProtocol = clientProtocolFromBroadcast(addr, c.broadcastWait)
		}
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	if c.idleTimeout > 0 && sendsKeepAlives(h.welcome.HostInfo) {
		src = idleReader{c: conn, d: c.idleTimeout}
		if rec != nil {
			src = io.TeeReader(src, rec)
		}
	}
	sndbuf := sendBufferSize(conn)
	if sndbuf == 0 {
		sndbuf = 64 << 10
	}
	budget := budgetFor(sndbuf)
	if c.budget > 0 {
		budget = c.budget
	}
	res, err := run(ctx, c, h, src, conn, newQueryQueue(budget, false), rec)
	if err != nil {
		err = fmt.Errorf("capture %s: %w", addr, err)
	}
	return res, err
}

// Replay runs the capture pipeline over a recorded client-to-server stream
// (NAME.c2s.bin, or what WithRecord wrote). Queries are decided as in a live
// capture but go nowhere, and never wait for budget: the recording already
// holds the client's answers to the queries its server sent.
func Replay(ctx context.Context, r io.Reader, opts ...Option) (*Result, error) {
	c := newConfig(opts)
	h, err := readHello(r, "", 0, nil)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	res, err := run(ctx, c, h, r, nil, newQueryQueue(0, true), nil)
	if err != nil {
		err = fmt.Errorf("replay: %w", err)
	}
	return res, err
}

// Errors used as context causes for the limits.
var (
	errTimeLimit   = errors.New("time limit reached")
	errMemoryLimit = errors.New("memory limit reached")
)

// frameMsg carries one decompressed frame (or the reader's final error)
// from the reading goroutine to the consumer.
type frameMsg struct {
	data []byte
	base int64
	err  error
}

// Number of frame buffers in flight: one being consumed, the others read
// ahead (2 MiB in all), returned to the reader frameReturn at a time.
// Tracy's server reads at most two frames ahead; a few more still bound
// memory and keep the client's back-pressure, and they let the reader run
// once per frameReturn frames instead of once per frame.
const (
	frameBuffers = 8
	frameReturn  = 4
)

type liveStats struct {
	start                        time.Time
	bytesIn, decoded, frames     atomic.Int64
	events, zones, sent, backlog atomic.Int64
}

func (s *liveStats) snapshot() Stats {
	return Stats{
		Elapsed:      time.Since(s.start),
		BytesIn:      s.bytesIn.Load(),
		BytesDecoded: s.decoded.Load(),
		Frames:       s.frames.Load(),
		Events:       s.events.Load(),
		Zones:        s.zones.Load(),
		QueriesSent:  s.sent.Load(),
		QueryBacklog: s.backlog.Load(),
		Memory:       heapBytes(),
	}
}

// run is the pipeline shared by Connect and Replay. One goroutine reads and
// decompresses frames; this one (the single consumer) applies them to the
// trace and sends the queries. conn is nil for a replay.
func run(parent context.Context, c *config, h hello, src io.Reader, conn net.Conn, q *queryQueue, rec *recorder) (*Result, error) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	if c.timeLimit > 0 {
		tl := time.AfterFunc(c.timeLimit, func() { cancel(errTimeLimit) })
		defer tl.Stop()
	}

	t := model.New()
	w := newWorker(t, q)
	w.localSources = c.localSources
	var symResults chan symBatch // nil (never ready) unless resolving
	w.negotiate = c.symMode != SymbolsClient
	if c.symMode == SymbolsServer && c.resolver != nil {
		w.sym = newServerSymbols(c.resolver)
		symResults = w.sym.results
	}
	if c.flight != nil {
		w.flight = &flight{cfg: *c.flight}
		w.startReclaim()
	}
	w.start(h)
	res := &Result{Trace: t, Welcome: h.welcome, OnDemand: h.onDemand}
	// Live readers (publish.go): a first snapshot at once, then between
	// frames and on a timer; the hot loop pays one check per frame.
	pub := c.publisher
	var pubTick <-chan time.Time
	if pub != nil {
		pub.publish(w, time.Now())
		tk := time.NewTicker(pub.interval)
		defer tk.Stop()
		pubTick = tk.C
	}
	if c.connected != nil {
		c.connected(h.welcome)
	}

	st := &liveStats{start: time.Now()}
	st.bytesIn.Store(h.size)
	done := make(chan struct{})
	var wg sync.WaitGroup

	// Monitor: progress callbacks and the memory limit.
	if c.progress != nil || c.memoryLimit > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(c.progressInt)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				s := st.snapshot()
				used := s.Memory
				if c.memoryMeter != nil {
					used = c.memoryMeter()
				}
				if c.memoryLimit > 0 && used > c.memoryLimit {
					cancel(errMemoryLimit)
				}
				if c.progress != nil {
					c.progress(s)
				}
			}
		}()
	}

	// Reader: frames off the wire, decompressed, handed over in buffers.
	frames := make(chan frameMsg, frameBuffers)
	free := make(chan []byte, frameBuffers)
	for range frameBuffers {
		free <- make([]byte, 0, protocol.TargetFrameSize)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		fr := protocol.NewFrameReader(src, h.size)
		for {
			data, err := fr.Next()
			if err != nil {
				select {
				case frames <- frameMsg{err: err}:
				case <-done:
				}
				return
			}
			var buf []byte
			select {
			case buf = <-free:
			case <-done:
				return
			}
			buf = append(buf[:0], data...)
			st.bytesIn.Store(fr.Offset())
			st.decoded.Store(fr.Decoded())
			st.frames.Add(1)
			select {
			case frames <- frameMsg{data: buf, base: fr.DecodedOffset()}:
			case <-done:
				return
			}
		}
	}()

	// Consumer.
	var runErr, writeErr error
	stopWith := func(r StopReason) { res.Stop = r }
	// Every buffer handed back wakes the reader if it waits for one, and on
	// a loaded 2-core machine each wake-up waits for a time slice; with one
	// per 256 KiB frame a heavy10m capture spent most of its wall time
	// waiting. So spent buffers go back frameReturn at a time, and all of
	// them before the consumer could block (nothing queued), so the reader
	// is never left without a buffer while the consumer waits for it.
	spent := make([][]byte, 0, frameBuffers)
	giveBack := func() {
		for _, b := range spent {
			free <- b
		}
		spent = spent[:0]
	}
loop:
	for {
		if len(frames) == 0 && len(spent) > 0 {
			giveBack()
		}
		select {
		case <-ctx.Done():
			switch context.Cause(ctx) {
			case errTimeLimit:
				stopWith(StopTimeLimit)
			case errMemoryLimit:
				stopWith(StopMemoryLimit)
			default:
				stopWith(StopCancelled)
			}
			break loop
		case reply := <-c.snapshots:
			w.flightSnapshot(reply)
		case b := <-symResults:
			w.sym.merge(w, b)
			w.sym.flush(t)
		case now := <-pubTick:
			if pub.due(w, now) {
				pub.publish(w, now)
			}
		case m := <-frames:
			if m.err != nil {
				runErr = w.endOfStream(m.err, conn == nil)
				if runErr != nil && writeErr != nil {
					runErr = fmt.Errorf("%w (sending queries failed too: %v)", runErr, writeErr)
				}
				if runErr == nil {
					stopWith(StopClientExit)
				} else {
					stopWith(StopError)
				}
				break loop
			}
			err := w.processFrame(m.data, m.base)
			w.collectImages()
			// Buffers go back to the reader in groups.
			spent = append(spent, m.data)
			if len(spent) >= frameReturn {
				giveBack()
			}
			if w.flight != nil {
				w.flight.afterFrame(w)
			}
			st.events.Store(int64(w.events))
			st.zones.Store(int64(w.zones))
			if err != nil {
				runErr = fmt.Errorf("%w: %w", ErrMalformed, err)
				stopWith(StopError)
				break loop
			}
			if w.fail != nil {
				runErr = w.fail
				stopWith(StopError)
				break loop
			}
			var wr io.Writer = c.queryLog
			if conn != nil && writeErr == nil {
				wr = conn
				if c.idleTimeout > 0 {
					// A client that stops reading must not block us.
					conn.SetWriteDeadline(time.Now().Add(c.idleTimeout))
				}
			}
			if err := q.flush(wr); err != nil {
				// The client stopped reading (it may have closed after its
				// Terminate). Keep reading what it already sent: the read
				// side reports how the session really ended.
				writeErr = err
			}
			if w.sym != nil {
				w.sym.flush(t)
			}
			st.sent.Store(int64(q.sent))
			st.backlog.Store(int64(q.backlog()))
			if pub != nil {
				if now := time.Now(); pub.due(w, now) {
					pub.publish(w, now)
				}
			}
			if conn != nil && w.terminate && w.idle() {
				stopWith(StopClientExit)
				break loop
			}
		}
	}

	// Tell the client we are done (it waits for this to end its session),
	// then release the reader.
	if conn != nil {
		conn.SetWriteDeadline(time.Now().Add(time.Second))
		conn.Write(terminatePacket[:])
		conn.Close()
	}
	close(done)
	wg.Wait()
	if w.sym != nil {
		w.sym.drain(w)
		res.Symbols = &w.sym.report
	}
	w.flightFinish()
	w.finish()
	res.Stats = st.snapshot()
	if pub != nil {
		pub.publishFinal(w, res.Stop)
	}
	if rec != nil && rec.err != nil && runErr == nil {
		runErr = fmt.Errorf("capture: recording the raw stream: %w", rec.err)
	}
	return res, runErr
}

// endOfStream classifies the reader's final error. A clean end after the
// client's Terminate is a normal finish (a client may close right after;
// a recording simply ends); a cut anywhere else loses the rest of the
// session; a corrupt frame is a malformed stream.
func (w *worker) endOfStream(err error, replay bool) error {
	if errors.Is(err, protocol.ErrFrameSize) || errors.Is(err, protocol.ErrCorruptLZ4) {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if w.terminate {
		// After Terminate the client only answers queries: an end is
		// clean when nothing asked is still unanswered. A replay cut right
		// after Terminate would otherwise "succeed" with every name and
		// frame the recording never answered missing.
		var ne net.Error
		if errors.Is(err, io.EOF) || errors.Is(err, ErrIdleTimeout) || (!replay && (errors.As(err, &ne) || errors.Is(err, net.ErrClosed))) {
			if p := w.pendingQueries(); len(p) > 0 {
				return &UnansweredError{Pending: p}
			}
			return nil
		}
	}
	if errors.Is(err, ErrIdleTimeout) {
		return err
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: stream ended", ErrConnectionLost)
	}
	return fmt.Errorf("%w: %w", ErrConnectionLost, err)
}

// recorder copies the raw stream for --record. A failing recording does
// not stop the capture; the first error is reported at the end.
type recorder struct {
	w   io.Writer
	err error
}

func newRecorder(w io.Writer) *recorder {
	if w == nil {
		return nil
	}
	return &recorder{w: w}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.err == nil {
		_, r.err = r.w.Write(p)
	}
	return len(p), nil
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
var heapMu sync.Mutex

// heapBytes is the live heap, the figure the memory limit is held to.
func heapBytes() uint64 {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSample)
	if heapSample[0].Value.Kind() == metrics.KindUint64 {
		return heapSample[0].Value.Uint64()
	}
	return 0
}

// MemoryLimitPercent converts tracy-capture's -m (percent of physical
// memory, clamped to 1..999 as Tracy does) to bytes for WithMemoryLimit.
func MemoryLimitPercent(pct int) (uint64, error) {
	total := physicalMemory()
	if total == 0 {
		return 0, ErrMemoryLimitUnsupported
	}
	pct = min(max(pct, 1), 999)
	return total / 100 * uint64(pct), nil
}
