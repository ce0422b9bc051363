//go:build !notracy

package tracy

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

var (
	profMu sync.Mutex
	prof   *profiler
)

type profiler struct {
	cfg       config
	ln        net.Listener
	port      int
	cal       calibration
	initBegin int64
	initEnd   int64
	startUnix int64
	execTime  uint64
	program   string
	hostInfo  string

	conns     chan net.Conn // handshaken connections, to the sender
	sessDone  chan struct{} // the sender finished a session
	stop      chan struct{}
	done      chan struct{}
	imgDone   chan struct{}
	imgExited chan struct{}
	bcastDone chan struct{}
	connected atomic.Bool
	curConn   atomic.Pointer[net.Conn] // the session's connection, for Stop's last resort
	busy      atomic.Bool              // a session is active (no broadcasts)
	served    atomic.Bool              // non-on-demand: the one session happened
	nextEp    uint32
	started   time.Time
	// handshaking counts connections the accept loop is reading the
	// handshake of, so Stop serves a server that connected just before.
	handshaking atomic.Int32
	// stopBy (unix ns) is when Stop gives up on a connected server that
	// stopped reading and cuts the connection; 0 until Stop delivers to
	// a connected server.
	stopBy     atomic.Int64
	poolMin    int // fewest pooled chunks seen since the last trim (sender)
	backlogLen atomic.Int64
	sysTime    sysTimeState // sender only
	resolution uint64       // measured by the sender before it serves anyone
	stats      Stats
	statsMu    sync.Mutex
}

// Start starts the profiler: it listens for a Tracy server (the GUI,
// tracy-capture or gotracy capture), announces itself by UDP broadcast, and
// from then on records what the program emits. Without WithOnDemand,
// recording starts now and is kept for the first server.
func Start(opts ...Option) error {
	profMu.Lock()
	defer profMu.Unlock()
	if prof != nil {
		return ErrRunning
	}
	cfg := defaultConfig()
	cfg.applyEnv(os.Getenv)
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.badEnvPort != "" {
		return fmt.Errorf("%w: TRACY_PORT=%q, want a port number 1..65535", ErrEnvironment, cfg.badEnvPort)
	}
	p := &profiler{
		cfg:       cfg,
		conns:     make(chan net.Conn),
		sessDone:  make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		imgDone:   make(chan struct{}),
		imgExited: make(chan struct{}),
		bcastDone: make(chan struct{}),
	}
	p.initBegin = now()
	p.started = time.Now()
	p.cal = newCalibration()
	p.startUnix = time.Now().Unix()
	if err := p.listen(); err != nil {
		return err
	}
	p.program = cfg.programName
	exe, _ := os.Executable()
	if p.program == "" {
		p.program = filepath.Base(exe)
		if p.program == "" || p.program == "." {
			p.program = "go-program"
		}
	}
	if st, err := os.Stat(exe); err == nil && exe != "" {
		p.execTime = uint64(st.ModTime().Unix())
	}
	p.hostInfo = cfg.hostInfo
	if p.hostInfo == "" {
		p.hostInfo = hostInfo()
	}
	chunkLimit.Store(cfg.memLimit)
	frameCount.Store(0)
	running.Store(true)
	prof = p
	go p.acceptLoop()
	go compressImages(p.imgDone, p.imgExited)
	if cfg.broadcast {
		go p.broadcastLoop()
	} else {
		close(p.bcastDone)
	}
	var first *session
	if !cfg.onDemand {
		first = p.beginSession(nil)
	}
	p.initEnd = now()
	go p.run(first)
	return nil
}

