// Package daemon is gotracy's capture daemon (Tracy 0.14's
// tracy-capture-daemon): it listens for the UDP announcements Tracy clients
// send while they wait for a server (protocol.Broadcast, versions 0-3),
// captures every announced client concurrently with capture.Connect, and
// hands each finished capture to a callback that saves it.
//
// Use:
//
//	d := daemon.New(daemon.Config{Port: 8086, Finished: save})
//	err := d.Run(ctx) // until ctx ends; then every running capture stops and is handed to save
//
// Sessions lists the clients seen so far with their live figures (the
// daemon's table). A client that disconnects and announces itself again is
// captured again, as a new session with the next sequence number (the
// file `<program>_<ip>_<port>_1.tracy` and so on, see FileName).
package daemon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/protocol"
)

// Client is one announced Tracy client: where it listens and what it said
// about itself.
type Client struct {
	Program         string
	IP              net.IP // the address the capture connects to
	Port            int    // the client's data port
	PID             uint64 // 0 before broadcast version 3
	ProtocolVersion uint32
	BroadcastVer    uint16
}

// Addr is the client's data address, host:port.
func (c Client) Addr() string { return capture.JoinAddr(c.IP.String(), c.Port) }

func (c Client) key() string { return c.Addr() }

// State is where a session is.
type State uint8

const (
	// Connecting: announced, the capture is connecting or handshaking.
	Connecting State = iota
	// Capturing: the client's welcome arrived; data flows.
	Capturing
	// Saving: the capture ended; Finished is running.
	Saving
	// Done: saved (or failed, see Session.Err).
	Done
)

func (s State) String() string {
	return [...]string{"connecting", "capturing", "saving", "done"}[s]
}

// Session is one capture of one client. Its figures are updated by the
// capture's progress callback and read by the table, hence atomics.
type Session struct {
	Client Client
	Seq    int // 0 for the first capture of this client in this daemon, then 1, 2, ...
	Start  time.Time

	state   atomic.Uint32
	bytesIn atomic.Int64
	decoded atomic.Int64
	elapsed atomic.Int64  // ns
	rate    atomic.Uint64 // bytes/s, float64 bits
	mu      sync.Mutex
	err     error
	saved   string
}

// Info is a snapshot of a session for display.
type Info struct {
	Client  Client
	Seq     int
	State   State
	BytesIn int64         // compressed bytes received
	Decoded int64         // decompressed bytes
	Elapsed time.Duration // since the welcome
	Rate    float64       // received bytes per second over the last progress interval
	Saved   string        // where Finished stored it (its return value), once Done
	Err     error
}

func (s *Session) info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Info{Client: s.Client, Seq: s.Seq, State: State(s.state.Load()), BytesIn: s.bytesIn.Load(),
		Decoded: s.decoded.Load(), Elapsed: time.Duration(s.elapsed.Load()),
		Rate: math.Float64frombits(s.rate.Load()), Saved: s.saved, Err: s.err}
}

// Config configures a Daemon.
type Config struct {
	// ListenAddr is the UDP address announcements are read on ("" = all
	// interfaces: a client on this machine may announce itself from any of
	// its addresses) and Port its port (0: 8086).
	ListenAddr string
	Port       int
	// Remote accepts announcements from other machines; by default only
	// this machine's clients (loopback or one of its own addresses) are
	// captured, and always over loopback.
	Remote bool
	// FilterName keeps only clients whose program name contains it;
	// FilterPort (non-zero) only clients listening on that port.
	FilterName string
	FilterPort int
	// Options returns the capture options of one session (limits, flight
	// recorder, symbols). The daemon adds its own progress callback.
	Options func(s *Session) []capture.Option
	// Finished is called, on the session's goroutine, when a capture ends
	// with a trace: it saves it and returns where (shown in the table).
	// ctx is the daemon's abort context (see Run).
	Finished func(ctx context.Context, s *Session, res *capture.Result, err error) (string, error)
	// Logf receives one line per event (client seen, capture ended).
	Logf func(format string, args ...any)
	// ConnectTimeout bounds each connection attempt to an announced client
	// (default 5 s): an announcement may be stale.
	ConnectTimeout time.Duration
}

