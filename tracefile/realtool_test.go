package tracefile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
)

// TestRealCsvexportReadsOurFiles loads files we write (Zstd with one
// checksummed frame per chunk, at several levels and stream counts, and
// LZ4) with a real Tracy 0.14.0 tracy-csvexport, named by
// $GOTRACY_TRACY_CSVEXPORT, and requires its output to be the fixture's
// demo.csv byte for byte. The tool is not part of the repository.
func TestRealCsvexportReadsOurFiles(t *testing.T) {
	tool := os.Getenv("GOTRACY_TRACY_CSVEXPORT")
	if tool == "" {
		t.Skip("GOTRACY_TRACY_CSVEXPORT not set (path to a Tracy 0.14.0 tracy-csvexport); skipping the real-tool check")
	}
	want, err := os.ReadFile(fixtures.Path(t, "demo.csv"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ReadFile(fixtures.Path(t, "demo.tracy"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"zstd1-1", []Option{WithZstd(1), WithStreams(1)}},
		{"zstd3-4", nil},
		{"zstd19-255", []Option{WithZstd(19), WithStreams(255)}},
		{"zstd22-2", []Option{WithZstd(22), WithStreams(2)}},
		{"lz4-4", []Option{WithLZ4()}},
	} {
		p := filepath.Join(dir, c.name+".tracy")
		if err := WriteFile(p, tr, c.opts...); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		cmd := exec.Command(tool, p)
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v: %s", c.name, err, errb.String())
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: csvexport output differs from demo.csv:\n%s", c.name, firstLines(out.Bytes(), 5))
		}
	}
}

func firstLines(b []byte, n int) string {
	lines := bytes.SplitN(b, []byte("\n"), n+1)
	return string(bytes.Join(lines[:min(n, len(lines))], []byte("\n")))
}
