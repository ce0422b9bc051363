package symbols

import (
	"bufio"
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
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
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		lr, err := d.LineReader(e)
		if err == nil && lr != nil {
			var le dwarf.LineEntry
			for lr.Next(&le) == nil {
				if !le.EndSequence && le.Address != 0 {
					seen[le.Address] = true
				}
			}
		}
		r.SkipChildren()
	}
	var out []uint64
	for a := range seen {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	if max > 0 && len(out) > max {
		thin := make([]uint64, 0, max)
		for i := 0; i < max; i++ {
			thin = append(thin, out[i*len(out)/max])
		}
		out = thin
	}
	return out
}

// refFrame is one frame as an external tool printed it.
type refFrame struct {
	fn, file string
	line     int
}

// addr2line runs binutils addr2line -a -f -i -C over addrs and parses the
// output per address.
func addr2line(t testing.TB, bin string, addrs []uint64) [][]refFrame {
	t.Helper()
	if _, err := exec.LookPath("addr2line"); err != nil {
		t.Skip("addr2line (binutils) not installed")
	}
	var in bytes.Buffer
	for _, a := range addrs {
		in.WriteString("0x" + strconv.FormatUint(a, 16) + "\n")
	}
	cmd := exec.Command("addr2line", "-a", "-f", "-i", "-C", "-e", bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("addr2line: %v", err)
	}
	return parseA2L(t, out, len(addrs))
}

func parseA2L(t testing.TB, out []byte, n int) [][]refFrame {
	var res [][]refFrame
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "0x") {
			t.Fatalf("addr2line output line %d: want address, got %q", i, lines[i])
		}
		i++
		var frames []refFrame
		for i+1 < len(lines)+1 && i < len(lines) && !strings.HasPrefix(lines[i], "0x") {
			fr := refFrame{fn: lines[i]}
			if i+1 < len(lines) {
				fr.file, fr.line = splitFileLine(lines[i+1])
			}
			frames = append(frames, fr)
			i += 2
		}
		res = append(res, frames)
	}
	if len(res) != n {
		t.Fatalf("addr2line answered %d addresses, asked %d", len(res), n)
	}
	return res
}

func splitFileLine(s string) (string, int) {
	if i := strings.Index(s, " (discriminator"); i >= 0 {
		s = s[:i]
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	file := s[:i]
	n, _ := strconv.Atoi(s[i+1:])
	if file == "??" {
		file = ""
	}
	return file, n
}

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
