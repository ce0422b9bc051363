package tracy_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoServerCodeInClient: a program importing only tracy links none of
// the server side (capture, trace model, file formats, symbols); those
// come only with tracy/tracyfile.
func TestNoServerCodeInClient(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool for go list")
	}
	for _, tags := range []string{"", "notracy"} {
		out, err := exec.Command(goTool, "list", "-tags="+tags, "-deps", "github.com/gotracy/gotracy/tracy").CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 2 {
			t.Fatalf("go list gave %q", out)
		}
		const mod = "github.com/gotracy/gotracy/"
		for _, d := range deps {
			if strings.HasPrefix(d, "golang.org/x/exp") || d == "runtime/trace" {
				t.Errorf("tags %q: tracy depends on %s (only tracy/goruntime may)", tags, d)
			}
			if !strings.HasPrefix(d, mod) {
				continue
			}
			switch strings.TrimPrefix(d, mod) {
			case "tracy", "protocol", "texture":
			default:
				t.Errorf("tags %q: tracy depends on %s", tags, d)
			}
		}
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/gotracy/gotracy/tracy/tracyfile").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "github.com/gotracy/gotracy/capture\n") {
		t.Errorf("tracyfile does not bring the capture: the check above proves nothing")
	}
	out, err = exec.Command(goTool, "list", "-deps", "github.com/gotracy/gotracy/tracy/goruntime").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "golang.org/x/exp/trace\n") {
		t.Errorf("goruntime does not bring golang.org/x/exp/trace: the check above proves nothing")
	}
}
