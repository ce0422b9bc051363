package analysis

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gotracy/gotracy/model"
)

// Summary counts everything a trace holds. It is what `gotracy info`
// prints; the JSON names are a stable interface for scripts.
type Summary struct {
	Program        string `json:"program"`
	CaptureName    string `json:"capture_name"`
	CaptureTime    uint64 `json:"capture_time_unix"`
	ExecutableTime uint64 `json:"executable_time_unix"`
	HostInfo       string `json:"host_info"`
	PID            uint64 `json:"pid"`
	CPUArch        string `json:"cpu_arch"`
	CPUVendor      string `json:"cpu_manufacturer"`
	CPUID          uint32 `json:"cpu_id"`
	OnDemand       bool   `json:"on_demand"`
	// ResolutionNs is the client timer resolution; TimerMul ns per tick.
	ResolutionNs     int64   `json:"timer_resolution_ns"`
	TimerMul         float64 `json:"timer_multiplier"`
	SamplingPeriodNs int64   `json:"sampling_period_ns"`

	// FirstTime..LastTime is the timeline; TimeSpanNs is what Tracy's
	// capture tool prints as "Time span".
	FirstTime  int64 `json:"first_time_ns"`
	LastTime   int64 `json:"last_time_ns"`
	TimeSpanNs int64 `json:"time_span_ns"`

	Threads int `json:"threads"`
	Fibers  int `json:"fibers"`
	// Zones counts every CPU zone, as the capture tool's "Zones:";
	// ZonesUnended those that never ended, ZonesZeroLength those 0 ns long
	// (or, in a malformed trace, ending before they start)
	// (both left out of csv statistics).
	Zones           uint64 `json:"zones"`
	ZonesUnended    uint64 `json:"zones_unended"`
	ZonesZeroLength uint64 `json:"zones_zero_length"`
	MaxZoneDepth    int    `json:"max_zone_depth"`
	SourceLocations int    `json:"source_locations"`
	// DynamicSourceLocations are the allocated (run-time) ones.
	DynamicSourceLocations int `json:"dynamic_source_locations"`

	GpuContexts int    `json:"gpu_contexts"`
	GpuZones    uint64 `json:"gpu_zones"`

	// Frames is the base frame set's count, the capture tool's "Frames:".
	Frames      int           `json:"frames"`
	FrameSets   []FrameSetSum `json:"frame_sets"`
	FrameImages int           `json:"frame_images"`

	Messages   int       `json:"messages"`
	Plots      []PlotSum `json:"plots"`
	PlotPoints uint64    `json:"plot_points"`

	MemPools        []MemPoolSum `json:"memory_pools"`
	MemEvents       uint64       `json:"memory_events"`
	MemFrees        uint64       `json:"memory_frees"`
	Locks           int          `json:"locks"`
	LockEvents      uint64       `json:"lock_events"`
	CallStacks      int          `json:"call_stacks"`
	CallStackFrames int          `json:"call_stack_frames_resolved"`
	Symbols         int          `json:"symbols"`
	InlineSymbols   int          `json:"inline_symbols"`
	SymbolCode      int          `json:"symbol_code_blocks"`
	SourceFiles     int          `json:"source_files_cached"`

	// ContextSwitches are per-thread switch records; CPUEntries the per-CPU
	// schedule (which thread ran when on each CPU).
	ContextSwitches  uint64 `json:"context_switches"`
	CPUEntries       uint64 `json:"cpu_schedule_entries"`
	Samples          uint64 `json:"samples"`
	CtxSwitchSamples uint64 `json:"context_switch_samples"`
	HwSamples        int    `json:"hardware_sample_addresses"`

	Strings  int  `json:"strings"`
	AppInfo  int  `json:"app_info_lines"`
	Sections int  `json:"sections"`
	Crashed  bool `json:"crashed"`
}

// FrameSetSum is one frame set's name and size.
type FrameSetSum struct {
	Name       string `json:"name"`
	Frames     int    `json:"frames"`
	Continuous bool   `json:"continuous"`
}

// PlotSum is one plot as Tracy lists it (memory plots included).
type PlotSum struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Points int    `json:"points"`
}

// MemPoolSum is one memory pool.
type MemPoolSum struct {
	Name   string `json:"name"`
	Events int    `json:"events"`
	Frees  int    `json:"frees"`
	// Active is how many allocations were never freed.
	Active int `json:"active"`
}

var cpuArchNames = [...]string{"unknown", "x86", "x64", "ARM32", "ARM64"}

var plotTypeNames = [...]string{"user", "memory", "sys time", "power"}

