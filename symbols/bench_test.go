package symbols

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Benchmarks: addresses per second on two large binaries (the gotracy
// command, and a generated C++ program with templates at -O2 -g), cold
// (a fresh Resolver: open, index, resolve) and warm (everything cached),
// side by side with binutils addr2line and llvm-symbolizer resolving the same
// addresses in one process each, their printed answers included. Besides
// ns/op each reports addrs/s and cpu-ms/op (user+system CPU, ours or the
// child's), which stays meaningful on a loaded machine.

const benchAddrs = 20000

// benchCacheDir keeps the generated binaries between runs (they take a
// while to compile); the key is a hash of what produced them.
func benchCacheDir(b *testing.B) string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	d = filepath.Join(d, "gotracy-symbols-bench")
	os.MkdirAll(d, 0o755)
	return d
}

func cachedBuild(b *testing.B, key string, run func(out string) error) string {
	b.Helper()
	out := filepath.Join(benchCacheDir(b), key)
	if _, err := os.Stat(out); err == nil {
		return out
	}
	tmp := out + ".tmp"
	if err := run(tmp); err != nil {
		b.Skipf("building %s: %v", key, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		b.Fatal(err)
	}
	return out
}

// gotracyBinary builds the gotracy command. While other packages are
// mid-edit it may not build; then cmd/go stands in (a Go binary of the
// same kind and larger), and the benchmark says so.
func gotracyBinary(b *testing.B) (string, string) {
	b.Helper()
	dir := benchCacheDir(b)
	out := filepath.Join(dir, fmt.Sprintf("gotracy-%d", time.Now().UnixNano()))
	cmd := exec.Command("go", "build", "-o", out, "github.com/gotracy/gotracy/cmd/gotracy")
	if msg, err := cmd.CombinedOutput(); err == nil {
		b.Cleanup(func() { os.Remove(out) })
		return out, "gotracy"
	} else {
		b.Logf("gotracy does not build now (%v: %s); using cmd/go instead", err, firstLine(msg))
	}
	return cachedBuild(b, "cmd-go", func(o string) error {
		return exec.Command("go", "build", "-o", o, "cmd/go").Run()
	}), "cmd-go"
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// cxxSource generates n translation-unit-sized chunks of template-heavy C++.
func cxxSource(n int) string {
	var s strings.Builder
	s.WriteString("#include <map>\n#include <vector>\n#include <string>\n#include <algorithm>\n#include <functional>\n#include <unordered_map>\n#include <sstream>\n#include <memory>\n#include <iostream>\n")
	types := []string{"int", "double", "std::string", "long"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&s, `namespace gen%d {
template <typename T> struct Store {
  std::map<std::string, std::vector<T>> m;
  std::unordered_map<int, T> u;
  void add(const std::string& k, T v) { m[k].push_back(v); u[(int)m.size()] = v; }
  size_t sorted() { size_t n = 0; for (auto& [k, v] : m) { std::sort(v.begin(), v.end()); n += v.size(); } return n; }
  std::string dump() const { std::ostringstream o; for (auto& [k, v] : m) o << k << v.size(); return o.str(); }
};
template <typename T> T make(int x);
template <> int make<int>(int x) { return x; }
template <> double make<double>(int x) { return x * 0.5; }
template <> long make<long>(int x) { return x * 3L; }
template <> std::string make<std::string>(int x) { return std::to_string(x); }
template <typename T> size_t run(int n) {
  auto s = std::make_unique<Store<T>>();
  std::function<T(int)> f = [n](int x) { return make<T>(x * n + %d); };
  for (int i = 0; i < n; i++) s->add("k" + std::to_string(i %% 7), f(i));
  return s->sorted() + s->dump().size();
}
size_t all(int n) { return 0`, i, i)
		for _, t := range types {
			fmt.Fprintf(&s, " + run<%s>(n)", t)
		}
		s.WriteString("; }\n}\n")
	}
	s.WriteString("int main(int argc, char**) { size_t t = 0;\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&s, "  t += gen%d::all(argc);\n", i)
	}
	s.WriteString("  std::cout << t << '\\n'; }\n")
	return s.String()
}

func cxxBinary(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		b.Skip("g++ not installed")
	}
	src := cxxSource(40)
	h := sha256.Sum256([]byte(src))
	key := "cxx-" + hex.EncodeToString(h[:6])
	return cachedBuild(b, key, func(out string) error {
		dir := b.TempDir()
		p := filepath.Join(dir, "gen.cpp")
		os.WriteFile(p, []byte(src), 0o644)
		msg, err := exec.Command("g++", "-O2", "-g", "-std=c++17", "-o", out, p).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, firstLine(msg))
		}
		return nil
	})
}

