package sched_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/gotracy/gotracy/formats/gotrace"
	"github.com/gotracy/gotracy/viewer/lod"
	"github.com/gotracy/gotracy/viewer/sched"
)

// BenchmarkWindow answers a full-range window of 1,600 pixels for the
// checked-in workload (GOTRACY_GOTRACE names a bigger Go trace).
func BenchmarkWindow(b *testing.B) {
	path := "../../formats/gotrace/testdata/small.trace"
	if p := os.Getenv("GOTRACY_GOTRACE"); p != "" {
		path = p
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := gotrace.Import(bytes.NewReader(data), gotrace.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ix := sched.Build(tr)
	q := lod.Query{T0: 0, T1: tr.Metadata.LastTime, Width: 1600}
	b.ReportAllocs()
	for b.Loop() {
		ix.Window(tr, q, 1, sched.Filter{})
	}
}
