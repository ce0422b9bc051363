package tracefile

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
)

// BenchmarkSaveHeavy10m is what `gotracy save` does with heavy10m.tracy
// (tracy-update's job with its defaults): load the file, write it again
// with Zstd level 3 in 4 streams. SetBytes counts payload bytes.
func BenchmarkSaveHeavy10m(b *testing.B) {
	path := fixtures.Path(b, "heavy10m.tracy")
	out := filepath.Join(b.TempDir(), "saved.tracy")
	b.ReportAllocs()
	var rep Report
	for b.Loop() {
		t, err := ReadFile(path, WithReport(&rep))
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteFile(out, t); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(rep.PayloadBytes)
}

// BenchmarkWriteHeavy10mCodec writes the loaded heavy10m trace (10M tiny
// zones, a flight recorder's kind of window) to a discarding writer with
// the default Zstd level 3 and with LZ4, both in 4 streams: what a
// snapshot's codec costs while the capture goes on.
func BenchmarkWriteHeavy10mCodec(b *testing.B) {
	t, err := ReadFile(fixtures.Path(b, "heavy10m.tracy"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  Option
	}{{"zstd3", nil}, {"lz4", WithLZ4()}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var rep Report
			for b.Loop() {
				if err := Write(io.Discard, t, c.opt, WithReport(&rep)); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(rep.PayloadBytes)
		})
	}
}
