package gotrace

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/gotrace/gotracetest"
	"github.com/gotracy/gotracy/tracefile"
)

var (
	workOnce  sync.Once
	workTrace []byte
	workErr   error
)

// workloadTrace records the known workload with the execution tracer and
// the CPU profiler on, once per test binary.
func workloadTrace(t testing.TB) []byte {
	workOnce.Do(func() {
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(io.Discard); err != nil {
			workErr = err
			return
		}
		if err := trace.Start(&buf); err != nil {
			pprof.StopCPUProfile()
			workErr = err
			return
		}
		// A flight recorder's snapshots end the tracer's generations, so
		// the trace has several and a cut keeps the complete ones.
		fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{})
		if err := fr.Start(); err != nil {
			trace.Stop()
			pprof.StopCPUProfile()
			workErr = err
			return
		}
		gotracetest.Run(400*time.Millisecond, func() { fr.WriteTo(io.Discard) })
		fr.Stop()
		trace.Stop()
		pprof.StopCPUProfile()
		workTrace = buf.Bytes()
	})
	if workErr != nil {
		t.Fatalf("recording the workload: %v", workErr)
	}
	return workTrace
}

func TestImportWorkload(t *testing.T) {
	data := workloadTrace(t)
	tr, err := Import(bytes.NewReader(data), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gotracetest.Check(t, tr, true)
	plots := map[string]int{}
	for _, p := range tr.Plots {
		name, _ := tr.PtrString(p.Name)
		plots[name] = len(p.Points)
	}
	for _, name := range []string{"Go heap in use", "Go heap goal", "Go goroutines", "Go sched latency p99"} {
		if plots[name] == 0 {
			t.Errorf("plot %q has no points (plots %v)", name, plots)
		}
	}
	// What the importer builds survives the .tracy writer and reader.
	var f bytes.Buffer
	if err := tracefile.Write(&f, tr); err != nil {
		t.Fatal(err)
	}
	back, err := tracefile.Read(bytes.NewReader(f.Bytes()), int64(f.Len()))
	if err != nil {
		t.Fatal(err)
	}
	gotracetest.Check(t, back, true)
}

// TestImportTruncated cuts the trace at several places: each gives an
// *Error, and the events before the cut are kept.
func TestImportTruncated(t *testing.T) {
	data := workloadTrace(t)
	full, err := Import(bytes.NewReader(data), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, frac := range []float64{0.5, 0.9, 0.99} {
		cut := data[:int(float64(len(data))*frac)]
		tr, err := Import(bytes.NewReader(cut), ImportOptions{})
		var fe *Error
		if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
			t.Fatalf("cut at %.0f%%: error %v (%T), want an *Error", frac*100, err, err)
		}
		if tr == nil {
			t.Errorf("cut at %.0f%%: %v, and nothing kept", frac*100, err)
			continue
		}
		if !strings.Contains(err.Error(), "what came before is kept") {
			t.Errorf("error %q does not say the decoded part is kept", err)
		}
		if tr.Metadata.LastTime > full.Metadata.LastTime || len(tr.CtxSwitches) == 0 {
			t.Errorf("cut at %.0f%%: kept trace has %d context-switch threads and ends at %d (full: %d)", frac*100, len(tr.CtxSwitches), tr.Metadata.LastTime, full.Metadata.LastTime)
		}
	}
	if _, err := Import(strings.NewReader("not a trace at all"), ImportOptions{}); !errors.Is(err, ErrFormat) {
		t.Errorf("garbage: %v, want ErrFormat", err)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/small.trace from a new run of the workload")

// TestImportGolden imports a checked-in trace of the workload (made by
// Go 1.26 with -update): the importer must keep reading the files older
// runs wrote, whatever the running Go version writes.
func TestImportGolden(t *testing.T) {
	if *update {
		var buf bytes.Buffer
		if err := trace.Start(&buf); err != nil {
			t.Fatal(err)
		}
		gotracetest.Run(20*time.Millisecond, nil)
		trace.Stop()
		if err := os.WriteFile("testdata/small.trace", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile("testdata/small.trace")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Import(bytes.NewReader(data), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gotracetest.Check(t, tr, false)
}
