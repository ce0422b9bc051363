//go:build !notracy

package tracy

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
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
	stats     Stats
	statsMu   sync.Mutex
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
	for _, o := range opts {
		o(&cfg)
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
// passes), so nothing is lost at exit. Afterwards every call is a no-op
// again. Stop returns the error that ended the last session, if any.
func Stop() error {
	profMu.Lock()
	p := prof
	if p == nil {
		profMu.Unlock()
		return ErrNotRunning
	}
	close(p.stop)
	select {
	case <-p.done:
	case <-time.After(p.cfg.shutdownTimeout + time.Second):
		// The sender is stuck writing to a server that stopped reading:
		// cut the connection so Stop returns.
		if c := p.curConn.Load(); c != nil {
			(*c).Close()
		}
		<-p.done
	}
	p.ln.Close()
	close(p.imgDone)
	<-p.imgExited
	<-p.bcastDone
	running.Store(false)
	prof = nil
	profMu.Unlock()
	p.statsMu.Lock()
	defer p.statsMu.Unlock()
	return p.stats.LastError
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

func hostInfo() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("OS: %s\nCompiler: %s\nArch: %s\nHost: %s\nCPU cores: %d\n",
		runtime.GOOS, runtime.Version(), runtime.GOARCH, h, runtime.NumCPU())
}

func sleepNs(ns int64) { time.Sleep(time.Duration(ns)) }
