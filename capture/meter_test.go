package capture

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"
)

type slowReader struct{ r io.Reader }

func (s slowReader) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	return s.r.Read(p[:min(len(p), 2048)])
}

// WithMemoryMeter replaces the live heap as what WithMemoryLimit is held
// to (the daemon's per-client share).
func TestMemoryMeter(t *testing.T) {
	raw := flightStream(t, 3000)
	for _, tc := range []struct {
		meter uint64
		want  StopReason
	}{{2, StopMemoryLimit}, {0, StopClientExit}} {
		m := tc.meter
		res, err := Replay(context.Background(), slowReader{bytes.NewReader(raw)}, WithLocalSources(false),
			WithMemoryLimit(1), WithMemoryMeter(func() uint64 { return m }), WithProgress(time.Millisecond, func(Stats) {}))
		if res == nil || res.Stop != tc.want {
			t.Fatalf("meter %d: stop %v (%v), want %v", m, res.Stop, err, tc.want)
		}
	}
}
