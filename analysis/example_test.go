package analysis_test

import (
	"fmt"
	"os"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/model"
)

// smallTrace is two frames of a game loop on one thread: update (with a
// nested physics zone) and render. A real program would load its trace with
// tracefile.ReadFile or take it from a capture.
func smallTrace() *model.Trace {
	b := model.NewBuilder()
	loc := func(name string, line uint32) model.SrcLocID {
		return b.AddDynSrcLoc(model.SourceLocation{
			Name: model.IdxRef(b.Intern(name)), Function: model.IdxRef(b.Intern("main." + name)),
			File: model.IdxRef(b.Intern("main.go")), Line: line})
	}
	update, physics, render := loc("update", 10), loc("physics", 20), loc("render", 30)
	th := b.Thread(1)
	for i, work := range []int64{3_000_000, 5_000_000} { // physics takes 3 ms, then 5 ms
		t := int64(i) * 16_000_000
		b.BeginZone(th, t, update)
		b.BeginZone(th, t+500_000, physics)
		b.EndZone(th, t+500_000+work)
		b.EndZone(th, t+1_000_000+work)
		b.BeginZone(th, t+8_000_000, render)
		b.EndZone(th, t+12_000_000)
		b.FrameMark(0, t+16_000_000)
	}
	return b.Finish()
}

// Statistics per source location, as Tracy's statistics view and
// tracy-csvexport show them.
func ExampleComputeZoneStats() {
	tr := smallTrace()
	st := analysis.ComputeZoneStats(tr, analysis.StatsOptions{})
	for _, s := range st.Locations {
		sl, _ := tr.SrcLoc(s.SrcLoc)
		fmt.Printf("%-8s n=%d total=%s mean=%s min=%s max=%s self=%s\n", tr.SrcLocName(sl), s.Count,
			analysis.FormatTime(s.Total), analysis.FormatTime(s.Mean()),
			analysis.FormatTime(s.Min), analysis.FormatTime(s.Max), analysis.FormatTime(s.SelfTotal))
	}
	// Output:
	// physics  n=2 total=8 ms mean=4 ms min=3 ms max=5 ms self=8 ms
	// update   n=2 total=10 ms mean=5 ms min=4 ms max=6 ms self=2 ms
	// render   n=2 total=8 ms mean=4 ms min=4 ms max=4 ms self=8 ms
}

// WriteCSV prints what tracy-csvexport prints for the same trace; the
// options are its switches. Rows come in the real tool's order, which is
// not sorted.
func ExampleWriteCSV() {
	if err := analysis.WriteCSV(os.Stdout, smallTrace(), analysis.CSVOptions{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// name,src_file,src_line,total_ns,total_perc,counts,mean_ns,min_ns,max_ns,std_ns
	// physics,main.go,20,8000000,25.000000,2,4000000,3000000,5000000,1414213.562373
	// update,main.go,10,10000000,31.250000,2,5000000,4000000,6000000,1414213.562373
	// render,main.go,30,8000000,25.000000,2,4000000,4000000,4000000,0.000000
}