// Daemon runs the captures. Create with New; Run blocks.
type Daemon struct {
	cfg Config

	mu       sync.Mutex
	active   map[string]*Session // by client address
	sessions []*Session          // every session, in start order
	seq      map[string]int      // next sequence number by client address
	pc       net.PacketConn
	wg       sync.WaitGroup
	ready    chan struct{}
}

// New returns a daemon for cfg.
func New(cfg Config) *Daemon {
	if cfg.Port == 0 {
		cfg.Port = 8086
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return &Daemon{cfg: cfg, active: map[string]*Session{}, seq: map[string]int{}, ready: make(chan struct{})}
}

// ListenError is a daemon that could not open its UDP port.
type ListenError struct {
	Addr string
	Err  error
}

func (e *ListenError) Error() string {
	return fmt.Sprintf("daemon: listening for Tracy announcements on UDP %s: %v (is a Tracy viewer or another daemon using the port?)", e.Addr, e.Err)
}
func (e *ListenError) Unwrap() error { return e.Err }

// Addr returns the UDP address the daemon listens on, once Run has opened
// it (nil before).
func (d *Daemon) Addr() net.Addr {
	select {
	case <-d.ready:
		return d.pc.LocalAddr()
	default:
		return nil
	}
}

// Run listens until ctx ends, then stops every capture (each keeps what it
// received, as Ctrl-C in gotracy capture) and waits until every Finished
// has returned. abort, when it ends, is passed to Finished so a second
// Ctrl-C can abandon the saves. Run returns a *ListenError when the port
// cannot be opened, nil otherwise.
func (d *Daemon) Run(ctx, abort context.Context) error {
	addr := net.JoinHostPort(d.cfg.ListenAddr, strconv.Itoa(d.cfg.Port))
	pc, err := net.ListenPacket("udp4", addr)
	if err != nil {
		return &ListenError{Addr: addr, Err: err}
	}
	d.pc = pc
	close(d.ready)
	stop := context.AfterFunc(ctx, func() { pc.Close() })
	defer stop()
	local := localAddrs()
	buf := make([]byte, 512)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				break
			}
			continue // a transient error (ICMP unreachable) must not stop the daemon
		}
		var b protocol.Broadcast
		if err := b.UnmarshalBinary(buf[:n]); err != nil {
			d.cfg.Logf("ignored a datagram from %v: %v", from, err)
			continue
		}
		ua, ok := from.(*net.UDPAddr)
		if !ok {
			continue
		}
		ip := ua.IP
		if isLocal(ip, local) {
			ip = net.IPv4(127, 0, 0, 1)
		} else if !d.cfg.Remote {
			continue
		}
		if b.ActiveTime < 0 {
			continue // busy with another server, or going away
		}
		c := Client{Program: b.ProgramName, IP: ip, Port: int(b.ListenPort), PID: b.PID,
			ProtocolVersion: b.ProtocolVersion, BroadcastVer: b.Version}
		if d.cfg.FilterName != "" && !strings.Contains(c.Program, d.cfg.FilterName) {
			continue
		}
		if d.cfg.FilterPort != 0 && c.Port != d.cfg.FilterPort {
			continue
		}
		d.announce(ctx, abort, c)
	}
	pc.Close()
	d.wg.Wait()
	return nil
}

// announce starts a session for c unless one runs.
func (d *Daemon) announce(ctx, abort context.Context, c Client) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, busy := d.active[c.key()]; busy {
		return
	}
	s := &Session{Client: c, Seq: d.seq[c.key()], Start: time.Now()}
	d.active[c.key()] = s
	d.wg.Add(1)
	go d.runSession(ctx, abort, s)
}

