// shortprog is the short program of the tracyfile and exit-wait tests:
// Start, 1,000 zones from a package-level Loc, Stop.
//
//	shortprog file OUT   record with tracyfile.Start into OUT
//	shortprog plain      tracy.Start (configured by TRACY_* variables)
package main

import (
	"fmt"
	"os"

	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/tracy/tracyfile"
)

var workLoc = tracy.NewLoc("work")

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: shortprog file OUT | plain")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "file":
		err = tracyfile.Start(os.Args[2])
	case "plain":
		err = tracy.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shortprog:", err)
		os.Exit(1)
	}
	for i := 0; i < 1000; i++ {
		tracy.Begin(workLoc).End()
	}
	if err := tracy.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "shortprog: stop:", err)
		os.Exit(1)
	}
}
