package tracefile_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// Write a small trace to a buffer, read it back as a real Tracy tool would
// load the file, and walk each thread's zone tree.
func Example() {
	b := model.NewBuilder()
	b.Trace().Metadata.CaptureProgram = "example"
	update := b.AddDynSrcLoc(model.SourceLocation{
		Name: model.IdxRef(b.Intern("update")), Function: model.IdxRef(b.Intern("main.update")),
		File: model.IdxRef(b.Intern("main.go")), Line: 12})
	physics := b.AddDynSrcLoc(model.SourceLocation{
		Name: model.IdxRef(b.Intern("physics")), Function: model.IdxRef(b.Intern("main.physics")),
		File: model.IdxRef(b.Intern("main.go")), Line: 30})

	b.SetThreadName(1, "main")
	th := b.Thread(1)
	for frame := int64(0); frame < 2; frame++ {
		t0 := 1000 + frame*16_000_000 // nanoseconds
		b.BeginZone(th, t0, update)
		b.BeginZone(th, t0+1_000, physics)
		b.EndZone(th, t0+5_000_000)
		b.EndZone(th, t0+9_000_000)
		b.FrameMark(0, t0+16_000_000)
	}

	var file bytes.Buffer
	if err := tracefile.Write(&file, b.Finish()); err != nil {
		fmt.Println(err)
		return
	}
	tr, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}

	fmt.Println("program:", tr.Metadata.CaptureProgram)
	for _, thr := range tr.Threads {
		fmt.Printf("thread %q:\n", tr.ThreadName(thr.ID))
		model.Walk(&thr.Zones, func(i, depth int) bool {
			z := thr.Zones.At(i)
			fmt.Printf("%s%s %.1f ms\n", strings.Repeat("  ", depth+1), tr.ZoneName(z), float64(z.Duration())/1e6)
			return true
		})
	}
	// Output:
	// program: example
	// thread "main":
	//   update 9.0 ms
	//     physics 5.0 ms
	//   update 9.0 ms
	//     physics 5.0 ms
}
