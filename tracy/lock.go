//go:build !notracy

package tracy

import (
	"sync"
	"sync/atomic"
)

// lockCtx is the profiling side of a lock: its id, announced once (and
// replayed to every later server), and the session its current exclusive
// holder's obtain was sent in, so a release is sent only after its obtain.
type lockCtx struct {
	id     atomic.Uint32
	name   string
	loc    *Loc
	heldEp uint32 // written only while the lock is held exclusively
}

var (
	lockMu   sync.Mutex
	nextLock uint32
)

func (l *lockCtx) announce(shared bool, skip int) uint32 {
	if id := l.id.Load(); id != 0 {
		return id
	}
	lockMu.Lock()
	defer lockMu.Unlock()
	if id := l.id.Load(); id != 0 {
		return id
	}
	if l.loc == nil {
		l.loc = callerLoc(skip+1, l.name, 0, false)
	}
	nextLock++
	id := nextLock
	var typ uint64
	if shared {
		typ = 1
	}
	pushDeferred(serialEv{kind: sLockAnnounce, id: id, ptr: l.loc.key, size: typ})
	if l.name != "" {
		pushDeferred(serialEv{kind: sLockName, id: id, str: clipText(l.name)})
	}
	l.id.Store(id)
	return id
}

// Mutex is a sync.Mutex that reports to the viewer when each goroutine
// waits for it, obtains it and releases it, so contention shows on the
// lock's timeline. The zero value works (it is announced at its first Lock,
// located there); NewMutex names it and locates it where it is created.
type Mutex struct {
	mu sync.Mutex
	l  lockCtx
}

// NewMutex returns a profiled mutex called name.
func NewMutex(name string) *Mutex {
	m := &Mutex{}
	m.l.name = name
	m.l.loc = callerLoc(1, name, 0, false)
	return m
}

// Lock locks m, reporting the wait and the obtain.
func (m *Mutex) Lock() {
	ep := rec.Load()
	if ep == 0 {
		m.mu.Lock()
		m.l.heldEp = 0
		return
	}
	id := m.l.announce(false, 1)
	tid := uint32(goid())
	pushSerial(serialEv{kind: sLockWait, tid: tid, id: id})
	m.mu.Lock()
	pushSerial(serialEv{kind: sLockObtain, tid: tid, id: id})
	m.l.heldEp = ep
}

// TryLock tries to lock m; a success is reported as an obtain without wait.
func (m *Mutex) TryLock() bool {
	if !m.mu.TryLock() {
		return false
	}
	m.l.heldEp = 0
	if ep := rec.Load(); ep != 0 {
		id := m.l.announce(false, 1)
		pushSerial(serialEv{kind: sLockObtain, tid: uint32(goid()), id: id})
		m.l.heldEp = ep
	}
	return true
}

// Unlock reports the release and unlocks m.
func (m *Mutex) Unlock() {
	if ep := m.l.heldEp; ep != 0 && rec.Load() == ep {
		pushSerial(serialEv{kind: sLockRelease, id: m.l.id.Load()})
	}
	m.l.heldEp = 0
	m.mu.Unlock()
}

// RWMutex is a sync.RWMutex that reports exclusive and shared waits,
// obtains and releases; see Mutex.
type RWMutex struct {
	mu sync.RWMutex
	l  lockCtx
}

// NewRWMutex returns a profiled reader/writer mutex called name.
func NewRWMutex(name string) *RWMutex {
	m := &RWMutex{}
	m.l.name = name
	m.l.loc = callerLoc(1, name, 0, false)
	return m
}

// Lock locks m for writing.
func (m *RWMutex) Lock() {
	ep := rec.Load()
	if ep == 0 {
		m.mu.Lock()
		m.l.heldEp = 0
		return
	}
	id := m.l.announce(true, 1)
	tid := uint32(goid())
	pushSerial(serialEv{kind: sLockWait, tid: tid, id: id})
	m.mu.Lock()
	pushSerial(serialEv{kind: sLockObtain, tid: tid, id: id})
	m.l.heldEp = ep
}

// Unlock unlocks m for writing.
func (m *RWMutex) Unlock() {
	if ep := m.l.heldEp; ep != 0 && rec.Load() == ep {
		pushSerial(serialEv{kind: sLockRelease, id: m.l.id.Load()})
	}
	m.l.heldEp = 0
	m.mu.Unlock()
}

// RLock locks m for reading.
func (m *RWMutex) RLock() {
	if rec.Load() == 0 {
		m.mu.RLock()
		return
	}
	id := m.l.announce(true, 1)
	tid := uint32(goid())
	pushSerial(serialEv{kind: sLockSharedWait, tid: tid, id: id})
	m.mu.RLock()
	pushSerial(serialEv{kind: sLockSharedObtain, tid: tid, id: id})
}

// RUnlock unlocks a read lock. (A shared release is reported while
// recording; one whose obtain fell in an earlier on-demand session is
// reported too, which the viewer tolerates.)
func (m *RWMutex) RUnlock() {
	if rec.Load() != 0 {
		if id := m.l.id.Load(); id != 0 {
			pushSerial(serialEv{kind: sLockSharedRelease, tid: uint32(goid()), id: id})
		}
	}
	m.mu.RUnlock()
}
