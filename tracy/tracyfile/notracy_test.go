//go:build notracy

package tracyfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gotracy/gotracy/tracy"
	"github.com/gotracy/gotracy/tracy/tracyfile"
)

// TestDisabledBuild: built with notracy, Start and Stop do nothing and no
// file appears, as every tracy call does nothing.
func TestDisabledBuild(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.tracy")
	if err := tracyfile.Start(out); err != nil {
		t.Fatal(err)
	}
	if err := tracy.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a file was written in a notracy build: %v", err)
	}
}
