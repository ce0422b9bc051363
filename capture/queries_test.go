package capture

import (
	"bytes"
	"testing"

	"github.com/gotracy/gotracy/protocol"
)

func TestBudgetFor(t *testing.T) {
	for _, c := range []struct{ sndbuf, want int }{
		{0, 1}, {13, 1}, {13 * 100, 96}, {16384, 1256}, {1 << 20, 8188}, {1 << 30, 8188},
	} {
		if got := budgetFor(c.sndbuf); got != c.want {
			t.Errorf("budgetFor(%d) = %d, want %d", c.sndbuf, got, c.want)
		}
	}
}

// Priority queries go first, the budget caps what is in flight, and each
// counted answer lets exactly one more out.
func TestQueryQueueBudget(t *testing.T) {
	q := newQueryQueue(3, false)
	q.push(protocol.ServerQueryCallstackFrame, 1, 0)
	q.push(protocol.ServerQueryString, 2, 0)
	q.push(protocol.ServerQuerySymbolCode, 3, 77)
	q.push(protocol.ServerQuerySourceLocation, 4, 0)
	var out bytes.Buffer
	if err := q.flush(&out); err != nil {
		t.Fatal(err)
	}
	got := decodeQueries(t, out.Bytes())
	want := []protocol.ServerQueryPacket{
		{Type: protocol.ServerQueryString, Ptr: 2},
		{Type: protocol.ServerQuerySourceLocation, Ptr: 4},
		{Type: protocol.ServerQueryCallstackFrame, Ptr: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("query %d = %v, want %v", i, got[i], want[i])
		}
	}
	out.Reset()
	q.flush(&out)
	if out.Len() != 0 {
		t.Fatalf("sent %d bytes with no budget left", out.Len())
	}
	q.answered()
	q.flush(&out)
	if got := decodeQueries(t, out.Bytes()); len(got) != 1 || got[0] != (protocol.ServerQueryPacket{Type: protocol.ServerQuerySymbolCode, Ptr: 3, Extra: 77}) {
		t.Fatalf("after one answer sent %v", got)
	}
	// Answers nobody asked for do not raise the budget above its start.
	for range 10 {
		q.answered()
	}
	if q.budget != 3 {
		t.Errorf("budget %d after surplus answers, want 3", q.budget)
	}
	if !q.empty() {
		t.Error("queue not empty")
	}
}

// In a replay everything is flushed at once.
func TestQueryQueueUnlimited(t *testing.T) {
	q := newQueryQueue(0, true)
	for i := range 10000 {
		q.push(protocol.ServerQueryCallstackFrame, uint64(i), 0)
	}
	var out bytes.Buffer
	q.flush(&out)
	if n := out.Len() / protocol.ServerQueryPacketSize; n != 10000 || !q.empty() {
		t.Fatalf("flushed %d of 10000", n)
	}
}

func decodeQueries(t *testing.T, b []byte) []protocol.ServerQueryPacket {
	var qs []protocol.ServerQueryPacket
	for len(b) >= protocol.ServerQueryPacketSize {
		var q protocol.ServerQueryPacket
		if err := q.UnmarshalBinary(b[:protocol.ServerQueryPacketSize]); err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
		b = b[protocol.ServerQueryPacketSize:]
	}
	return qs
}