// Stop ends profiling. With a server connected it first delivers everything
// recorded, closes zones still open, sends Terminate and answers the
// server's last queries until it ends the session (or the shutdown timeout
// passes), so nothing is lost at exit.
//
// When events were recorded and no server ever connected (default mode),
// nothing is dropped without a word: a server that connects while Stop
// runs gets everything; Stop waits for one as long as WithExitWait says,
// or without limit when TRACY_NO_EXIT=1 (Tracy's convention); a program
// stopping within 250 ms of Start waits until then, so a capture that was
// already retrying connects; and if none comes Stop prints one line to
// stderr saying what it discards and how to keep it.
//
// Afterwards every call is a no-op again. Stop returns the error that
// ended the last session, if any.
func Stop() error {
	profMu.Lock()
	p := prof
	if p == nil {
		profMu.Unlock()
		return ErrNotRunning
	}
	if p.connected.Load() {
		p.stopBy.CompareAndSwap(0, time.Now().Add(p.cfg.shutdownTimeout+time.Second).UnixNano())
	}
	close(p.stop)
	tick := time.NewTicker(50 * time.Millisecond)
wait:
	for {
		select {
		case <-p.done:
			break wait
		case <-tick.C:
			if by := p.stopBy.Load(); by != 0 && time.Now().UnixNano() > by {
				// The sender is stuck writing to a server that stopped
				// reading: cut the connection so Stop returns.
				if c := p.curConn.Load(); c != nil {
					(*c).Close()
				}
				<-p.done
				break wait
			}
		}
	}
	tick.Stop()
	p.ln.Close()
	close(p.imgDone)
	<-p.imgExited
	<-p.bcastDone
	running.Store(false)
	prof = nil
	profMu.Unlock()
	p.statsMu.Lock()
	err := p.stats.LastError
	p.statsMu.Unlock()
	for _, f := range p.cfg.afterStop {
		if herr := f(); herr != nil && err == nil {
			err = herr
		}
	}
	return err
}

// Port returns the TCP port the profiler listens on, 0 when not started.
func Port() int {
	profMu.Lock()
	defer profMu.Unlock()
	if prof == nil {
		return 0
	}
	return prof.port
}

// Connected reports whether a server is connected now.
func Connected() bool {
	profMu.Lock()
	p := prof
	profMu.Unlock()
	return p != nil && p.connected.Load()
}

// WaitConnected blocks until a server is connected or ctx is done.
func WaitConnected(ctx context.Context) error {
	for {
		profMu.Lock()
		p := prof
		profMu.Unlock()
		if p == nil {
			return ErrNotRunning
		}
		if p.connected.Load() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// ReadStats returns the profiler's counters.
func ReadStats() Stats {
	profMu.Lock()
	p := prof
	profMu.Unlock()
	var s Stats
	if p != nil {
		p.statsMu.Lock()
		s = p.stats
		p.statsMu.Unlock()
	}
	if p != nil {
		s.BacklogLimit = int64(p.cfg.backlogLimit)
		s.BacklogBytes = p.backlogLen.Load()
	}
	s.ProducerWaits = waits.Load()
	s.ImagesDropped = imagesDropped.Load()
	s.QueueBytes = chunkBytes.Load()
	s.Goroutines = len(*gstates.Load())
	return s
}

func (p *profiler) listen() error {
	addr := p.cfg.addr
	if addr == "0.0.0.0" {
		addr = ""
	}
	network := "tcp"
	if p.cfg.ipv4Only {
		network = "tcp4"
	}
	if addr != "" {
		if ip := net.ParseIP(addr); ip != nil && ip.To4() != nil {
			network = "tcp4"
		}
	}
	ports := []int{p.cfg.port}
	if p.cfg.port < 0 {
		ports = ports[:0]
		for i := 0; i < 20; i++ {
			ports = append(ports, 8086+i)
		}
	}
	var lastErr error
	for _, port := range ports {
		ln, err := net.Listen(network, net.JoinHostPort(addr, strconv.Itoa(port)))
		if err != nil {
			lastErr = err
			continue
		}
		p.ln = ln
		p.port = ln.Addr().(*net.TCPAddr).Port
		return nil
	}
	return fmt.Errorf("%w on %s ports %v: %w", ErrNoPort, p.cfg.addr, ports, lastErr)
}

func sleepNs(ns int64) { time.Sleep(time.Duration(ns)) }
