package tracefile

import (
	"bytes"
	"testing"

	"github.com/gotracy/gotracy/model"
)

func withWriteVersion(v uint32) Option { return func(o *options) { o.version = v } }

// expectAt is what a trace written in the layout of version v reads back
// as: the fields that layout lacks take the loader's defaults.
func expectAt(t *model.Trace, v uint32) {
	if v < ver(0, 9, 2) {
		t.Metadata.OnDemand = t.Metadata.FrameOffset != 0
	}
	if v < ver(0, 11, 2) {
		for i := range t.Topology {
			var all model.CPUDie
			for _, d := range t.Topology[i].Dies {
				all.Cores = append(all.Cores, d.Cores...)
			}
			t.Topology[i].Dies = []model.CPUDie{all}
		}
	}
	switch {
	case v < ver(0, 13, 4):
		t.Sections, t.SectionDescs = nil, nil
	case v == ver(0, 13, 4):
		var all model.SectionCategory
		for _, c := range t.Sections {
			all.Items = append(all.Items, c.Items...)
		}
		t.Sections, t.SectionDescs = nil, nil
		if len(all.Items) > 0 {
			t.Sections = []model.SectionCategory{all}
		}
	}
	if v < ver(0, 13, 2) {
		for i := range t.Messages {
			t.Messages[i].Source, t.Messages[i].Severity = model.MsgSourceUser, model.SeverityInfo
		}
	}
	if v < ver(0, 11, 1) {
		for i := range t.Threads {
			t.Threads[i].GroupHint = 0
		}
	}
	if v < ver(0, 12, 4) {
		for i := range t.GpuContexts {
			c := &t.GpuContexts[i]
			c.NoteNames, c.Notes = nil, nil
			for _, tl := range c.Timelines {
				for j := range tl.Zones {
					tl.Zones[j].QueryID = 0
				}
			}
		}
	}
	if v < ver(0, 11, 3) {
		for i := range t.CtxSwitches {
			for j := range t.CtxSwitches[i].Events {
				e := &t.CtxSwitches[i].Events[j]
				e.WakeupCPU = e.CPU
			}
		}
	}
}

// TestOlderVersions writes the layouts of every older version the 0.14.0
// loader accepts, at each version where the layout changes, and checks the reader takes the
// right branch for each.
func TestOlderVersions(t *testing.T) {
	versions := []uint32{
		ver(0, 9, 0), ver(0, 9, 1), ver(0, 9, 2), ver(0, 10, 0), ver(0, 11, 0), ver(0, 11, 1), ver(0, 11, 2),
		ver(0, 11, 3), ver(0, 12, 2), ver(0, 12, 3), ver(0, 12, 4), ver(0, 13, 1), ver(0, 13, 2),
		ver(0, 13, 3), ver(0, 13, 4), ver(0, 13, 5), ver(0, 13, 6), Version,
	}
	for _, v := range versions {
		t.Run(VersionString(v), func(t *testing.T) {
			tr := genTrace(11, 3000)
			tr.Metadata.FrameOffset = 5 // shows in OnDemand before 0.9.2
			var buf bytes.Buffer
			if err := WritePayload(&buf, tr, withWriteVersion(v)); err != nil {
				t.Fatal(err)
			}
			var rep Report
			got, err := ReadPayload(bytes.NewReader(buf.Bytes()), int64(buf.Len()), WithReport(&rep))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Version != v {
				t.Errorf("report says version %s", VersionString(rep.Version))
			}
			expectAt(tr, v)
			if d := diffTraces(tr, got); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestOldUnsortedSorted: before 0.13.3 plot points, and before 0.13.6
// context-switch samples, may be unsorted; the loader sorts them.
func TestOldUnsortedSorted(t *testing.T) {
	tr := genTrace(12, 10)
	pl := &tr.Plots[0]
	pl.Points[0], pl.Points[1] = pl.Points[1], pl.Points[0]
	th := &tr.Threads[0]
	th.CtxSwitchSamples[0], th.CtxSwitchSamples[2] = th.CtxSwitchSamples[2], th.CtxSwitchSamples[0]
	for _, c := range []struct {
		v                   uint32
		plotsSorted, sorted bool
	}{{ver(0, 13, 2), true, true}, {ver(0, 13, 5), false, true}, {Version, false, false}} {
		var buf bytes.Buffer
		if err := WritePayload(&buf, tr, withWriteVersion(c.v)); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPayload(bytes.NewReader(buf.Bytes()), -1)
		if err != nil {
			t.Fatal(err)
		}
		ps := got.Plots[0].Points
		if (ps[0].Time < ps[1].Time) != c.plotsSorted {
			t.Errorf("%s: plot points sorted = %v", VersionString(c.v), !c.plotsSorted)
		}
		cs := got.Threads[0].CtxSwitchSamples
		if (cs[0].Time < cs[2].Time) != c.sorted {
			t.Errorf("%s: context-switch samples sorted = %v", VersionString(c.v), !c.sorted)
		}
	}
}
