//go:build !notracy

package tracy

import (
	"sync"
)

// Serial events (locks, memory, frame marks, frame images, configuration)
// carry their thread explicitly and must reach the server in time order per
// lock, per memory pool and per frame set, across goroutines. Like Tracy's
// own client they go through one mutex-protected queue, and their time is
// read inside the mutex, so queue order is time order.
type serialKind uint8

const (
	sLockAnnounce serialKind = iota + 1
	sLockName
	sLockTerminate
	sLockWait
	sLockObtain
	sLockRelease
	sLockSharedWait
	sLockSharedObtain
	sLockSharedRelease
	sMemAlloc
	sMemFree
	sMemDiscard
	sFrameMark  // ptr = name key, id = 0 continuous, 1 start, 2 end
	sFrameImage // id = frame, size = w<<16|h, key = flip, data = DXT1
	sPlotConfig // ptr = name key, size = type|step<<8|fill<<16, id = color
	sAppInfo    // str
	sParamSetup // id = idx, ptr = name key, size = type, key = value
)

// deferred reports the kinds pushDeferred queues: replayed to every
// session, so they are not events a session recorded.
func (k serialKind) deferred() bool {
	switch k {
	case sLockAnnounce, sLockName, sPlotConfig, sAppInfo, sParamSetup:
		return true
	}
	return false
}

type serialEv struct {
	kind serialKind
	t    int64
	tid  uint32
	id   uint32
	ptr  uint64
	size uint64
	key  uint64 // memory pool name key (0 = default pool)
	str  string
	data []byte
	pcs  []uintptr
}

var serial struct {
	mu       sync.Mutex
	q        []serialEv
	spare    []serialEv
	deferred []serialEv // replayed at the start of every session (on-demand)
	dropped  uint64
}

// maxSerial bounds the serial queue; past it producers wait for the sender
// (the same policy as goroutine queues, see doc.go).
const maxSerial = 1 << 20

// pushSerial appends ev stamped with the current time, if recording.
func pushSerial(ev serialEv) {
	serial.mu.Lock()
	for len(serial.q) >= maxSerial && rec.Load() != 0 {
		serial.mu.Unlock()
		waits.Add(1)
		sleepNs(50e3)
		serial.mu.Lock()
	}
	if rec.Load() == 0 {
		serial.mu.Unlock()
		return
	}
	ev.t = now()
	serial.q = append(serial.q, ev)
	serial.mu.Unlock()
}

// pushDeferred records a context-free item every session must see (lock
// announcements and names, plot configuration, application info) and queues
// it for the current session, if any.
func pushDeferred(ev serialEv) {
	serial.mu.Lock()
	ev.t = now()
	serial.deferred = append(serial.deferred, ev)
	if rec.Load() != 0 {
		serial.q = append(serial.q, ev)
	}
	serial.mu.Unlock()
}

// takeSerial swaps out the queued serial events (sender only).
// The two buffers alternate: producers append to one while the sender
// encodes the other, which it hands back when done.
func takeSerial() []serialEv {
	serial.mu.Lock()
	q := serial.q
	serial.q = serial.spare[:0]
	serial.spare = nil
	serial.mu.Unlock()
	return q
}

func giveBackSerial(q []serialEv) {
	clear(q) // drop references to strings and images
	serial.mu.Lock()
	serial.spare = q[:0]
	serial.mu.Unlock()
}
