package capture

import (
	"io"

	"github.com/gotracy/gotracy/protocol"
)

// maxQueryBudget caps the budget as Tracy does (8192 packets), and
// reservedQueryBudget is held back so a Terminate can always be sent.
const (
	maxQueryBudget      = 8192
	reservedQueryBudget = 4
)

// query is one queued ServerQueryPacket.
type query = protocol.ServerQueryPacket

// queryQueue holds the server's outgoing queries under Tracy's flow-control
// rule. Both sides of a Tracy session use blocking sends on one
// socket: if the server wrote queries faster than the client reads them while
// the client is itself blocked sending events, both would wait forever. The
// server therefore never has more than `budget` unanswered queries in
// flight, where the budget is what fits in its socket send buffer. Every
// counted answer gives one unit back.
//
// The queue is touched only by the consumer goroutine, so it has no lock.
type queryQueue struct {
	prio, normal fifo
	budget       int // packets that may still be sent
	base         int // initial budget; the budget never grows beyond it
	unlimited    bool
	sent         uint64 // packets written, for statistics
	buf          []byte // reused packet encoding buffer
}

// budgetFor returns Tracy's initial budget for a socket whose send buffer is
// sndbuf bytes: min(sndbuf/13, 8192) - 4. A budget of at least 1 is kept so
// that a tiny or unknown buffer slows the capture down instead of stalling it.
func budgetFor(sndbuf int) int {
	b := sndbuf / protocol.ServerQueryPacketSize
	if b > maxQueryBudget {
		b = maxQueryBudget
	}
	b -= reservedQueryBudget
	if b < 1 {
		b = 1
	}
	return b
}

func newQueryQueue(budget int, unlimited bool) *queryQueue {
	return &queryQueue{budget: budget, base: budget, unlimited: unlimited}
}

// push queues a query; priority types go to their own FIFO.
func (q *queryQueue) push(typ protocol.ServerQuery, ptr uint64, extra uint32) {
	if typ.Priority() {
		q.prio.push(query{Type: typ, Ptr: ptr, Extra: extra})
	} else {
		q.normal.push(query{Type: typ, Ptr: ptr, Extra: extra})
	}
}

// answered returns one unit of budget for a counted answer. The budget never
// exceeds its initial value, so a client that sends answers nobody asked for
// cannot talk the server into overrunning its send buffer.
func (q *queryQueue) answered() {
	if q.budget < q.base {
		q.budget++
	}
}

// empty reports whether nothing is waiting to be sent.
func (q *queryQueue) empty() bool { return q.prio.len() == 0 && q.normal.len() == 0 }

// backlog is the number of queued, unsent queries.
func (q *queryQueue) backlog() int { return q.prio.len() + q.normal.len() }

// flush writes as many queued queries as the budget allows, priority ones
// first, in one Write. With an unlimited queue (replay) everything goes.
func (q *queryQueue) flush(w io.Writer) error {
	q.buf = q.buf[:0]
	n := 0
	for _, f := range [2]*fifo{&q.prio, &q.normal} {
		for f.len() > 0 && (q.unlimited || q.budget > 0) {
			q.buf = f.pop().Append(q.buf)
			if !q.unlimited {
				q.budget--
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	q.sent += uint64(n)
	if w == nil {
		return nil
	}
	_, err := w.Write(q.buf)
	return err
}

// terminatePacket is ServerQueryTerminate: 13 zero bytes, sent outside the
// budget.
var terminatePacket [protocol.ServerQueryPacketSize]byte

// fifo is a slice-backed queue that reuses its storage once drained.
type fifo struct {
	items []query
	head  int
}

func (f *fifo) len() int { return len(f.items) - f.head }

func (f *fifo) push(q query) {
	if f.head > 0 && f.head == len(f.items) {
		f.items = f.items[:0]
		f.head = 0
	}
	f.items = append(f.items, q)
}

func (f *fifo) pop() query {
	q := f.items[f.head]
	f.head++
	if f.head == len(f.items) {
		f.items = f.items[:0]
		f.head = 0
	} else if f.head > 4096 && f.head*2 > len(f.items) {
		n := copy(f.items, f.items[f.head:])
		f.items = f.items[:n]
		f.head = 0
	}
	return q
}

// Short names for the query types the worker sends.
const (
	qString           = protocol.ServerQueryString
	qThreadString     = protocol.ServerQueryThreadString
	qSourceLocation   = protocol.ServerQuerySourceLocation
	qPlotName         = protocol.ServerQueryPlotName
	qFrameName        = protocol.ServerQueryFrameName
	qFiberName        = protocol.ServerQueryFiberName
	qExternalName     = protocol.ServerQueryExternalName
	qCallstackFrame   = protocol.ServerQueryCallstackFrame
	qSymbol           = protocol.ServerQuerySymbol
	qSymbolCode       = protocol.ServerQuerySymbolCode
	qSourceCode       = protocol.ServerQuerySourceCode
	qDataTransfer     = protocol.ServerQueryDataTransfer
	qDataTransferPart = protocol.ServerQueryDataTransferPart
)
