package symbolize_test

import (
	"context"
	"fmt"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/symbolize"
	"github.com/gotracy/gotracy/symbols"
)

// Resolve a trace's offline-form frames: what a Tracy client built with
// TRACY_SYMBOL_OFFLINE_RESOLVE leaves for the server. The image here is a
// small MinGW-built DLL checked in with package symbols' tests.
func ExampleTrace() {
	b := model.NewBuilder()
	tr := b.Trace()
	const (
		image = "../symbols/testdata/pe/work.dll"
		base  = 0x7ff600000000 // where the profiled process had loaded it
		rva   = 0x1034         // image-relative address of the call-stack entry
	)
	b.InternCallStack([]uint64{base + rva})
	tr.Frames[base+rva] = model.FrameData{ImageName: b.Intern(image), Frames: []model.InlineFrame{{
		Name: b.Intern(symbolize.UnresolvedName), File: b.Intern(symbolize.UnknownFile), SymAddr: rva}}}

	r, err := symbols.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	rep, err := symbolize.Trace(context.Background(), tr, r, symbolize.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Resolved, "of", rep.Candidates, "frames resolved")
	for _, f := range tr.Frames[base+rva].Frames { // innermost first
		fmt.Printf("%s %s:%d\n", tr.Str(f.Name), tr.Str(f.File), f.Line)
	}
	// Output:
	// 1 of 1 frames resolved
	// sum_squares /tmp/pe/pedll.c:8
	// work /tmp/pe/pedll.c:23
}