func plotTypeName(t uint8) string {
	if int(t) < len(plotTypeNames) {
		return plotTypeNames[t]
	}
	return "unknown"
}

// Summarize counts the contents of t.
func Summarize(t *model.Trace) *Summary { return SummarizePlots(t, PlotsInTracyOrder(t)) }

// SummarizePlots is Summarize for a caller that already has
// PlotsInTracyOrder(t) (the viewer): rebuilding the memory plots is the
// dearest part of a summary of a trace with millions of allocations.
func SummarizePlots(t *model.Trace, plots []model.Plot) *Summary {
	return summarize(t, plots, nil, nil)
}

// SummarizeFrom is SummarizePlots for a trace that grows (a live
// capture's snapshots): prev is what an earlier call returned for an
// earlier snapshot of the same capture (nil: none), and the pass over the
// zones, the one part of a summary that is a pass over every zone, walks
// only the zones added since, as lod.Extend does for the index. The
// returned tally is for the next call. What else a summary counts (memory
// events, plots, locks, ...) is counted afresh.
func SummarizeFrom(prev *ZoneTally, t *model.Trace, plots []model.Plot) (*Summary, *ZoneTally) {
	tally := prev.extend(t)
	return summarize(t, plots, nil, tally), tally
}

// ZoneSummary is the part of Summarize that reads every zone (depth,
// unended and zero-length zones), thread by thread, so that a caller can
// count each thread while later ones load (tracefile.WithThreadLoaded).
// Threads may be added in any order, each once. Not safe for concurrent
// use.
type ZoneSummary struct {
	sum     threadZoneSum
	threads int
}

// AddThread counts the zones of one thread.
func (z *ZoneSummary) AddThread(th *model.Thread) {
	s := summarizeZones(&th.Zones)
	z.sum.maxDepth = max(z.sum.maxDepth, s.maxDepth)
	z.sum.unended += s.unended
	z.sum.zeroLength += s.zeroLength
	z.threads++
}

// Threads is how many threads have been added.
func (z *ZoneSummary) Threads() int { return z.threads }

// SummarizeCounted is Summarize with the zones already counted: zs must
// hold every thread of t once (if it holds another number of threads, the
// zones are counted here as Summarize does).
func SummarizeCounted(t *model.Trace, zs *ZoneSummary) *Summary {
	if zs != nil && zs.threads != len(t.Threads) {
		zs = nil
	}
	return summarize(t, PlotsInTracyOrder(t), zs, nil)
}

