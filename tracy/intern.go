//go:build !notracy

package tracy

import (
	"runtime"
	"strings"
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
//
// A Loc made by a package initialiser (var loc = tracy.NewLoc("update"), or
// in an init function) would otherwise name every zone "main.init" at the
// var's line, so its function, file and line are those of the call site
// of its first Begin (or BeginCallstack), taken once. A Loc used at
// several sites keeps the first site that ran: Tracy identifies a location
// by its key, and a key's text must never change. Give each site its own
// Loc when the sites matter.
type Loc struct {
	key uint64
	// unsited: made by a package initialiser; the first Begin sets the
	// site (siteLoc). Read on every Begin, next to key.
	unsited  atomic.Bool
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

// Function returns the location's function: where it was created, or, for
// a Loc made by a package initialiser, where its first Begin ran.
func (l *Loc) Function() string {
	regMu.Lock()
	defer regMu.Unlock()
	return l.function
}

// File returns the source file of the location (see Function).
func (l *Loc) File() string {
	regMu.Lock()
	defer regMu.Unlock()
	return l.file
}

// Line returns the source line of the location (see Function).
func (l *Loc) Line() int {
	regMu.Lock()
	defer regMu.Unlock()
	return int(l.line)
}

// locInfo is what a source-location answer needs, copied under regMu.
type locInfo struct {
	nameKey, fnKey, fileKey uint64
	line, color             uint32
}

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

// locByKey returns the fields of location k (the overflow location's for
// an unknown key).
func locByKey(k uint64) locInfo {
	regMu.Lock()
	defer regMu.Unlock()
	l := overflowLoc
	if k != 0 && k <= uint64(len(locs)) {
		l = locs[k-1]
	}
	return locInfo{l.nameKey, l.fnKey, l.fileKey, l.line, l.color}
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

// callerLoc makes the location of its caller's caller (skip more frames
// up). siteAtBegin: when that caller is a package initialiser, the first
// Begin decides the site instead.
func callerLoc(skip int, name string, color uint32, siteAtBegin bool) *Loc {
	pc, file, line, _ := runtime.Caller(skip + 1)
	fn := "?"
	if f := runtime.FuncForPC(pc); f != nil {
		fn = f.Name()
	}
	addSourceFile(file)
	l := &Loc{name: name, function: fn, file: file, line: uint32(line), color: color & 0xFFFFFF}
	if siteAtBegin && isInitFunc(fn) {
		l.unsited.Store(true)
	}
	return registerLoc(l)
}

// isInitFunc reports whether fn (a runtime function name) is a package
// initialiser: pkg.init (variable initialisers), pkg.init.0 (init
// functions) or a closure within them.
func isInitFunc(fn string) bool {
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		fn = fn[i+1:]
	}
	i := strings.IndexByte(fn, '.')
	if i < 0 {
		return false
	}
	rest := fn[i+1:]
	return rest == "init" || strings.HasPrefix(rest, "init.")
}

// siteLoc gives an unsited Loc the site of the Begin that is running, once
// (the first Begin to get here wins).
//
//go:noinline
func siteLoc(l *Loc) {
	var pcs [8]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	var f runtime.Frame
	for more := true; more; {
		f, more = frames.Next()
		switch strings.TrimPrefix(f.Function, "github.com/gotracy/gotracy/tracy.") {
		case "begin", "Begin", "BeginCallstack":
			continue
		}
		break
	}
	if f.Function == "" {
		l.unsited.Store(false) // no caller to take: keep where it was made
		return
	}
	addSourceFile(f.File)
	fnKey, fileKey := strKey(f.Function), strKey(f.File)
	regMu.Lock()
	if l.unsited.Load() {
		l.function, l.file, l.line = f.Function, f.File, uint32(f.Line)
		l.fnKey, l.fileKey = fnKey, fileKey
		l.unsited.Store(false)
	}
	regMu.Unlock()
}

// NewLoc returns the source location of its caller with the given zone name
// ("" shows the function name). Call it once per call site, typically as a
// package-level variable; each call uses one of Tracy's 32767 locations.
// Made at package level, the Loc takes its function, file and line from
// its first Begin (see Loc).
func NewLoc(name string) *Loc { return callerLoc(1, name, 0, true) }

// NewColorLoc is NewLoc with a zone colour 0xRRGGBB (0 = default).
func NewColorLoc(name string, color uint32) *Loc { return callerLoc(1, name, color, true) }

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
	l = callerLoc(skip+1, name, 0, false)
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
