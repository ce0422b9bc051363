package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/internal/tracereport"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	register(&command{
		name:    "info",
		summary: "describe a .tracy file: capture, host, format, counts of every kind of event, load speed",
		usage:   "info [--json] [--verify] FILE",
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			asJSON := fs.Bool("json", false, "print JSON (stable keys) instead of text")
			verify := fs.Bool("verify", false, "check the file's integrity (framing, checksums, payload) and exit non-zero if it is damaged")
			return func(e *env, args []string) error {
				if len(args) != 1 {
					return usagef("info needs exactly one trace file")
				}
				if *verify {
					return verifyFile(e, args[0], *asJSON)
				}
				zs := &zoneSummaryStream{}
				t, rep, err := loadTrace(e, args[0], tracefile.WithThreadLoaded(zs.threadLoaded))
				sum := zs.wait()
				if err != nil {
					return err
				}
				r := newInfoReport(args[0], rep, analysis.SummarizeCounted(t, sum))
				if *asJSON {
					return r.writeJSON(e.stdout)
				}
				return r.writeText(e.stdout)
			}
		},
	})
}

// infoReport is the JSON document `gotracy info --json` prints; the type
// lives in internal/tracereport so the viewer serves the same object.
type infoReport struct{ tracereport.Report }

func newInfoReport(path string, rep *tracefile.Report, s *analysis.Summary) *infoReport {
	return &infoReport{*tracereport.New(path, rep, s)}
}

func (r *infoReport) writeJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func (r *infoReport) writeText(w io.Writer) error {
	s := r.Summary
	var b strings.Builder
	line := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "%-18s %s\n", label+":", fmt.Sprintf(format, args...))
	}
	f := r.File
	line("File", "%s", f.Name)
	line("Format", "Tracy %s, %s, %d stream%s", f.Version, f.Compression, f.Streams, plural(f.Streams))
	line("Size", "%s bytes, payload %s bytes (%.2f%%)", thousands(uint64(f.FileBytes)), thousands(uint64(f.PayloadBytes)),
		100*float64(f.FileBytes)/float64(max(f.PayloadBytes, 1)))
	line("Program", "%s", s.Program)
	if s.CaptureName != "" {
		line("Capture name", "%s", s.CaptureName)
	}
	line("Capture time", "%s", unixTime(s.CaptureTime))
	if s.ExecutableTime != 0 {
		line("Executable time", "%s", unixTime(s.ExecutableTime))
	}
	line("PID", "%d", s.PID)
	line("CPU", "%s %s, id 0x%x", s.CPUArch, s.CPUVendor, s.CPUID)
	if h := strings.TrimRight(s.HostInfo, "\n"); h != "" {
		line("Host", "%s", strings.ReplaceAll(h, "\n", "\n"+strings.Repeat(" ", 19)))
	}
	line("Timer resolution", "%d ns", s.ResolutionNs)
	if s.OnDemand {
		line("On demand", "yes")
	}
	if s.SamplingPeriodNs != 0 {
		line("Sampling period", "%s", analysis.FormatTime(s.SamplingPeriodNs))
	}
	line("Time span", "%s (%d .. %d ns)", analysis.FormatTime(s.TimeSpanNs), s.FirstTime, s.LastTime)
	line("Frames", "%s", thousands(uint64(s.Frames)))
	for _, fs := range s.FrameSets {
		kind := "continuous"
		if !fs.Continuous {
			kind = "discontinuous"
		}
		line("  frame set", "%s: %s frames, %s", fs.Name, thousands(uint64(fs.Frames)), kind)
	}
	line("Frame images", "%s", thousands(uint64(s.FrameImages)))
	line("Threads", "%d (and %d fibers)", s.Threads, s.Fibers)
	line("Zones", "%s (%s unended, %s of 0 ns), max depth %d", thousands(s.Zones),
		thousands(s.ZonesUnended), thousands(s.ZonesZeroLength), s.MaxZoneDepth)
	line("Source locations", "%d (%d dynamic)", s.SourceLocations, s.DynamicSourceLocations)
	line("GPU zones", "%s in %d context%s", thousands(s.GpuZones), s.GpuContexts, plural(s.GpuContexts))
	line("Messages", "%s", thousands(uint64(s.Messages)))
	line("Plots", "%d, %s points", len(s.Plots), thousands(s.PlotPoints))
	for _, p := range s.Plots {
		line("  plot", "%s (%s): %s points", p.Name, p.Type, thousands(uint64(p.Points)))
	}
	line("Memory events", "%s (%s freed) in %d pool%s", thousands(s.MemEvents), thousands(s.MemFrees), len(s.MemPools), plural(len(s.MemPools)))
	for _, p := range s.MemPools {
		line("  pool", "%s: %s allocations, %s freed, %s active", p.Name, thousands(uint64(p.Events)),
			thousands(uint64(p.Frees)), thousands(uint64(p.Active)))
	}
	line("Locks", "%d, %s events", s.Locks, thousands(s.LockEvents))
	line("Call stacks", "%s, %s resolved frames", thousands(uint64(s.CallStacks)), thousands(uint64(s.CallStackFrames)))
	line("Symbols", "%s (+%s inline), code of %s, %d source files", thousands(uint64(s.Symbols)),
		thousands(uint64(s.InlineSymbols)), thousands(uint64(s.SymbolCode)), s.SourceFiles)
	line("Context switches", "%s, %s CPU entries", thousands(s.ContextSwitches), thousands(s.CPUEntries))
	line("Samples", "%s (+%s at context switches), hardware samples at %s addresses",
		thousands(s.Samples), thousands(s.CtxSwitchSamples), thousands(uint64(s.HwSamples)))
	line("Strings", "%s, %d app info lines, %d sections", thousands(uint64(s.Strings)), s.AppInfo, s.Sections)
	if s.Crashed {
		line("Crash", "yes")
	}
	line("Load time", "%.3f s, %.1f MB/s of payload, %s zones/s", r.Load.Seconds, r.Load.PayloadMBPerSec,
		thousands(uint64(r.Load.ZonesPerSec)))
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// thousands groups digits by three with commas.
func thousands(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func unixTime(sec uint64) string {
	if sec == 0 {
		return "unknown"
	}
	return time.Unix(int64(sec), 0).UTC().Format("2006-01-02 15:04:05 UTC")
}

// zoneSummaryStream counts the zones info summarizes (depth, unended,
// zero-length) while the trace loads, one goroutine taking each thread as
// the loader finishes it: on a 100M-zone trace that pass read 2.2 GB after
// the load, on one core.
type zoneSummaryStream struct {
	sum  analysis.ZoneSummary
	ch   chan *model.Thread
	done chan struct{}
}

func (z *zoneSummaryStream) threadLoaded(_ *model.Trace, th *model.Thread, _ int) {
	if z.ch == nil {
		z.ch = make(chan *model.Thread, 256)
		z.done = make(chan struct{})
		go func() {
			defer close(z.done)
			for th := range z.ch {
				z.sum.AddThread(th)
			}
		}()
	}
	z.ch <- th
}

// wait stops the goroutine and returns what it counted (nil if no thread
// was handed over).
func (z *zoneSummaryStream) wait() *analysis.ZoneSummary {
	if z.ch == nil {
		return nil
	}
	close(z.ch)
	<-z.done
	summarizedWhileLoading = z.sum.Threads()
	return &z.sum
}

// summarizedWhileLoading is how many threads the last info counted while
// its file loaded (tests check that the path was taken).
var summarizedWhileLoading int
