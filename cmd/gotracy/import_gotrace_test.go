package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/tracefile"
)

// TestImportGoTraceCLI: a Go execution trace is recognised by its header
// (whatever its name), and a truncated one is saved with what was decoded
// and still fails with one line saying so.
func TestImportGoTraceCLI(t *testing.T) {
	data, err := os.ReadFile("../../formats/gotrace/testdata/small.trace")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "trace.out")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.tracy")
	so, se, code := runCLI(t, "import", in, "-o", out)
	if code != 0 {
		t.Fatalf("import: exit %d, %s", code, se)
	}
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if tr.ZoneCount() == 0 || len(tr.CtxSwitches) == 0 || !strings.Contains(so, "zones") {
		t.Errorf("imported %d zones, %d context-switch threads; stdout %q", tr.ZoneCount(), len(tr.CtxSwitches), so)
	}

	cut := filepath.Join(dir, "cut.bin")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, se, code = runCLI(t, "import", cut, "-o", filepath.Join(dir, "cut.tracy"))
	if code != 1 || !strings.Contains(se, "malformed Go execution trace") || strings.Count(strings.TrimSpace(se), "\n") != 0 {
		t.Errorf("truncated import: exit %d, stderr %q; want 1 and one line", code, se)
	}
}