// summarize counts t; the zone pass comes from tally (a live capture's),
// from zs (counted while loading), or is made here.
func summarize(t *model.Trace, plots []model.Plot, zs *ZoneSummary, tally *ZoneTally) *Summary {
	md := &t.Metadata
	s := &Summary{
		Program:          md.CaptureProgram,
		CaptureName:      md.CaptureName,
		CaptureTime:      md.CaptureTime,
		ExecutableTime:   md.ExecutableTime,
		HostInfo:         md.HostInfo,
		PID:              md.PID,
		CPUArch:          "unknown",
		CPUVendor:        cString(md.CPUManufacturer[:]),
		CPUID:            md.CPUID,
		OnDemand:         md.OnDemand,
		ResolutionNs:     md.Resolution,
		TimerMul:         md.TimerMul,
		SamplingPeriodNs: md.SamplingPeriod,
		FirstTime:        FirstTime(t),
		LastTime:         md.LastTime,

		SourceLocations:        max(len(t.SrcLocIndex)-1, 0) + len(t.DynSrcLocs),
		DynamicSourceLocations: len(t.DynSrcLocs),
		GpuContexts:            len(t.GpuContexts),
		FrameImages:            len(t.FrameImages),
		Messages:               len(t.Messages),
		Locks:                  len(t.Locks),
		CallStacks:             t.NumCallStacks(),
		CallStackFrames:        len(t.Frames),
		SymbolCode:             len(t.SymbolCode),
		SourceFiles:            len(t.SourceCache),
		HwSamples:              len(t.HwSamples),
		Strings:                max(len(t.Strings)-1, 0),
		AppInfo:                len(t.AppInfo),
		Crashed:                t.Crash.Thread != 0,
	}
	if int(md.CPUArch) < len(cpuArchNames) {
		s.CPUArch = cpuArchNames[md.CPUArch]
	}
	s.TimeSpanNs = s.LastTime - s.FirstTime

	for i := range t.Threads {
		th := &t.Threads[i]
		if th.IsFiber {
			s.Fibers++
		} else {
			s.Threads++
		}
		s.Samples += uint64(len(th.Samples))
		s.CtxSwitchSamples += uint64(len(th.CtxSwitchSamples))
		s.Zones += uint64(th.Zones.Len())
	}
	var sums []threadZoneSum
	switch {
	case tally != nil:
		for i := range tally.threads {
			sums = append(sums, tally.threads[i].sum())
		}
	case zs != nil:
		sums = append(sums, zs.sum)
	default:
		sums = zoneSums(t, s.Zones)
	}
	for _, z := range sums {
		s.MaxZoneDepth = max(s.MaxZoneDepth, z.maxDepth)
		s.ZonesUnended += z.unended
		s.ZonesZeroLength += z.zeroLength
	}
	for i := range t.GpuContexts {
		for j := range t.GpuContexts[i].Timelines {
			s.GpuZones += uint64(len(t.GpuContexts[i].Timelines[j].Zones))
		}
	}
	for i := range t.FrameSets {
		fs := &t.FrameSets[i]
		name := tracyPtrString(t, fs.Name)
		if fs.Name == 0 {
			name = "Frame"
		}
		s.FrameSets = append(s.FrameSets, FrameSetSum{Name: name, Frames: len(fs.Frames), Continuous: fs.Continuous})
	}
	if len(t.FrameSets) > 0 {
		s.Frames = len(t.FrameSets[0].Frames)
	}
	for _, p := range plots {
		name := tracyPtrString(t, p.Name)
		if p.Type == model.PlotMemory && p.Name == 0 {
			name = "default memory pool"
		} else if p.Type == model.PlotSysTime {
			name = "CPU usage"
		}
		s.Plots = append(s.Plots, PlotSum{Name: name, Type: plotTypeName(p.Type), Points: len(p.Points)})
		s.PlotPoints += uint64(len(p.Points))
	}
	for i := range t.MemPools {
		p := &t.MemPools[i]
		ps := MemPoolSum{Name: "default", Events: len(p.Events)}
		if p.Name != 0 {
			ps.Name = tracyPtrString(t, p.Name)
		}
		for j := range p.Events {
			if p.Events[j].TimeFree >= 0 {
				ps.Frees++
			} else {
				ps.Active++
			}
		}
		s.MemEvents += uint64(ps.Events)
		s.MemFrees += uint64(ps.Frees)
		s.MemPools = append(s.MemPools, ps)
	}
	for i := range t.Locks {
		s.LockEvents += uint64(len(t.Locks[i].Events))
	}
	for i := range t.Symbols {
		if t.Symbols[i].IsInline {
			s.InlineSymbols++
		} else {
			s.Symbols++
		}
	}
	for i := range t.CtxSwitches {
		s.ContextSwitches += uint64(len(t.CtxSwitches[i].Events))
	}
	for i := range t.CPUData {
		s.CPUEntries += uint64(len(t.CPUData[i]))
	}
	for i := range t.Sections {
		s.Sections += len(t.Sections[i].Items)
	}
	return s
}

// cString cuts a fixed-size field at its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// threadZoneSum is what Summarize counts in one thread's zones.
type threadZoneSum struct {
	maxDepth            int
	unended, zeroLength uint64
}

// parallelSummaryZones is the zone count from which Summarize counts the
// threads' zones on several goroutines: below it the pass takes under a
// few milliseconds. The counts are sums and a maximum, so the result does
// not depend on how the threads are shared out.
var parallelSummaryZones uint64 = 1 << 20

// zoneSums counts each thread's zones, on up to GOMAXPROCS goroutines
// when the trace is large and has more than one thread (the pass reads
// every zone, 22 bytes each: 1.2 s of a 100M-zone `info`, one core).
func zoneSums(t *model.Trace, total uint64) []threadZoneSum {
	sums := make([]threadZoneSum, len(t.Threads))
	workers := min(runtime.GOMAXPROCS(0), len(t.Threads))
	if total < parallelSummaryZones || workers < 2 {
		for i := range t.Threads {
			sums[i] = summarizeZones(&t.Threads[i].Zones)
		}
		return sums
	}
	// Threads are taken in turn from a shared counter, so one large
	// thread does not leave the other goroutines waiting behind it.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(t.Threads) {
					return
				}
				sums[i] = summarizeZones(&t.Threads[i].Zones)
			}
		}()
	}
	wg.Wait()
	return sums
}

// summarizeZones is one flat pass over a thread's chunks: the counts, and
// the depth as model.Walk computes it (the tally's walk from the start).
func summarizeZones(zones *model.ZoneList) threadZoneSum {
	tt := tallyThread(nil, 0, zones)
	return tt.sum()
}
