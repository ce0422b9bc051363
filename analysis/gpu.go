package analysis

import (
	"math"

	"github.com/gotracy/gotracy/model"
)

// GpuZoneRef locates one GPU zone: context, timeline within it, zone index.
type GpuZoneRef struct {
	Context  uint32
	Timeline uint32
	Index    uint32
}

// GpuSrcLocStats is Tracy's GpuSourceLocationZones: statistics of GPU
// durations (GPU end - GPU start) per source location, counting only zones
// that ended and lasted more than 0 ns.
type GpuSrcLocStats struct {
	SrcLoc model.SrcLocID
	Count  uint64
	Total  int64
	Min    int64
	Max    int64
	SumSq  float64
	// Zones lists the counted zones in Tracy's order: contexts in file
	// order, each context's threads in its hash-map order, zones depth first.
	Zones []GpuZoneRef
}

// GpuZoneStats holds per-source-location GPU statistics in the order
// tracy-csvexport -g prints them.
type GpuZoneStats struct {
	Locations []GpuSrcLocStats
	Zones     uint64
	Skipped   uint64
}

// gpuTimelineOrder returns the indices of ctx's timelines in the iteration
// order of Tracy's per-context thread map (keyed by thread id; empty
// timelines are dropped on load, and a repeated thread id keeps its first
// slot).
func gpuTimelineOrder(ctx *model.GpuContext) []int {
	m := newTracyMap()
	first := map[uint64]int{}
	var ins []int
	for i := range ctx.Timelines {
		tl := &ctx.Timelines[i]
		if len(tl.Zones) == 0 {
			continue
		}
		if m.emplace(tl.Thread) {
			first[tl.Thread] = i
			ins = append(ins, i)
		}
	}
	if m.overflow {
		return ins
	}
	out := make([]int, 0, len(ins))
	for _, k := range m.order() {
		out = append(out, first[k])
	}
	return out
}

// ComputeGpuZoneStats walks every GPU zone once. The row order follows
// Tracy's map: source locations are inserted as their zones are met (the
// file's GPU count hints, which Tracy inserts first, are not kept by the
// model; they name the same ids in an order that only matters for keys
// with equal hash bits in the same bucket).
func ComputeGpuZoneStats(t *model.Trace) *GpuZoneStats {
	st := &GpuZoneStats{}
	m := newTracyMap()
	idx := map[model.SrcLocID]int{}
	var ins []model.SrcLocID
	type pending struct {
		id  model.SrcLocID
		ref GpuZoneRef
		d   int64
	}
	var seq []pending
	for ci := range t.GpuContexts {
		ctx := &t.GpuContexts[ci]
		for _, tli := range gpuTimelineOrder(ctx) {
			zones := ctx.Timelines[tli].Zones
			for zi := range zones {
				z := &zones[zi]
				if _, ok := idx[z.SrcLoc]; !ok {
					idx[z.SrcLoc] = -1
					if m.emplace(uint64(int64(z.SrcLoc))) {
						ins = append(ins, z.SrcLoc)
					}
				}
				d := z.GPUEnd - z.GPUStart
				if z.GPUEnd < 0 || d <= 0 {
					st.Skipped++
					continue
				}
				seq = append(seq, pending{z.SrcLoc, GpuZoneRef{uint32(ci), uint32(tli), uint32(zi)}, d})
			}
		}
	}
	order := ins
	if !m.overflow {
		order = order[:0:0]
		for _, k := range m.order() {
			order = append(order, model.SrcLocID(int16(k)))
		}
	}
	st.Locations = make([]GpuSrcLocStats, len(order))
	for i, id := range order {
		st.Locations[i] = GpuSrcLocStats{SrcLoc: id, Min: math.MaxInt64, Max: math.MinInt64}
		idx[id] = i
	}
	for _, p := range seq {
		s := &st.Locations[idx[p.id]]
		st.Zones++
		s.Count++
		s.Zones = append(s.Zones, p.ref)
		s.Min = min(s.Min, p.d)
		s.Max = max(s.Max, p.d)
		s.Total += p.d
		s.SumSq += float64(p.d) * float64(p.d)
	}
	return st
}
