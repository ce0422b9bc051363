package tracy

import (
	"strconv"
	"strings"
	"time"
)

// An Option configures Start.
type Option func(*config)

type config struct {
	addr            string
	port            int // -1: default 8086..8105 fallback; 0: any free port
	programName     string
	onDemand        bool
	broadcast       bool
	broadcastPort   int // 0: 8086
	shutdownTimeout time.Duration
	memLimit        int64
	backlogLimit    int
	hostInfo        string
	ipv4Only        bool
	exitWait        time.Duration // < 0: no limit
	exitWaitSet     bool
	afterStop       []func() error
	badEnvPort      string // TRACY_PORT's value when it is not a port (WithPort clears it)
}

func defaultConfig() config {
	return config{
		addr:            "127.0.0.1",
		port:            -1,
		broadcast:       true,
		shutdownTimeout: 10 * time.Second,
		memLimit:        256 << 20,
		backlogLimit:    256 << 20,
	}
}

// WithAddress sets the address to listen on. The default is loopback only
// (127.0.0.1): a profiled program exposes its internals, so reaching it
// from the network is an explicit choice. "" or "0.0.0.0" listens on all
// interfaces.
func WithAddress(addr string) Option { return func(c *config) { c.addr = addr } }

// WithPort listens on exactly this port. Without it the client tries 8086
// and the 19 ports after it, as Tracy does, so several profiled programs can
// run at once. Port 0 takes any free port (see Port).
func WithPort(port int) Option { return func(c *config) { c.port, c.badEnvPort = port, "" } }

// WithProgramName sets the name shown in the viewer's client list and
// capture (default: the executable's base name).
func WithProgramName(name string) Option { return func(c *config) { c.programName = name } }

// WithOnDemand records only while a server is connected (Tracy's
// TRACY_ON_DEMAND): nothing is buffered before, every call is a no-op
// while nobody watches, and the program may be connected to many times.
// Without it, everything from Start on is kept (compressed, up to the
// backlog limit) for the first server, and only one session is served.
func WithOnDemand(on bool) Option { return func(c *config) { c.onDemand = on } }

// WithBroadcast turns the UDP announcement (every 3 s while waiting, so the
// viewer lists the program) on or off. It is on by default; when listening
// on loopback only it goes to 127.255.255.255.
func WithBroadcast(on bool) Option { return func(c *config) { c.broadcast = on } }

// WithBroadcastPort sends the UDP announcement to this port instead of
// Tracy's 8086 (Tracy's TRACY_BROADCAST_PORT build option), for a capture
// daemon listening elsewhere (gotracy daemon -p).
func WithBroadcastPort(port int) Option { return func(c *config) { c.broadcastPort = port } }

// WithShutdownTimeout bounds how long Stop keeps answering a connected
// server's queries after sending Terminate (default 10 s).
func WithShutdownTimeout(d time.Duration) Option { return func(c *config) { c.shutdownTimeout = d } }

// WithMemoryLimit bounds the memory of the goroutine event queues (default
// 256 MiB). When the sender falls behind this much, producers wait for it.
func WithMemoryLimit(bytes int64) Option { return func(c *config) { c.memLimit = bytes } }

// WithBacklogLimit bounds the compressed data kept for the first server
// when not on demand (default 256 MiB). When it is full and still no server
// has connected, recording stops (one line on stderr, counted in
// Stats.BacklogStops) so the program runs on unhindered; the first server
// gets the backlog and recording resumes.
func WithBacklogLimit(bytes int) Option { return func(c *config) { c.backlogLimit = bytes } }

// WithHostInfo replaces the host description sent in the welcome.
func WithHostInfo(s string) Option { return func(c *config) { c.hostInfo = s } }

// WithExitWait makes Stop wait up to d for a first server when events were
// recorded and none has connected yet (d < 0: no limit, as TRACY_NO_EXIT=1;
// d == 0: no wait at all, not even the short grace a program stopping
// right after Start gets). A short program run under a capture that starts
// later then still delivers everything.
func WithExitWait(d time.Duration) Option {
	return func(c *config) { c.exitWait, c.exitWaitSet = d, true }
}

// WithAfterStop adds f to what Stop runs once the profiler has stopped and
// delivered everything; Stop returns f's error if it has none of its own.
// It lets an opt-in package finish work that depends on the delivery (the
// tracyfile package writes its file there) without this package knowing
// it.
func WithAfterStop(f func() error) Option {
	return func(c *config) { c.afterStop = append(c.afterStop, f) }
}

// applyEnv reads Tracy's client environment variables, where they apply
// to this client. Start applies them before the options, so options given
// in code win.
//
//	TRACY_PORT=N            listen on exactly port N (WithPort)
//	TRACY_NO_EXIT=1         Stop waits for a server without limit (WithExitWait(-1))
//	TRACY_NO_BROADCAST=1    no UDP announcements (WithBroadcast(false))
//	TRACY_ONLY_LOCALHOST=1  listen on 127.0.0.1 only (already the default)
//	TRACY_ONLY_IPV4=1       listen on IPv4 only
//	TRACY_ON_DEMAND=1       record only while a server is connected (WithOnDemand(true))
//
// Tracy's client reads TRACY_PORT and TRACY_NO_EXIT from the environment
// and takes the others as build-time defines; here all are read at Start.
func (c *config) applyEnv(getenv func(string) string) {
	flag := func(name string) bool {
		v := strings.TrimSpace(getenv(name))
		return v != "" && v[0] == '1'
	}
	if v := strings.TrimSpace(getenv("TRACY_PORT")); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n <= 65535 {
			c.port = n
		} else {
			c.badEnvPort = v
		}
	}
	if flag("TRACY_NO_EXIT") {
		c.exitWait, c.exitWaitSet = -1, true
	}
	if flag("TRACY_NO_BROADCAST") {
		c.broadcast = false
	}
	if flag("TRACY_ONLY_LOCALHOST") {
		c.addr = "127.0.0.1"
	}
	if flag("TRACY_ONLY_IPV4") {
		c.ipv4Only = true
	}
	if flag("TRACY_ON_DEMAND") {
		c.onDemand = true
	}
}
