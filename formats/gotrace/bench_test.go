package gotrace

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkImport imports the checked-in workload trace (GOTRACY_GOTRACE
// names a bigger one to measure instead).
func BenchmarkImport(b *testing.B) {
	path := "testdata/small.trace"
	if p := os.Getenv("GOTRACY_GOTRACE"); p != "" {
		path = p
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Import(bytes.NewReader(data), ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
