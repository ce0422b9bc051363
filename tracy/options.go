package tracy

import "time"

// An Option configures Start.
type Option func(*config)

type config struct {
	addr            string
	port            int // -1: default 8086..8105 fallback; 0: any free port
	programName     string
	onDemand        bool
	broadcast       bool
	shutdownTimeout time.Duration
	memLimit        int64
	backlogLimit    int
	hostInfo        string
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
func WithPort(port int) Option { return func(c *config) { c.port = port } }

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

// WithShutdownTimeout bounds how long Stop keeps answering a connected
// server's queries after sending Terminate (default 10 s).
func WithShutdownTimeout(d time.Duration) Option { return func(c *config) { c.shutdownTimeout = d } }

// WithMemoryLimit bounds the memory of the goroutine event queues (default
// 256 MiB). When the sender falls behind this much, producers wait for it.
func WithMemoryLimit(bytes int64) Option { return func(c *config) { c.memLimit = bytes } }

// WithBacklogLimit bounds the compressed data kept for the first server
// when not on demand (default 256 MiB); past it, producers wait.
func WithBacklogLimit(bytes int) Option { return func(c *config) { c.backlogLimit = bytes } }

// WithHostInfo replaces the host description sent in the welcome.
func WithHostInfo(s string) Option { return func(c *config) { c.hostInfo = s } }
