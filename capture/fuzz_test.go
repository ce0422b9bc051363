package capture

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// FuzzItems feeds arbitrary decompressed items straight to the worker (no
// LZ4, so the fuzzer explores the semantics of every item type): it must
// never panic, and whatever trace it leaves must save as a valid file.
// Seeds (testdata/fuzz/FuzzItems) are slices of the real demo recording's
// frames and small hand-made sessions.
func FuzzItems(f *testing.F) {
	f.Add(zones(3))
	f.Fuzz(func(t *testing.T, items []byte) {
		tr := model.New()
		q := newQueryQueue(0, true)
		w := newWorker(tr, q)
		w.start(hello{welcome: protocol.Welcome{TimerMul: 1, InitEnd: 10, Flags: protocol.FlagCodeTransfer, ExecTime: 1}})
		for len(items) > 0 {
			n := min(len(items), protocol.TargetFrameSize)
			if err := w.processFrame(items[:n], 0); err != nil || w.fail != nil {
				break
			}
			q.flush(io.Discard)
			items = items[n:]
		}
		w.finish()
		if os.Getenv("GOTRACY_FUZZ_NOSAVE") != "" {
			return
		}
		if err := tracefile.Write(io.Discard, tr, tracefile.WithLZ4()); err != nil {
			t.Fatalf("trace built from the items does not save: %v", err)
		}
	})
}

// FuzzReplay runs the whole pipeline (handshake, LZ4 frames, items) over
// arbitrary bytes: typed errors only, never a panic, and a partial trace
// that saves.
func FuzzReplay(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Replay(context.Background(), bytes.NewReader(data), WithLocalSources(false))
		if res == nil || res.Trace == nil {
			if err == nil {
				t.Fatal("no trace and no error")
			}
			return
		}
		if err := tracefile.Write(io.Discard, res.Trace, tracefile.WithLZ4()); err != nil {
			t.Fatalf("partial trace does not save: %v", err)
		}
	})
}