func (d *Daemon) runSession(ctx, abort context.Context, s *Session) {
	defer d.wg.Done()
	var last capture.Stats
	opts := []capture.Option{capture.WithConnectTimeout(d.cfg.ConnectTimeout),
		capture.WithConnected(func(protocol.Welcome) { s.state.Store(uint32(Capturing)) }),
		capture.WithProgress(250*time.Millisecond, func(st capture.Stats) {
			if dt := (st.Elapsed - last.Elapsed).Seconds(); dt > 0 {
				s.rate.Store(math.Float64bits(float64(st.BytesIn-last.BytesIn) / dt))
			}
			last = st
			s.bytesIn.Store(st.BytesIn)
			s.decoded.Store(st.BytesDecoded)
			s.elapsed.Store(int64(st.Elapsed))
		})}
	if d.cfg.Options != nil {
		opts = append(d.cfg.Options(s), opts...)
	}
	res, err := capture.Connect(ctx, s.Client.Addr(), opts...)
	if res == nil || res.Trace == nil {
		// Nobody answered (a stale announcement, or a client that took
		// another server): no capture, no file, the number is not used.
		d.mu.Lock()
		delete(d.active, s.Client.key())
		d.mu.Unlock()
		if ctx.Err() == nil {
			d.cfg.Logf("%s: no capture: %v", s.Client.Addr(), err)
		}
		return
	}
	d.mu.Lock()
	d.seq[s.Client.key()]++
	d.sessions = append(d.sessions, s)
	d.mu.Unlock()
	s.state.Store(uint32(Saving))
	s.bytesIn.Store(res.Stats.BytesIn)
	s.decoded.Store(res.Stats.BytesDecoded)
	s.elapsed.Store(int64(res.Stats.Elapsed))
	var where string
	var serr error
	if d.cfg.Finished != nil {
		where, serr = d.cfg.Finished(abort, s, res, err)
	}
	s.mu.Lock()
	s.saved = where
	s.err = serr
	if serr == nil && err != nil && res.Stop == capture.StopError {
		s.err = err
	}
	s.mu.Unlock()
	s.state.Store(uint32(Done))
	d.cfg.Logf("%s: capture ended (%s), %s", s.Client.Addr(), res.Stop, where)
	// Free the client's slot only now, so a quick re-announcement starts
	// the next number after this one's file exists.
	d.mu.Lock()
	delete(d.active, s.Client.key())
	d.mu.Unlock()
}

// Sessions returns every session so far: the finished ones in the order
// they connected, then the running ones, sorted by client.
func (d *Daemon) Sessions() []Info {
	d.mu.Lock()
	defer d.mu.Unlock()
	seen := map[*Session]bool{}
	var out []Info
	for _, s := range d.sessions {
		seen[s] = true
		out = append(out, s.info())
	}
	var run []Info
	for _, s := range d.active {
		if !seen[s] {
			run = append(run, s.info())
		}
	}
	sort.Slice(run, func(i, j int) bool { return run[i].Client.Addr() < run[j].Client.Addr() })
	return append(out, run...)
}

// LiveDecoded is the sum of the decompressed bytes of the sessions that are
// still capturing, for sharing a memory figure among them.
func (d *Daemon) LiveDecoded() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n int64
	for _, s := range d.active {
		if State(s.state.Load()) <= Capturing {
			n += s.decoded.Load()
		}
	}
	return n
}

// Decoded is the session's decompressed bytes so far.
func (s *Session) Decoded() int64 { return s.decoded.Load() }

// FileName is the file a session is saved under:
// `<program>_<ip>_<port>.tracy`, `_N` before the extension for the Nth
// reconnection (N = Seq). Characters that cannot be in a file name are
// replaced by '_'.
func FileName(c Client, seq int) string {
	prog := c.Program
	if prog == "" {
		prog = "unknown"
	}
	prog = strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\' || r == ':' || r == '*' || r == '?' || r == '"' || r == '<' || r == '>' || r == '|' || r < ' ':
			return '_'
		}
		return r
	}, prog)
	if prog == "." || prog == ".." {
		prog = "_"
	}
	name := fmt.Sprintf("%s_%s_%d", prog, c.IP.String(), c.Port)
	if seq > 0 {
		name += "_" + strconv.Itoa(seq)
	}
	return name + ".tracy"
}

func localAddrs() []net.IP {
	var ips []net.IP
	as, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok {
			ips = append(ips, n.IP)
		}
	}
	return ips
}

func isLocal(ip net.IP, local []net.IP) bool {
	if ip.IsLoopback() {
		return true
	}
	for _, l := range local {
		if l.Equal(ip) {
			return true
		}
	}
	return false
}
