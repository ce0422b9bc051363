package symbols

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gotracy/gotracy/internal/symtest"
)

// Test binaries are compiled once per test process into workDir; each
// builder skips (with the reason) when its tool is missing.
var (
	workDir  string
	buildMu  sync.Mutex
	built    = map[string]string{}
	buildErr = map[string]error{}
)

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "symbols-test-")
	if err != nil {
		panic(err)
	}
	workDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

func srcPath(t testing.TB, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", "src", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// build runs a command once per key and returns the output path.
func build(t testing.TB, key, tool string, argsFor func(out string) []string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[key]; ok {
		return p
	}
	if err, ok := buildErr[key]; ok {
		t.Skipf("building %s failed earlier: %v", key, err)
	}
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s not installed: cannot build %s", tool, key)
	}
	out := filepath.Join(workDir, key)
	cmd := exec.Command(tool, argsFor(out)...)
	cmd.Dir = workDir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		buildErr[key] = err
		t.Fatalf("%s %v: %v\n%s", tool, cmd.Args, err, b)
	}
	built[key] = out
	return out
}

// cBinary compiles a C or C++ source with the given flags. Source paths are
// mapped to /src so outputs (and golden files) do not depend on the temp dir.
func cBinary(t testing.TB, key, compiler, src string, flags ...string) string {
	return build(t, key, compiler, func(out string) []string {
		args := append([]string{"-g", "-fdebug-prefix-map=" + filepath.Dir(srcPath(t, src)) + "=/src"}, flags...)
		return append(args, "-o", out, srcPath(t, src))
	})
}

func goSrcDir(t testing.TB) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	dir := filepath.Join(workDir, "goprog-src")
	if _, err := os.Stat(dir); err != nil {
		os.MkdirAll(dir, 0o755)
		b, err := os.ReadFile(srcPath(t, "goprog.go.txt"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "main.go"), b, 0o644)
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/goprog\n\ngo 1.22\n"), 0o644)
	}
	return dir
}

func goBinary(t testing.TB, key string, ldflags string) string {
	t.Helper()
	dir := goSrcDir(t)
	return build(t, key, "go", func(out string) []string {
		args := []string{"build", "-C", dir, "-trimpath=false", "-o", out}
		if ldflags != "" {
			args = append(args, "-ldflags="+ldflags)
		}
		return append(args, ".")
	})
}

func runTool(t testing.TB, name string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed", name)
	}
	if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, b)
	}
}

// lineAddrs returns the distinct addresses of the binary's DWARF line rows,
// read with debug/dwarf directly (independently of our index), thinned to
// at most max evenly spaced ones.
func lineAddrs(t testing.TB, path string, max int) []uint64 {
	return symtest.LineAddrs(t, path, max)
}

// refFrame is one frame as an external tool printed it.
type refFrame struct {
	fn, file string
	line     int
}

// addr2line runs binutils addr2line -a -f -i -C over addrs and returns the
// frames of each address.
func addr2line(t testing.TB, bin string, addrs []uint64) [][]refFrame {
	t.Helper()
	var res [][]refFrame
	for _, levels := range symtest.Addr2Line(t, bin, addrs) {
		frames := make([]refFrame, len(levels))
		for i, f := range levels {
			frames[i] = refFrame{fn: f.Function, file: f.File, line: f.Line}
		}
		res = append(res, frames)
	}
	return res
}

func splitFileLine(s string) (string, int) { return symtest.SplitFileLine(s) }

// ours renders a Result the way addr2line would name things.
func ours(res Result) []refFrame {
	if len(res.Frames) == 0 {
		return []refFrame{{fn: "??"}}
	}
	var out []refFrame
	for _, f := range res.Frames {
		fn := f.Function
		if fn == "" {
			fn = "??"
		}
		out = append(out, refFrame{fn: fn, file: f.File, line: f.Line})
	}
	return out
}

// parseFuzzBytes decodes a one-value "go test fuzz v1" []byte corpus file.
func parseFuzzBytes(b []byte) ([]byte, error) {
	s := string(b)
	const pre = "go test fuzz v1\n[]byte("
	if !strings.HasPrefix(s, pre) {
		return nil, os.ErrInvalid
	}
	s = strings.TrimSpace(strings.TrimPrefix(s, pre))
	s = strings.TrimSuffix(s, ")")
	v, err := strconv.Unquote(s)
	return []byte(v), err
}
