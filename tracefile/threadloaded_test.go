package tracefile

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gotracy/gotracy/model"
)

// TestThreadLoaded: WithThreadLoaded is called once per thread, in file
// order, once the thread's record is whole (its zones, messages and
// samples as in the finished trace, the sections before it complete), and
// another goroutine may read the thread while the load goes on (run with
// -race). A load that fails later still fails.
func TestThreadLoaded(t *testing.T) {
	tr := genTrace(3, 60000)
	if len(tr.Threads) < 2 {
		t.Fatalf("test trace has %d threads", len(tr.Threads))
	}
	var buf bytes.Buffer
	if err := WritePayload(&buf, tr); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		i, zones, msgs, samples int
		id                      uint64
		ends                    int64 // sum of the zones' ends, read on another goroutine
		srclocs, extras         int
	}
	for _, bound := range []int64{int64(buf.Len()), -1} {
		var got []seen
		ch := make(chan seen, 1)
		done := make(chan []seen)
		go func() {
			var all []seen
			for s := range ch {
				all = append(all, s)
			}
			done <- all
		}()
		hook := func(tt *model.Trace, th *model.Thread, i int) {
			s := seen{i: i, zones: th.Zones.Len(), msgs: len(th.Messages), samples: len(th.Samples), id: th.ID,
				srclocs: len(tt.SrcLocIndex) + len(tt.DynSrcLocs), extras: len(tt.ZoneExtras)}
			for _, z := range th.Zones.All() {
				s.ends += z.End()
			}
			ch <- s
		}
		loaded, err := ReadPayload(bytes.NewReader(buf.Bytes()), bound, WithThreadLoaded(hook))
		close(ch)
		got = <-done
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(loaded.Threads) {
			t.Fatalf("bound %d: %d calls for %d threads", bound, len(got), len(loaded.Threads))
		}
		for i, s := range got {
			th := &loaded.Threads[i]
			var ends int64
			for _, z := range th.Zones.All() {
				ends += z.End()
			}
			want := seen{i: i, zones: th.Zones.Len(), msgs: len(th.Messages), samples: len(th.Samples), id: th.ID, ends: ends,
				srclocs: len(loaded.SrcLocIndex) + len(loaded.DynSrcLocs), extras: len(loaded.ZoneExtras)}
			if s != want {
				t.Errorf("bound %d: call %d saw %+v, finished thread %+v", bound, i, s, want)
			}
		}
	}

	// Cut after the threads: every thread is handed over, the load fails.
	cut := buf.Bytes()[:buf.Len()-1]
	calls := 0
	_, err := ReadPayload(bytes.NewReader(cut), int64(len(cut)), WithThreadLoaded(func(*model.Trace, *model.Thread, int) { calls++ }))
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("cut payload: %v", err)
	}
	if calls != len(tr.Threads) {
		t.Errorf("cut payload: %d calls, want %d", calls, len(tr.Threads))
	}
}
