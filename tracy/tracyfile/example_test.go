//go:build !notracy

package tracyfile_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/tracy/tracyfile"
)

var stepLoc = tracy.NewLoc("step")

// A program records its own profile into a file: tracyfile.Start at the
// beginning, tracy.Stop at the end. Reading the file back here (with the
// tracefile package) shows what it holds.
func Example() {
	dir, err := os.MkdirTemp("", "tracyfile-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.tracy")

	if err := tracyfile.Start(path, tracy.WithProgramName("example")); err != nil {
		log.Fatal(err)
	}
	for frame := 0; frame < 3; frame++ {
		tracy.Begin(stepLoc).End()
		tracy.FrameMark()
	}
	if err := tracy.Stop(); err != nil { // delivers everything, writes run.tracy
		log.Fatal(err)
	}

	tr, err := tracefile.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("program:", tr.Metadata.CaptureProgram)
	fmt.Println("zones:", tr.ZoneCount())
	fmt.Println("frames:", len(tr.FrameSets[0].Frames)-2) // the capture adds two
	// Output:
	// program: example
	// zones: 3
	// frames: 3
}
