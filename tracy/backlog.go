//go:build !notracy

package tracy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// backlogBuf holds the compressed stream prepared for the first server, in
// blocks that are never copied or regrown. A bytes.Buffer doubles (and
// copies) as it grows, so a backlog near its limit briefly held three times
// its size, and kept twice its size as capacity: with the queues that took
// a program nobody profiled past a gigabyte.
type backlogBuf struct {
	blocks [][]byte
	n      int
}

const (
	backlogFirstBlock = 64 << 10 // a short program's backlog stays small
	backlogMaxBlock   = 1 << 20
)

func (b *backlogBuf) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(b.blocks) == 0 || len(b.blocks[len(b.blocks)-1]) == cap(b.blocks[len(b.blocks)-1]) {
			size := backlogFirstBlock << min(len(b.blocks), 4)
			b.blocks = append(b.blocks, make([]byte, 0, min(size, backlogMaxBlock)))
		}
		last := &b.blocks[len(b.blocks)-1]
		k := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
	b.n += n
	return n, nil
}

// Len returns the bytes held.
func (b *backlogBuf) Len() int { return b.n }

// writeTo sends the blocks in order, letting each go once it is written.
func (b *backlogBuf) writeTo(w io.Writer) error {
	for i, blk := range b.blocks {
		if _, err := w.Write(blk); err != nil {
			return err
		}
		b.blocks[i] = nil
	}
	b.blocks, b.n = nil, 0
	return nil
}

// stderr receives the client's few warnings (a variable for tests).
var stderr io.Writer = os.Stderr

// connectGrace: a program that stops this soon after Start, with events
// recorded and no server yet, waits until this long after Start for one.
// A capture that was already waiting retries every 100 ms (gotracy
// capture) or 10 ms (Tracy's), so it connects within the grace; without
// it, a short program finished between two attempts and the capture kept
// retrying a closed port. Longer-running programs do not wait: any
// waiting capture has connected long before.
const connectGrace = 250 * time.Millisecond

// stallTimeout ends a session whose server accepts no data for this long,
// so a producer waiting for queue memory waits a bounded time (a variable
// for tests).
var stallTimeout = 10 * time.Second

// ErrServerStalled: the server stopped reading and the session was ended so
// the program could go on.
var ErrServerStalled = errors.New("tracy: server accepted no data")

// stallError turns a write deadline into ErrServerStalled.
func stallError(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w for %v; session ended: %w", ErrServerStalled, stallTimeout, err)
	}
	return err
}

// deadlineWriter gives every write to a server connection its own deadline.
type deadlineWriter struct{ c net.Conn }

func (d deadlineWriter) Write(p []byte) (int, error) {
	d.c.SetWriteDeadline(time.Now().Add(stallTimeout))
	n, err := d.c.Write(p)
	return n, stallError(err)
}

// freeze stops recording because the pre-connection backlog is full (see
// docs/DESIGN.md, "Without a server"): what the backlog holds stays a
// complete, consistent capture of the program's start for the first
// server (open zones are closed now, serial events already queued are
// kept), what the queues hold is dropped, and from now on producers record
// nothing, so the program runs at full speed however long nobody connects.
func (p *profiler) freeze(s *session) {
	serial.mu.Lock()
	rec.Store(0)
	q := serial.q
	serial.q = serial.spare[:0]
	serial.spare = nil
	s.resumeDeferred = len(serial.deferred)
	serial.mu.Unlock()
	for i := range q {
		s.encodeSerial(&q[i])
		if len(s.buf) > batchLimit {
			s.writeBuf()
		}
	}
	giveBackSerial(q)
	s.closeOpenZones()
	s.flush()
	discardAll()
	s.frozen = true
	p.statsMu.Lock()
	p.stats.BacklogStops++
	p.statsMu.Unlock()
	fmt.Fprintf(stderr, "tracy: no server connected and the %s pre-connection backlog is full: recording stopped; "+
		"the first %d zones are kept for the first server, which resumes recording (connect earlier, raise WithBacklogLimit, or use WithOnDemand)\n",
		sizeText(int64(p.cfg.backlogLimit)), s.zones)
}

// resume starts recording again in a frozen backlog session that a server
// has just received: a new epoch, so records and zone ends left from before
// the freeze are skipped, and the deferred items pushed while frozen.
func (p *profiler) resume(s *session) {
	p.nextEp++
	s.ep = p.nextEp
	for _, g := range *gstates.Load() {
		g.depth = 0
		g.fiber = false
	}
	serial.mu.Lock()
	rec.Store(s.ep)
	clear(serial.q)
	serial.q = append(serial.q[:0], serial.deferred[min(s.resumeDeferred, len(serial.deferred)):]...)
	serial.mu.Unlock()
	s.frozen = false
}

// exitWait is how long Stop waits for a first server when events were
// recorded and none connected: WithExitWait, else TRACY_NO_EXIT=1 (no
// limit), else the connect grace.
func (p *profiler) exitWait() (d time.Duration, forever bool) {
	switch {
	case p.cfg.exitWaitSet && p.cfg.exitWait < 0:
		return 0, true
	case p.cfg.exitWaitSet:
		return p.cfg.exitWait, false
	}
	if left := connectGrace - time.Since(p.started); left > 0 {
		return left, false
	}
	return 0, false
}

// awaitExitConn waits, at Stop, for a server to take a backlog no server
// received yet. It returns nil when none came in time.
func (p *profiler) awaitExitConn(s *session) net.Conn {
	select {
	case c := <-p.conns:
		return c
	default:
	}
	d, forever := p.exitWait()
	if forever {
		fmt.Fprintf(stderr, "tracy: waiting at exit for a Tracy server on port %d to take %d recorded zones (%s compressed)\n",
			p.port, s.zones, sizeText(int64(s.backlog.Len())))
	}
	var timeout <-chan time.Time
	if !forever {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case c := <-p.conns:
			return c
		case <-timeout:
			// A server whose handshake is under way is served: it
			// connected before the program stopped waiting.
			for end := time.Now().Add(3 * time.Second); p.handshaking.Load() > 0 && time.Now().Before(end); {
				select {
				case c := <-p.conns:
					return c
				case <-time.After(time.Millisecond):
				}
			}
			select {
			case c := <-p.conns:
				return c
			default:
			}
			return nil
		}
	}
}

func sizeText(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
