//go:build !notracy

package tracy

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Keys. Tracy identifies strings and source locations by 64-bit keys that the
// server queries once per connection and caches; the C++ client uses
// addresses. We hand out small counters instead: string keys (shared by
// strings, plot names and frame names, which Tracy treats as one key space)
// and source-location keys start at 1 (0 means "none"). A key's text never
// changes, which the server's caching requires.

// A Loc is a source location: a zone's name, function, file, line and colour.
// Create one per call site, once (a package-level variable), and pass it to
// Begin: the location is then sent to a server once per connection, however
// many zones use it.
type Loc struct {
	key      uint64
	nameKey  uint64
	fnKey    uint64
	fileKey  uint64
	line     uint32
	color    uint32
	name     string
	function string
	file     string
}

// Name returns the location's zone name ("" when the function name is used).
func (l *Loc) Name() string { return l.name }

// Function returns the function the location was created in.
func (l *Loc) Function() string { return l.function }

// File returns the source file of the location.
func (l *Loc) File() string { return l.file }

// Line returns the source line of the location.
func (l *Loc) Line() int { return int(l.line) }

// maxLocs keeps us below Tracy's limit of 32767 distinct source locations
// per capture ("too many source locations" failure otherwise).
const (
	maxLocs         = 32000
	maxDynamicNames = 8192  // distinct BeginNamed names with their own location
	maxLiteralKeys  = 65536 // distinct MessageLiteral texts interned
)

var (
	regMu   sync.Mutex
	strs    []string // key-1 -> text
	strKeys sync.Map // text -> key
	locs    []*Loc   // key-1 -> location
	nLit    atomic.Int64

	// overflowLoc takes zones once the location budget is spent; their
	// names are then sent per zone (ZoneName), which costs bytes but not
	// locations.
	overflowLoc = &Loc{name: "", function: "(dynamic)", file: "(dynamic)"}
)

func init() {
	registerLoc(overflowLoc)
}

// strKey interns s and returns its key.
func strKey(s string) uint64 {
	if s == "" {
		return 0
	}
	if k, ok := strKeys.Load(s); ok {
		return k.(uint64)
	}
	regMu.Lock()
	defer regMu.Unlock()
	if k, ok := strKeys.Load(s); ok {
		return k.(uint64)
	}
	strs = append(strs, s)
	k := uint64(len(strs))
	strKeys.Store(s, k)
	return k
}

// strByKey returns the text of a string key.
func strByKey(k uint64) (string, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	if k == 0 || k > uint64(len(strs)) {
		return "", false
	}
	return strs[k-1], true
}

func locByKey(k uint64) *Loc {
	regMu.Lock()
	defer regMu.Unlock()
	if k == 0 || k > uint64(len(locs)) {
		return nil
	}
	return locs[k-1]
}

// registerLoc assigns l its keys. It returns overflowLoc when the budget
// is spent.
func registerLoc(l *Loc) *Loc {
	l.nameKey = strKey(l.name)
	l.fnKey = strKey(l.function)
	l.fileKey = strKey(l.file)
	regMu.Lock()
	defer regMu.Unlock()
	if len(locs) >= maxLocs {
		return overflowLoc
	}
	locs = append(locs, l)
	l.key = uint64(len(locs))
	return l
}

func callerLoc(skip int, name string, color uint32) *Loc {
	pc, file, line, _ := runtime.Caller(skip + 1)
	fn := "?"
	if f := runtime.FuncForPC(pc); f != nil {
		fn = f.Name()
	}
	addSourceFile(file)
	return registerLoc(&Loc{name: name, function: fn, file: file, line: uint32(line), color: color & 0xFFFFFF})
}

// NewLoc returns the source location of its caller with the given zone name
// ("" shows the function name). Call it once per call site, typically as a
// package-level variable; each call uses one of Tracy's 32767 locations.
func NewLoc(name string) *Loc { return callerLoc(1, name, 0) }

// NewColorLoc is NewLoc with a zone colour 0xRRGGBB (0 = default).
func NewColorLoc(name string, color uint32) *Loc { return callerLoc(1, name, color) }

// LocAt builds a location from explicit parts, for zones whose source is not
// Go code (a script interpreter, a query planner). Intern the result yourself:
// each call uses one of Tracy's 32767 locations.
func LocAt(name, function, file string, line int, color uint32) *Loc {
	return registerLoc(&Loc{name: name, function: function, file: file, line: uint32(line), color: color & 0xFFFFFF})
}

// pcLocs caches call-site locations by the caller's PC (BeginHere).
var pcLocs sync.Map // uintptr -> *Loc

func locForPC(pc uintptr) *Loc {
	if l, ok := pcLocs.Load(pc); ok {
		return l.(*Loc)
	}
	frames := runtime.CallersFrames([]uintptr{pc})
	f, _ := frames.Next()
	addSourceFile(f.File)
	l := registerLoc(&Loc{function: f.Function, file: f.File, line: uint32(f.Line)})
	act, _ := pcLocs.LoadOrStore(pc, l)
	return act.(*Loc)
}

// dynamic names: one location per distinct name, up to maxDynamicNames.
var (
	dynLocs sync.Map // name -> *Loc
	nDyn    atomic.Int64
)

func locForName(name string, skip int) (l *Loc, overflow bool) {
	if v, ok := dynLocs.Load(name); ok {
		l = v.(*Loc)
		return l, l == overflowLoc
	}
	if nDyn.Load() >= maxDynamicNames || nDyn.Add(1) > maxDynamicNames {
		// The budget is spent: the zone uses the shared location and
		// carries its name itself. Nothing is stored, so memory stays flat
		// however many distinct names follow.
		return overflowLoc, true
	}
	l = callerLoc(skip+1, name, 0)
	act, loaded := dynLocs.LoadOrStore(name, l)
	if loaded {
		nDyn.Add(-1)
	}
	l = act.(*Loc)
	return l, l == overflowLoc
}

// literalKey interns a literal message text; ok is false once the budget of
// literal texts is spent (the message is then sent as a copy).
func literalKey(s string) (uint64, bool) {
	if k, ok := strKeys.Load(s); ok {
		return k.(uint64), true
	}
	if nLit.Add(1) > maxLiteralKeys {
		nLit.Add(-1)
		return 0, false
	}
	return strKey(s), true
}
