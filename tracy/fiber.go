//go:build !notracy

package tracy

import "encoding/binary"

// FiberEnter makes the running goroutine work for the fiber called name
// until FiberLeave: its zones and messages from now on go to the fiber's
// own lane in the viewer instead of the goroutine's (Tracy 0.14's fibers).
// Work that hops between goroutines (a request handled in stages, a job
// picked up by whichever worker is free) then shows as one lane: each
// goroutine that takes the work up calls FiberEnter with the same name.
//
// A zone begun inside a fiber must end before FiberLeave, on the same
// goroutine, as every zone does. Entering another fiber without leaving
// switches fibers.
func FiberEnter(name string) {
	ep := rec.Load()
	if ep == 0 || name == "" {
		return
	}
	s := state(ep)
	b := s.reserve(17)
	w := s.w
	b[w] = rFiberEnter
	binary.LittleEndian.PutUint64(b[w+9:], strKey(name))
	binary.LittleEndian.PutUint64(b[w+1:], uint64(now()))
	s.commit(17)
}

// FiberLeave ends the running goroutine's work for the fiber it entered;
// its zones are its own again. Without a FiberEnter it does nothing.
func FiberLeave() {
	ep := rec.Load()
	if ep == 0 {
		return
	}
	s := state(ep)
	b := s.reserve(9)
	w := s.w
	b[w] = rFiberLeave
	binary.LittleEndian.PutUint64(b[w+1:], uint64(now()))
	s.commit(9)
}
