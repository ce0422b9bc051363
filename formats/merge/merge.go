// Package merge combines several traces into one, as Tracy 0.14's
// tracy-merge does: the zones, messages and plots of every input, each
// input's threads kept apart by its process id and named after its program.
package merge

import (
	"fmt"
	"strconv"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/formats/internal/tracyimport"
	"github.com/gotracy/gotracy/model"
)

// Merger collects inputs one at a time, so only one loaded trace need be
// in memory besides the merged records.
type Merger struct {
	in     *tracyimport.Input
	n      int
	name   string
	first  string
	inputs []input
	plots  []plot
}

type input struct {
	pid     uint64
	process string
	threads []thread // every thread with a zone or a message
}

type thread struct {
	tid  uint64 // original id
	name string
}

type plot struct {
	input  int
	name   string
	format uint8
	points []model.PlotPoint
}

// New returns an empty Merger.
func New() *Merger { return &Merger{in: tracyimport.NewInput()} }

// Add merges t with every time moved by offset ns. The input's process id
// is its capture's (tracy-merge uses 0xFFFE0000|index for a trace without
// one); its threads become pid<<32 | (tid & 0xFFFFFFFF).
func (m *Merger) Add(t *model.Trace, offset int64) error {
	idx := m.n
	m.n++
	pid := t.Metadata.PID
	if pid == 0 {
		pid = 0xFFFE0000 | uint64(idx)
	}
	process := t.Metadata.CaptureProgram
	if process == "" {
		process = "unknown"
	}
	if idx == 0 {
		m.name, m.first = t.Metadata.CaptureName, process
	}
	at := func(ns int64) (uint64, error) {
		v := ns + offset
		if v < 0 || (offset > 0 && v < ns) {
			return 0, fmt.Errorf("input %d: time %d ns with offset %d ns is outside 0..2^63 ns", idx+1, ns, offset)
		}
		return uint64(v), nil
	}
	in := m.in
	seen := map[uint64]bool{}
	var threads []thread
	see := func(tid uint64) {
		if !seen[tid] {
			seen[tid] = true
			name := t.ThreadName(tid)
			if name == "" {
				name = strconv.FormatUint(tid, 10)
			}
			threads = append(threads, thread{tid, name})
		}
	}
	encode := func(tid uint64) uint64 { return tid&0xFFFFFFFF | pid<<32 }

	slt := model.NewSrcLocTable(t)
	locs := map[model.SrcLocID]uint32{}
	for ti := range t.Threads {
		th := &t.Threads[ti]
		if th.Zones.Len() > 0 {
			see(th.ID)
		}
		tid := encode(th.ID)
		// Begins and ends in time order, per thread: the build's sort by
		// time keeps this order for equal times, so nesting survives
		// (tracy-merge's unstable sort can swap a parent and a child that
		// begin together).
		var ends []int
		var endAt []int64
		closeTo := func(zi int) error {
			for len(ends) > 0 && zi >= ends[len(ends)-1] {
				if e := endAt[len(endAt)-1]; e >= 0 {
					ts, err := at(e)
					if err != nil {
						return err
					}
					in.AddZones(tracyimport.Zone{Tid: tid, Ts: ts})
				}
				ends, endAt = ends[:len(ends)-1], endAt[:len(endAt)-1]
			}
			return nil
		}
		for zi, z := range th.Zones.All() {
			if err := closeTo(zi); err != nil {
				return err
			}
			loc, ok := locs[z.SrcLoc]
			if !ok {
				sl, _ := slt.Get(z.SrcLoc)
				loc = in.Location(tracyimport.Loc{
					Name: in.InternString(t.SrcLocName(sl)),
					File: in.InternString(t.RefString(sl.File)),
					Line: sl.Line,
				})
				locs[z.SrcLoc] = loc
			}
			var text uint32
			if ex := z.Extra(); ex != 0 && int(ex) < len(t.ZoneExtras) {
				text = in.InternString(t.Str(t.ZoneExtras[ex].Text))
			}
			ts, err := at(z.Start())
			if err != nil {
				return err
			}
			in.AddZones(tracyimport.Zone{Tid: tid, Ts: ts, Loc: loc, Text: text})
			ends = append(ends, th.Zones.NextOf(z))
			endAt = append(endAt, z.End())
		}
		if err := closeTo(th.Zones.Len()); err != nil {
			return err
		}
	}
	for i := range t.Messages {
		msg := &t.Messages[i]
		tid := t.LocalThread(msg.Thread)
		see(tid)
		ts, err := at(msg.Time)
		if err != nil {
			return err
		}
		in.Messages = append(in.Messages, tracyimport.Message{Tid: encode(tid), Ts: ts, Text: in.InternString(t.RefString(msg.Text)), Seq: uint32(len(in.Messages))})
	}
	// Every plot Tracy holds after loading, memory plots (rebuilt from the
	// pools' events) first, as tracy-merge reads them from its Worker.
	plots := analysis.PlotsInTracyOrder(t)
	for i := range plots {
		p := &plots[i]
		name, ok := t.PtrString(p.Name)
		if !ok {
			name = "???"
		}
		pts := make([]model.PlotPoint, len(p.Points))
		for j, pt := range p.Points {
			ts, err := at(pt.Time)
			if err != nil {
				return err
			}
			pts[j] = model.PlotPoint{Time: int64(ts), Value: pt.Value}
		}
		if len(pts) > 0 {
			m.plots = append(m.plots, plot{input: idx, name: name, format: p.Format, points: pts})
		}
	}
	m.inputs = append(m.inputs, input{pid: pid, process: process, threads: threads})
	return nil
}

// Finish builds the merged trace; it fails when the offsets push zone
// times past Tracy's 48-bit range. Thread and plot names get their
// program's name in front ("prog/worker-0"), and its pid too
// ("prog[123]/worker-0") when that program/name pair occurs more than
// once among the inputs.
func (m *Merger) Finish() (*model.Trace, error) {
	in := m.in
	type key struct{ process, name string }
	threadCount := map[key]int{}
	for _, i := range m.inputs {
		for _, th := range i.threads {
			threadCount[key{i.process, th.name}]++
		}
	}
	plotCount := map[key]int{}
	for _, p := range m.plots {
		plotCount[key{m.inputs[p.input].process, p.name}]++
	}
	label := func(i input, name string, counts map[key]int) string {
		if counts[key{i.process, name}] > 1 {
			return i.process + "[" + strconv.FormatUint(i.pid, 10) + "]/" + name
		}
		return i.process + "/" + name
	}
	for _, i := range m.inputs {
		for _, th := range i.threads {
			in.ThreadNames[th.tid&0xFFFFFFFF|i.pid<<32] = label(i, th.name, threadCount)
		}
	}
	for _, p := range m.plots {
		// Each input plot stays its own plot, even when two end up with one
		// name (tracy-merge keeps them apart too).
		in.Plots = append(in.Plots, tracyimport.Plot{Name: label(m.inputs[p.input], p.name, plotCount), Format: p.format, Points: p.points})
	}
	return tracyimport.Build(in, tracyimport.Options{CaptureName: m.name, CaptureProgram: m.first + " (merged)", NoShift: true, Statistics: true})
}
