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

	"github.com/gotracy/gotracy/internal/goreason"
	"github.com/gotracy/gotracy/internal/gotrace/gotracetest"
	"github.com/gotracy/gotracy/model"
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

// zoneCounts counts zones per name, walking every thread's zone list.
func zoneCounts(tr *model.Trace) map[string]int {
	n := map[string]int{}
	for i := range tr.Threads {
		zl := &tr.Threads[i].Zones
		for j := 0; j < zl.Len(); j++ {
			n[tr.ZoneName(zl.At(j))]++
		}
	}
	return n
}


// CheckWorkload checks what the known workload must produce.
func CheckWorkload(t *testing.T, tr *model.Trace, wantSamples bool) {
	t.Helper()
	n := zoneCounts(tr)
	if n[gotracetest.RegionA] != gotracetest.NA || n[gotracetest.RegionB] != gotracetest.NB {
		t.Errorf("regions: %d %s and %d %s, want %d and %d", n[gotracetest.RegionA], gotracetest.RegionA, n[gotracetest.RegionB], gotracetest.RegionB, gotracetest.NA, gotracetest.NB)
	}
	if n["GC cycle"] < gotracetest.ForcedGCs {
		t.Errorf("%d GC cycle zones, want at least %d (zones: %v)", n["GC cycle"], gotracetest.ForcedGCs, n)
	}
	if n[gotracetest.TaskName] != 1 {
		t.Errorf("%d task zones, want 1", n[gotracetest.TaskName])
	}
	// Every worker goroutine ran: it has context switches, and at least
	// one of them waited on the channel.
	workers, chanWaits := 0, 0
	for _, cs := range tr.CtxSwitches {
		if !strings.HasPrefix(threadName(tr, cs.Thread), gotracetest.WorkerFn) {
			continue
		}
		ran := false
		for _, e := range cs.Events {
			if e.Start >= 0 && e.End > e.Start {
				ran = true
			}
			if goreason.Name(uint8(e.Reason)) == "chan receive" {
				chanWaits++
			}
		}
		if ran {
			workers++
		}
	}
	if workers != gotracetest.Workers {
		t.Errorf("%d worker goroutines with context switches, want %d", workers, gotracetest.Workers)
	}
	if chanWaits == 0 {
		t.Errorf("no worker context switch has the reason \"chan receive\"")
	}
	msgs := 0
	for _, m := range tr.Messages {
		if strings.Contains(tr.RefString(m.Text), "log message") {
			msgs++
		}
	}
	if msgs != gotracetest.Logs {
		t.Errorf("%d log messages, want %d", msgs, gotracetest.Logs)
	}
	if !wantSamples {
		return
	}
	samples, inSpin := 0, 0
	for i := range tr.Threads {
		for _, s := range tr.Threads[i].Samples {
			samples++
			for _, f := range tr.CallStack(s.CallStack) {
				fd, ok := tr.Frames[f]
				if !ok {
					continue
				}
				for _, in := range fd.Frames {
					if tr.Str(in.Name) == gotracetest.SpinFunc {
						inSpin++
					}
				}
			}
		}
	}
	if samples == 0 || inSpin == 0 {
		t.Errorf("%d CPU samples, %d frames resolving to %s: want both > 0", samples, inSpin, gotracetest.SpinFunc)
	}
}

func threadName(tr *model.Trace, tid uint64) string { return tr.ThreadName(tid) }

func TestImportWorkload(t *testing.T) {
	data := workloadTrace(t)
	tr, err := Import(bytes.NewReader(data), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	CheckWorkload(t, tr, true)
	// What the importer builds survives the .tracy writer and reader.
	var f bytes.Buffer
	if err := tracefile.Write(&f, tr); err != nil {
		t.Fatal(err)
	}
	back, err := tracefile.Read(bytes.NewReader(f.Bytes()), int64(f.Len()))
	if err != nil {
		t.Fatal(err)
	}
	CheckWorkload(t, back, true)
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
	CheckWorkload(t, tr, false)
}
