//go:build !notracy

package tracy

import (
	"sync"
	"sync/atomic"
	"time"
)

// A chunk is a piece of one goroutine's single-producer/single-consumer event
// queue. The producing goroutine appends records to buf and publishes the new
// length in pub with a release store; the sender reads buf[:pub]. When a
// record does not fit, the producer links a fresh chunk through next and
// never touches this one again, so the sender may recycle it once drained.
type chunk struct {
	pub  uint64 // published length; written with publish, read atomically
	_    [56]byte
	next atomic.Pointer[chunk]
	buf  []byte
}

const (
	firstChunkSize = 1 << 10 // a goroutine that emits little costs little
	chunkSize      = 64 << 10
)

// gstate is everything the client keeps for one goroutine ("thread" in the
// viewer). Producer-side fields are touched only by that goroutine; sender
// fields only by the sender.
type gstate struct {
	// producer side
	cur *chunk
	w   int    // bytes written into cur (mirror of cur.pub)
	ep  uint32 // session epoch of the last record written
	// waiting is set while the producer waits for queue memory, so the
	// sender does not take the state for an idle one and retire it.
	waiting atomic.Bool

	goid uint64
	tid  uint32
	name atomic.Pointer[string]

	// sender side
	head     *chunk
	r        int
	sep      uint32 // epoch the sender is currently accepting for this state
	depth    int    // open zones the sender has sent in the current session
	fiber    bool   // the sender sent a FiberEnter and no FiberLeave yet, this session
	idle     int    // consecutive retirement checks that found g idle
	retireAt int64  // nanotime when a retired state is finally dropped
}

// chunk memory accounting: producers wait when the total would exceed the
// limit (see doc.go, "Back-pressure").
var (
	chunkBytes atomic.Int64
	chunkLimit atomic.Int64
	// freeChunks recycles full-size chunks between producers and the
	// sender. A channel rather than a sync.Pool: pools are emptied at every
	// GC, and a producer emitting tens of millions of zones would then
	// allocate a fresh 64 KiB chunk every few thousand zones. It can hold
	// a whole default memory limit: every chunk freed while the queues are
	// large is reused instead of becoming garbage, because garbage lets the
	// GC's heap goal (twice the live heap) take the process to twice the
	// documented limit. Chunks the pool kept unused for a whole retirement
	// interval are released (trimChunkPool), so a burst does not hold its
	// memory forever.
	freeChunks = make(chan *chunk, (256<<20)/chunkSize)
	waits      atomic.Uint64 // producer waits for memory, reported in Stats
)

func init() { chunkLimit.Store(256 << 20) }

func newChunk(size int) *chunk {
	for size > firstChunkSize && chunkBytes.Load()+int64(size) > chunkLimit.Load() && chunkBytes.Load() > 0 {
		// The sender is behind (slow or absent server). Wait for it to
		// free memory rather than grow without bound or drop events.
		waits.Add(1)
		time.Sleep(50 * time.Microsecond)
		if rec.Load() == 0 {
			break // stopped or disconnected: the records will be discarded
		}
	}
	chunkBytes.Add(int64(size))
	if size == chunkSize {
		select {
		case c := <-freeChunks:
			c.pub = 0
			c.next.Store(nil)
			return c
		default:
		}
	}
	return &chunk{buf: make([]byte, size)}
}

// keptChunks are pooled whatever the recent use (4 MiB).
const keptChunks = 64

// trimChunkPool releases the pooled chunks no producer took during the last
// interval (sender only).
func (p *profiler) trimChunkPool() {
	for n := p.poolMin - keptChunks; n > 0; n-- {
		select {
		case <-freeChunks:
		default:
			n = 0
		}
	}
	p.poolMin = len(freeChunks)
}

func freeChunk(c *chunk) {
	chunkBytes.Add(-int64(len(c.buf)))
	if len(c.buf) == chunkSize {
		select {
		case freeChunks <- c:
		default:
		}
	}
}

// reserve returns room for n bytes of record at s.w in s.cur, linking a new
// chunk when needed. The caller fills buf[w:w+n] and calls commit(n).
func (s *gstate) reserve(n int) []byte {
	if s.w+n <= len(s.cur.buf) {
		return s.cur.buf
	}
	return s.grow(n)
}

//go:noinline
func (s *gstate) grow(n int) []byte {
	// Chunks double from 1 KiB to 64 KiB: a goroutine that emits a little
	// keeps a little (its last chunk stays until the state is retired).
	size := min(2*len(s.cur.buf), chunkSize)
	if n > size {
		size = n
	}
	s.waiting.Store(true)
	c := newChunk(size)
	s.waiting.Store(false)
	old := s.cur
	s.cur = c
	s.w = 0
	old.next.Store(c) // after old.pub holds its final length
	return c.buf
}

func (s *gstate) commit(n int) {
	s.w += n
	publish(&s.cur.pub, uint64(s.w))
}

// The goroutine table maps goroutine ids to states. Lookups are lock-free
// (open addressing over an immutable-size array of atomic slots); inserts
// take a mutex and happen once per goroutine; the sender rebuilds the table
// to drop retired states.
type gslot struct {
	key atomic.Uint64
	val atomic.Pointer[gstate]
}

type gtable struct {
	slots []gslot
	mask  uint64
	n     int // occupied slots (writers only, under gmu)
}

var (
	gtab    atomic.Pointer[gtable]
	gmu     sync.Mutex
	gstates atomic.Pointer[[]*gstate] // every live state, for the sender
)

