package model_test

import (
	"fmt"

	"github.com/gotracy/gotracy/model"
)

// Build a zone tree with a Builder and walk it: zones are stored in
// depth-first order, and Children finds a zone's direct children.
func ExampleChildren() {
	b := model.NewBuilder()
	loc := func(name string) model.SrcLocID {
		return b.AddDynSrcLoc(model.SourceLocation{Name: model.IdxRef(b.Intern(name))})
	}
	frame, update, physics, render := loc("frame"), loc("update"), loc("physics"), loc("render")
	th := b.Thread(1)
	b.BeginZone(th, 0, frame)
	b.BeginZone(th, 10, update)
	b.BeginZone(th, 20, physics)
	b.EndZone(th, 50)
	b.EndZone(th, 60)
	b.BeginZone(th, 70, render)
	b.EndZone(th, 90)
	b.EndZone(th, 100)
	tr := b.Finish()

	zones := &tr.Threads[0].Zones
	for root := range model.Roots(zones) {
		fmt.Println(tr.ZoneName(zones.At(root)), "self", model.SelfTime(zones, root), "ns")
		for c := range model.Children(zones, root) {
			fmt.Println("  child", tr.ZoneName(zones.At(c)), zones.At(c).Duration(), "ns")
		}
	}
	// Output:
	// frame self 30 ns
	//   child update 50 ns
	//   child render 20 ns
}
