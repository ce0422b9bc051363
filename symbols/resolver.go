package symbols

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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

	mu         sync.Mutex
	objs       map[imageKey]*objEntry
	closed     bool
	closedFlag atomic.Bool // closed, for workers that skip the lock
	memos      []*demMemo  // idle workers' demangling memos

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
	r.closedFlag.Store(true)
	r.memos = nil
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
	return r.lookupIn(o, err, addr, 0, buf, nil, nil)
}

// objMemo is a worker's memory of the last image it looked up: a batch
// mostly names one image, and finding it again in the Resolver's map
// (a lock shared by the workers, a hash of the path) cost more than the
// index lookup itself.
type objMemo struct {
	img Image
	o   *object
	err error
	ok  bool
}

func (r *Resolver) memoObject(m *objMemo, img Image) (*object, error) {
	if m.ok && img.Path == m.img.Path && img.ID.Kind == m.img.ID.Kind &&
		bytes.Equal(img.ID.Bytes, m.img.ID.Bytes) && !r.closedFlag.Load() {
		return m.o, m.err
	}
	o, err := r.object(img)
	*m = objMemo{img, o, err, true}
	return o, err
}

// demMemo is a Resolve worker's memo of demangled names, direct-mapped by
// the name's bytes' address as the Resolver's cache is (see nameKey): a
// batch meets each function name many times, and the shared cache's
// lock and hash cost more per frame than the rest of the lookup. It
// holds only what r.demangle answered. Names stay where they are for the
// Resolver's life (its images are never evicted), so a Resolver keeps
// its workers' memos from one batch to the next.
type demMemo [demMemoSize]struct {
	p *byte
	n int
	v string
}

const (
	demMemoBits   = 13 // 256 KB a worker
	demMemoSize   = 1 << demMemoBits
	demMemoProbes = 4
)

func (r *Resolver) getMemo() *demMemo {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.memos); n > 0 {
		m := r.memos[n-1]
		r.memos = r.memos[:n-1]
		return m
	}
	return new(demMemo)
}

func (r *Resolver) putMemo(m *demMemo) {
	r.mu.Lock()
	if !r.closed {
		r.memos = append(r.memos, m)
	}
	r.mu.Unlock()
}

func (r *Resolver) demangleMemo(m *demMemo, s string) string {
	if m == nil || len(s) < 3 || s[0] != '_' {
		// Not an Itanium or Rust symbol: r.demangle answers at once.
		return r.demangle(s)
	}
	p := unsafe.StringData(s)
	h := (uint64(uintptr(unsafe.Pointer(p))) ^ uint64(len(s))<<40) * 0x9e3779b97f4a7c15
	home := h >> (64 - demMemoBits)
	// Open addressing over a few neighbouring slots: a large C++ batch
	// names a few thousand functions, which a direct-mapped table of
	// this size would keep evicting from each other.
	for k := uint64(0); k < demMemoProbes; k++ {
		e := &m[(home+k)&(demMemoSize-1)]
		if e.p == p && e.n == len(s) {
			return e.v
		}
		if e.p == nil {
			v := r.demangle(s)
			e.p, e.n, e.v = p, len(s), v
			return v
		}
	}
	v := r.demangle(s)
	m[home] = struct {
		p *byte
		n int
		v string
	}{p, len(s), v}
	return v
}

