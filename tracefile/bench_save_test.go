package tracefile

import (
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