// sampleAddrs picks n line-table addresses (with repeats when the table is
// smaller), in random order, deterministically.
func sampleAddrs(b *testing.B, bin string, n int) []uint64 {
	all := lineAddrs(b, bin, 0)
	rng := rand.New(rand.NewSource(42))
	out := make([]uint64, n)
	for i := range out {
		out[i] = all[rng.Intn(len(all))]
	}
	return out
}

func reportRate(b *testing.B, n int, cpu time.Duration) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "addrs/s")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// formatResults renders answers as addr2line text (every frame's
// function, file and line), so our side also pays for producing output.
// It appends to reused storage, as a real printer would.
func formatResults(buf *[]byte, res []Result) {
	b := (*buf)[:0]
	for _, r := range res {
		if len(r.Frames) == 0 {
			b = append(b, "??\n??:0\n"...)
		}
		for _, f := range r.Frames {
			b = append(b, f.Function...)
			b = append(b, '\n')
			b = append(b, f.File...)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(f.Line), 10)
			b = append(b, '\n')
		}
	}
	*buf = b
}

func benchBinary(b *testing.B, bin string) {
	addrs := sampleAddrs(b, bin, benchAddrs)
	img := Image{Path: bin}
	reqs := make([]Request, len(addrs))
	for i, a := range addrs {
		reqs[i] = Request{Image: img, Addr: a}
	}
	var input bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&input, "0x%x\n", a)
	}
	var text []byte
	// The -nodemangle runs print mangled names: what the index and the
	// printing cost without the demangler.
	for _, v := range []struct {
		suffix   string
		demangle bool
	}{{"", true}, {"-nodemangle", false}} {
		b.Run("gotracy-cold"+v.suffix, func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuSelf()
			for i := 0; i < b.N; i++ {
				r, _ := New(WithDebugDirs(), WithDemangle(v.demangle))
				formatResults(&text, r.Resolve(context.Background(), reqs))
				r.Close()
			}
			reportRate(b, len(addrs), cpuSelf()-c0)
		})
		b.Run("gotracy-warm"+v.suffix, func(b *testing.B) {
			r, _ := New(WithDebugDirs(), WithDemangle(v.demangle))
			defer r.Close()
			r.Resolve(context.Background(), reqs)
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuSelf()
			for i := 0; i < b.N; i++ {
				formatResults(&text, r.Resolve(context.Background(), reqs))
			}
			reportRate(b, len(addrs), cpuSelf()-c0)
		})
	}
	for _, tool := range []struct {
		name string
		args []string
	}{
		{"addr2line", []string{"-f", "-i", "-C", "-e", bin}},
		{"llvm-symbolizer", []string{"--obj=" + bin, "--inlining", "-C"}},
	} {
		b.Run(tool.name, func(b *testing.B) {
			if _, err := exec.LookPath(tool.name); err != nil {
				b.Skipf("%s not installed", tool.name)
			}
			var out bytes.Buffer
			c0 := cpuChildren()
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(tool.name, tool.args...)
				cmd.Stdin = bytes.NewReader(input.Bytes())
				out.Reset()
				cmd.Stdout = &out
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, len(addrs), cpuChildren()-c0)
		})
	}
}

func BenchmarkResolveGotracyBinary(b *testing.B) {
	bin, what := gotracyBinary(b)
	b.Logf("binary: %s (%s)", bin, what)
	benchBinary(b, bin)
}

func BenchmarkResolveCXX(b *testing.B) {
	bin := cxxBinary(b)
	if st, err := os.Stat(bin); err == nil {
		b.Logf("binary: %s, %d bytes", bin, st.Size())
	}
	benchBinary(b, bin)
}
