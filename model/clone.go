package model

import (
	"maps"
	"slices"
)

// Clone returns a copy of t that shares no memory t's owner may still
// change, for a reader on another goroutine (a live capture publishes its
// trace to the viewer this way). Every slice and map is copied, nested ones
// too, with three exceptions that are shared because nothing changes them
// once stored: the threads' zone lists (a live capture replaces them with
// [ZoneList.Share]), and the byte payloads of frame images, source files
// and symbol code. Strings are immutable in Go and shared as they are.
func (t *Trace) Clone() *Trace {
	c := *t
	c.Topology = cloneTopology(t.Topology)
	c.FrameSets = slices.Clone(t.FrameSets)
	for i := range c.FrameSets {
		c.FrameSets[i].Frames = slices.Clone(t.FrameSets[i].Frames)
	}
	c.Sections = slices.Clone(t.Sections)
	for i := range c.Sections {
		c.Sections[i].Items = slices.Clone(t.Sections[i].Items)
	}
	c.SectionDescs = slices.Clone(t.SectionDescs)
	c.Strings = slices.Clone(t.Strings)
	c.PtrStrings = maps.Clone(t.PtrStrings)
	c.ThreadNames = maps.Clone(t.ThreadNames)
	c.ExtThreadNames = maps.Clone(t.ExtThreadNames)
	c.ThreadIndex = slices.Clone(t.ThreadIndex)
	c.ExtThreadIndex = slices.Clone(t.ExtThreadIndex)
	c.StaticSrcLocs = maps.Clone(t.StaticSrcLocs)
	c.SrcLocIndex = slices.Clone(t.SrcLocIndex)
	c.DynSrcLocs = slices.Clone(t.DynSrcLocs)
	c.Locks = slices.Clone(t.Locks)
	for i := range c.Locks {
		c.Locks[i].Threads = slices.Clone(t.Locks[i].Threads)
		c.Locks[i].Events = slices.Clone(t.Locks[i].Events)
	}
	c.Messages = slices.Clone(t.Messages)
	c.ZoneExtras = slices.Clone(t.ZoneExtras)
	c.Threads = slices.Clone(t.Threads)
	for i := range c.Threads {
		th := &c.Threads[i]
		th.Messages = slices.Clone(th.Messages)
		th.CtxSwitchSamples = slices.Clone(th.CtxSwitchSamples)
		th.Samples = slices.Clone(th.Samples)
	}
	c.GpuContexts = slices.Clone(t.GpuContexts)
	for i := range c.GpuContexts {
		g := &c.GpuContexts[i]
		g.NoteNames = slices.Clone(g.NoteNames)
		g.Timelines = slices.Clone(g.Timelines)
		for j := range g.Timelines {
			g.Timelines[j].Zones = slices.Clone(g.Timelines[j].Zones)
		}
		g.Notes = slices.Clone(g.Notes)
		for j := range g.Notes {
			g.Notes[j].Notes = slices.Clone(g.Notes[j].Notes)
		}
	}
	c.Plots = slices.Clone(t.Plots)
	for i := range c.Plots {
		c.Plots[i].Points = slices.Clone(t.Plots[i].Points)
	}
	c.MemPools = slices.Clone(t.MemPools)
	for i := range c.MemPools {
		c.MemPools[i].Events = slices.Clone(t.MemPools[i].Events)
	}
	c.CallStackFrames = slices.Clone(t.CallStackFrames)
	c.CallStackOffsets = slices.Clone(t.CallStackOffsets)
	if t.Frames != nil {
		c.Frames = make(map[uint64]FrameData, len(t.Frames))
		for k, f := range t.Frames {
			f.Frames = slices.Clone(f.Frames)
			c.Frames[k] = f
		}
	}
	c.AppInfo = slices.Clone(t.AppInfo)
	c.FrameImageDict = slices.Clone(t.FrameImageDict)
	c.FrameImages = slices.Clone(t.FrameImages)
	c.CtxSwitches = slices.Clone(t.CtxSwitches)
	for i := range c.CtxSwitches {
		c.CtxSwitches[i].Events = slices.Clone(t.CtxSwitches[i].Events)
	}
	for i := range c.CPUData {
		c.CPUData[i] = slices.Clone(t.CPUData[i])
	}
	c.TidToPid = maps.Clone(t.TidToPid)
	c.CPUThreadData = slices.Clone(t.CPUThreadData)
	c.Symbols = slices.Clone(t.Symbols)
	c.SymbolCode = slices.Clone(t.SymbolCode)
	c.CodeSymbols = slices.Clone(t.CodeSymbols)
	c.HwSamples = slices.Clone(t.HwSamples)
	for i := range c.HwSamples {
		for j := range c.HwSamples[i].Times {
			c.HwSamples[i].Times[j] = slices.Clone(t.HwSamples[i].Times[j])
		}
	}
	c.SourceCache = slices.Clone(t.SourceCache)
	return &c
}

func cloneTopology(ps []CPUPackage) []CPUPackage {
	ps = slices.Clone(ps)
	for i := range ps {
		ps[i].Dies = slices.Clone(ps[i].Dies)
		for j := range ps[i].Dies {
			ps[i].Dies[j].Cores = slices.Clone(ps[i].Dies[j].Cores)
			for k := range ps[i].Dies[j].Cores {
				ps[i].Dies[j].Cores[k].Threads = slices.Clone(ps[i].Dies[j].Cores[k].Threads)
			}
		}
	}
	return ps
}