func (r *Resolver) lookupIn(o *object, err error, addr uint64, unit int32, buf []Frame, dm *demMemo, ms *[]a2lMeta) Result {
	if err != nil {
		return Result{Err: err}
	}
	if buf == nil {
		buf = make([]Frame, 0, 4)
	}
	var meta []a2lMeta
	var frames []Frame
	if r.o.a2l && o.a2lSyms != nil {
		if ms != nil {
			// Per-worker slab, as for frames: one allocation per few
			// hundred answers instead of a growing slice per answer.
			if cap(*ms)-len(*ms) < slabReserve {
				*ms = make([]a2lMeta, 0, slabFrames)
			}
			meta = (*ms)[len(*ms):len(*ms)]
		}
		frames, err = o.lookupA2L(addr+o.relBase, unit, r.o.inlines, buf[:0], &meta)
		if ms != nil && len(meta) > 0 && len(meta) <= cap(*ms)-len(*ms) && &meta[0] == &(*ms)[len(*ms) : len(*ms)+1][0] {
			*ms = (*ms)[:len(*ms)+len(meta)]
		}
		meta = meta[:len(meta):len(meta)]
		for i := range meta {
			if meta[i].hasSym && r.o.demangle {
				meta[i].sym = r.demangleMemo(dm, meta[i].sym)
			}
		}
	} else {
		frames, err = o.lookup(addr+o.relBase, r.o.inlines, buf[:0])
	}
	for i := range frames {
		f := &frames[i]
		if f.HasFuncAddr {
			f.FuncAddr -= o.relBase
		}
		if r.o.demangle {
			f.Function = r.demangleMemo(dm, f.Function)
		}
	}
	return Result{Frames: frames, Err: err, a2l: meta}
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
	// libiberty's _GLOBAL_[._$][ID]_ names; the library keeps the
	// "_I_" in a key that is not a mangled name.
	if len(s) > 11 && strings.HasPrefix(s, "_GLOBAL_") && strings.IndexByte("._$", s[8]) >= 0 &&
		(s[9] == 'I' || s[9] == 'D') && s[10] == '_' && !strings.HasPrefix(s[11:], "_Z") {
		if s[9] == 'I' {
			return "global constructors keyed to " + s[11:]
		}
		return "global destructors keyed to " + s[11:]
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

// A worker appends the frames of its results to one slab of slabFrames
// frames, starting a new slab when fewer than slabReserve are left (an
// answer that outgrows the rest gets its own array): one allocation per
// few hundred addresses instead of one or two per address. A Result keeps
// its slab alive, 45 KB at most.
const (
	slabFrames  = 512
	slabReserve = 16
)

// Resolve resolves a batch on up to WithWorkers goroutines and returns the
// results in request order. It returns early with ctx's error in the
// unresolved results when ctx is cancelled.
func (r *Resolver) Resolve(ctx context.Context, reqs []Request) []Result {
	res := make([]Result, len(reqs))
	if len(reqs) == 0 {
		return res
	}
	n := (len(reqs) + chunk - 1) / chunk
	// A large batch is looked up in address order: consecutive lookups
	// then walk neighbouring line rows and function ranges, which stay in
	// cache, where random addresses miss on nearly every step of every
	// binary search. Results still land in request order.
	var order []int32
	if len(reqs) >= 2*chunk {
		type ka struct {
			addr uint64
			i    int32
		}
		keys := make([]ka, len(reqs))
		for i := range reqs {
			keys[i] = ka{reqs[i].Addr, int32(i)}
		}
		slices.SortFunc(keys, func(a, b ka) int { return cmp.Compare(a.addr, b.addr) })
		order = make([]int32, len(reqs))
		for i, k := range keys {
			order[i] = k.i
		}
	}
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
			var slab []Frame
			var mslab []a2lMeta
			var memo objMemo
			var dm *demMemo
			if r.o.demangle {
				dm = r.getMemo()
				defer r.putMemo(dm)
			}
			for c := range next {
				lo, hi := c*chunk, min((c+1)*chunk, len(reqs))
				for k := lo; k < hi; k++ {
					i := k
					if order != nil {
						i = int(order[k])
					}
					if ctx.Err() != nil {
						res[i].Err = ctx.Err()
						continue
					}
					if cap(slab)-len(slab) < slabReserve {
						slab = make([]Frame, 0, slabFrames)
					}
					tail := slab[len(slab):]
					o, err := r.memoObject(&memo, reqs[i].Image)
					res[i] = r.lookupIn(o, err, reqs[i].Addr, reqs[i].a2lUnit, tail, dm, &mslab)
					// Frames are capped so that appending to one Result
					// cannot overwrite the next.
					if f := res[i].Frames; len(f) <= cap(tail) && len(f) > 0 && &f[0] == &tail[:1][0] {
						slab = slab[:len(slab)+len(f)] // answered in place
						res[i].Frames = f[:len(f):len(f)]
					} else if f != nil {
						res[i].Frames = f[:len(f):len(f)]
					}
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
