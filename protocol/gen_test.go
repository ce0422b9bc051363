package protocol

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate regenerates the encoders from Specs and compares
// them with the checked-in files, so the table and the encoders cannot
// drift apart.
func TestGeneratedUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	dir := t.TempDir()
	out, err := exec.Command(goTool, "run", "./internal/genappend", "-o", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("generator: %v\n%s", err, out)
	}
	for _, name := range []string{"append_gen.go", "append_gen_test.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate in protocol", name)
		}
	}
}
