package symbols

import (
	"context"
	"strings"
	"sync"
	"unsafe"

	"github.com/ianlancetaylor/demangle"

	"github.com/gotracy/gotracy/symbols/internal/itanium"
	"github.com/gotracy/gotracy/symbols/internal/rustdemangle"
)

// Resolver turns (image, image-relative address) pairs into frames. It
// caches every opened image (keyed by recorded path and id), so a capture
// that sends a million call stacks opens and indexes each binary once.
// All methods are safe for concurrent use.
type Resolver struct {
	o   options
	loc locator
	sem chan struct{} // bounds concurrently resolving goroutines

	mu     sync.Mutex
	objs   map[imageKey]*objEntry
	closed bool

	demangled [demangleShards]demangleShard
}

// The demangling cache is sharded maps keyed by the name's address: a
// sync.Map's interface keys cost more than demangling a short name.
const demangleShards = 16

type demangleShard struct {
	mu sync.RWMutex
	m  map[nameKey]string
	_  [64 - 24 - 8]byte // keep shards on separate cache lines
}

type imageKey struct {
	path string
	id   string
}

type objEntry struct {
	once sync.Once
	obj  *object
	err  error
}

// New returns a Resolver. Options are applied in order.
func New(opts ...Option) (*Resolver, error) {
	r := &Resolver{o: defaultOptions(), objs: map[imageKey]*objEntry{}}
	for _, opt := range opts {
		if err := opt(&r.o); err != nil {
			return nil, err
		}
	}
	r.loc = locator{o: &r.o}
	r.sem = make(chan struct{}, r.o.workers)
	return r, nil
}

// Close releases all open files. Results already returned stay valid;
// later calls report ErrClosed.
func (r *Resolver) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for _, e := range r.objs {
		if e.obj != nil {
			e.obj.close()
		}
	}
	r.objs = map[imageKey]*objEntry{}
	return nil
}

func (r *Resolver) object(img Image) (*object, error) {
	k := imageKey{img.Path, img.ID.String()}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	e, ok := r.objs[k]
	if !ok {
		e = &objEntry{}
		r.objs[k] = e
	}
	r.mu.Unlock()
	e.once.Do(func() { e.obj, e.err = r.loc.load(img) })
	return e.obj, e.err
}

// Module describes an image as found: which file, which debug file, its id.
type Module struct {
	Path      string // the file used for the image
	DebugPath string // the file DWARF came from, "" if none
	ID        ID
	// Base is the file address of image-relative address 0 (0 for ELF,
	// the image base for PE, the __TEXT address for Mach-O); tools that take
	// file addresses, like addr2line, subtract it.
	Base uint64
	// ServerBase is the file address the symbol server's module offsets
	// count from (where file offset 0 is mapped).
	ServerBase uint64
	// Err explains why debug information is missing when only a symbol
	// table is used (e.g. a split debug file rejected for its id).
	Err error
}

// Module opens (or fetches from the cache) the image and reports what was
// found, without resolving anything.
func (r *Resolver) Module(img Image) (Module, error) {
	o, err := r.object(img)
	if err != nil {
		return Module{}, err
	}
	return Module{Path: o.path, DebugPath: o.debugPath, ID: o.id, Base: o.relBase, ServerBase: o.serverBase, Err: o.debugErr}, nil
}

// Lookup resolves one address on the calling goroutine.
func (r *Resolver) Lookup(img Image, addr uint64) Result {
	return r.lookup(img, addr, nil)
}

func (r *Resolver) lookup(img Image, addr uint64, buf []Frame) Result {
	o, err := r.object(img)
	if err != nil {
		return Result{Err: err}
	}
	if buf == nil {
		buf = make([]Frame, 0, 4)
	}
	frames, err := o.lookup(addr+o.relBase, r.o.inlines, buf[:0])
	for i := range frames {
		f := &frames[i]
		if f.HasFuncAddr {
			f.FuncAddr -= o.relBase
		}
		if r.o.demangle {
			f.Function = r.demangle(f.Function)
		}
	}
	return Result{Frames: frames, Err: err}
}

// nameKey identifies a name by its bytes' address: names come from the
// DWARF index and symbol tables, which share one string per function, so
// hashing 16 bytes replaces hashing a 200-byte C++ name on every frame.
type nameKey struct {
	p *byte
	n int
}

func (r *Resolver) demangle(s string) string {
	if len(s) <= 2 || (s[0] != '_' && s[0] != '.') {
		return s
	}
	k := nameKey{unsafe.StringData(s), len(s)}
	sh := &r.demangled[(uintptr(unsafe.Pointer(k.p))>>4^uintptr(k.n))%demangleShards]
	sh.mu.RLock()
	v, ok := sh.m[k]
	sh.mu.RUnlock()
	if ok {
		return v
	}
	d := demangleName(s)
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = map[nameKey]string{}
	}
	sh.m[k] = d
	sh.mu.Unlock()
	return d
}

// demangleName prints a symbol as binutils addr2line -C does, in
// binutils' order: Rust first (v0 "_R" names, and legacy "_ZN" names with
// their hash tail, which are valid C++ names too), then C++. Both fast
// paths print exactly what their reference prints; the library takes the
// C++ names the fast path leaves (see internal/itanium).
func demangleName(s string) string {
	if strings.HasPrefix(s, "_R") || strings.HasPrefix(s, "_ZN") {
		if b, ok := rustdemangle.Append(nil, s); ok {
			return string(b)
		}
		if s[1] == 'R' {
			return s // binutils prints a malformed v0 name as it is
		}
	}
	// The fast path prints what the lines below print, for almost every
	// C++ name a compiler emits, without building an AST.
	if d, ok := itanium.String(s); ok {
		return d
	}
	d := demangle.Filter(s)
	// The demangler prints an empty trailing template pack as "<a, >";
	// binutils and LLVM print "<a>". No valid name contains ", >".
	return strings.ReplaceAll(d, ", >", ">")
}

// chunk is the number of addresses a worker takes at a time: large enough
// to amortise scheduling, small enough to spread a batch over workers.
const chunk = 256

// Resolve resolves a batch on up to WithWorkers goroutines and returns the
// results in request order. It returns early with ctx's error in the
// unresolved results when ctx is cancelled.
func (r *Resolver) Resolve(ctx context.Context, reqs []Request) []Result {
	res := make([]Result, len(reqs))
	if len(reqs) == 0 {
		return res
	}
	n := (len(reqs) + chunk - 1) / chunk
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	workers := min(n, cap(r.sem))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case r.sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-r.sem }()
			for c := range next {
				lo, hi := c*chunk, min((c+1)*chunk, len(reqs))
				for i := lo; i < hi; i++ {
					if ctx.Err() != nil {
						res[i].Err = ctx.Err()
						continue
					}
					res[i] = r.lookup(reqs[i].Image, reqs[i].Addr, nil)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		for i := range res {
			if res[i].Frames == nil && res[i].Err == nil {
				res[i].Err = err
			}
		}
	}
	return res
}

// ResolveAsync resolves a batch in the background and calls done with the
// results (in request order) on a goroutine of its own; the caller, e.g. a
// capture loop, never waits for debug information to be parsed.
func (r *Resolver) ResolveAsync(ctx context.Context, reqs []Request, done func([]Result)) {
	go func() { done(r.Resolve(ctx, reqs)) }()
}