func init() {
	gtab.Store(newGtable(1024))
	gstates.Store(new([]*gstate))
}

func newGtable(n int) *gtable {
	return &gtable{slots: make([]gslot, n), mask: uint64(n - 1)}
}

func ghash(id uint64) uint64 { return (id * 0x9E3779B97F4A7C15) >> 20 }

// cur returns the running goroutine's state, creating it on first use.
func curState() *gstate {
	// goid() by hand: with its slow path it is too big to inline, and a
	// call here would be on every Begin.
	var id uint64
	if goidOff != 0 {
		id = loadGoid(goidOff)
	} else {
		id = slowGoid()
	}
	t := gtab.Load()
	for i := ghash(id) & t.mask; ; i = (i + 1) & t.mask {
		k := t.slots[i].key.Load()
		if k == id {
			return t.slots[i].val.Load()
		}
		if k == 0 {
			break
		}
	}
	return newState(id)
}

//go:noinline
func newState(id uint64) *gstate {
	c := newChunk(firstChunkSize)
	gmu.Lock()
	defer gmu.Unlock()
	t := gtab.Load()
	if s := t.find(id); s != nil {
		freeChunk(c)
		return s
	}
	s := &gstate{cur: c, head: c, goid: id, tid: uint32(id)}
	if id == 0 {
		s.tid = 1
	}
	if nm, ok := threadNames.Load(id); ok {
		s.name.Store(nm.(*string))
	}
	if (t.n+1)*2 > len(t.slots) {
		t = t.rebuild(len(t.slots)*2, nil)
		gtab.Store(t)
	}
	t.insert(id, s)
	old := *gstates.Load()
	list := make([]*gstate, len(old), len(old)+1)
	copy(list, old)
	list = append(list, s)
	gstates.Store(&list)
	return s
}

func (t *gtable) find(id uint64) *gstate {
	for i := ghash(id) & t.mask; ; i = (i + 1) & t.mask {
		k := t.slots[i].key.Load()
		if k == id {
			return t.slots[i].val.Load()
		}
		if k == 0 {
			return nil
		}
	}
}

// insert stores the value before the key, so a reader that sees the key sees
// the value.
func (t *gtable) insert(id uint64, s *gstate) {
	for i := ghash(id) & t.mask; ; i = (i + 1) & t.mask {
		if t.slots[i].key.Load() == 0 {
			t.slots[i].val.Store(s)
			t.slots[i].key.Store(id)
			t.n++
			return
		}
	}
}

// rebuild returns a new table of size n holding every entry except those in
// drop.
func (t *gtable) rebuild(n int, drop map[*gstate]bool) *gtable {
	for n < 1024 {
		n *= 2
	}
	nt := newGtable(n)
	for i := range t.slots {
		if k := t.slots[i].key.Load(); k != 0 {
			s := t.slots[i].val.Load()
			if !drop[s] {
				nt.insert(k, s)
			}
		}
	}
	return nt
}

// Goroutines come and go; their states must not pile up. Every second the
// sender looks for states with nothing queued and no open zone; one found
// idle for retireChecks checks in a row is taken out of the table (a
// goroutine that comes back gets a fresh state with the same thread id and
// name). The sender keeps draining a retired state for retireGrace more,
// for the rare goroutine that looked its state up just before, then drops
// it and its last chunk.
const retireChecks = 5

// The check interval and the grace period (variables for tests).
var (
	retireInterval       = time.Second
	retireGrace    int64 = 10e9 // ns
)

// retired states still drained (sender only).
var retiredStates []*gstate

func (p *profiler) retireIdle() {
	nowNs := nanotime()
	var drop map[*gstate]bool
	for _, g := range *gstates.Load() {
		c := g.head
		if c.next.Load() != nil || uint64(g.r) != atomic.LoadUint64(&c.pub) || g.depth != 0 || g.waiting.Load() {
			g.idle = 0
			continue
		}
		g.idle++
		if g.idle >= retireChecks {
			if drop == nil {
				drop = map[*gstate]bool{}
			}
			drop[g] = true
			g.retireAt = nowNs + retireGrace
		}
	}
	keep := retiredStates[:0]
	for _, g := range retiredStates {
		c := g.head
		busy := c.next.Load() != nil || uint64(g.r) != atomic.LoadUint64(&c.pub) || g.waiting.Load()
		if busy || nowNs < g.retireAt {
			keep = append(keep, g)
			continue
		}
		chunkBytes.Add(-int64(len(c.buf))) // the GC takes the rest
	}
	clear(retiredStates[len(keep):])
	retiredStates = keep
	if drop != nil {
		for g := range drop {
			retiredStates = append(retiredStates, g)
		}
		retire(drop)
	}
}

// retire removes states from the table and the sender's list.
func retire(drop map[*gstate]bool) {
	gmu.Lock()
	defer gmu.Unlock()
	t := gtab.Load()
	size := len(t.slots)
	for size > 1024 && (t.n-len(drop))*8 < size {
		size /= 2
	}
	gtab.Store(t.rebuild(size, drop))
	old := *gstates.Load()
	list := make([]*gstate, 0, len(old))
	for _, s := range old {
		if !drop[s] {
			list = append(list, s)
		}
	}
	gstates.Store(&list)
}

// threadNames keeps names set with SetThreadName across state retirement.
var threadNames sync.Map // goid -> *string
