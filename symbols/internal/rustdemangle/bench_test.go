package rustdemangle

import (
	"testing"

	"github.com/ianlancetaylor/demangle"
)

// BenchmarkAppend demangles every corpus name binutils accepts, once per
// iteration, with this package and, for scale, with the library the
// symbols package used before (which also parses legacy and v0 names,
// printing some differently). SetBytes counts mangled input bytes.
func BenchmarkAppend(b *testing.B) {
	var names []string
	n := 0
	for _, e := range readCorpus(b) {
		if e.Want != e.Name {
			names = append(names, e.Name)
			n += len(e.Name)
		}
	}
	b.Run("rustdemangle", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(n))
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			for _, s := range names {
				buf, _ = Append(buf[:0], s)
			}
		}
	})
	b.Run("IsRust", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(n))
		for b.Loop() {
			for _, s := range names {
				IsRust(s)
			}
		}
	})
	b.Run("ianlancetaylor", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(n))
		for b.Loop() {
			for _, s := range names {
				_ = demangle.Filter(s)
			}
		}
	})
}
