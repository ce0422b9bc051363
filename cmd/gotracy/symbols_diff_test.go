package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// textAddrs returns n pseudo-random addresses (fixed seed) in bin's .text.
func textAddrs(t testing.TB, bin string, n int) []string {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".text")
	if s == nil || s.Size == 0 {
		t.Fatalf("%s: no .text", bin)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%#x", s.Addr+rng.Uint64N(s.Size))
	}
	return out
}

// answerBlocks splits -a output into one block per address, keyed by the
// address line's value (llvm-symbolizer does not pad it).
func answerBlocks(out string) [][]string {
	var blocks [][]string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(l, "0x") {
			if v, err := strconv.ParseUint(l[2:], 16, 64); err == nil {
				blocks = append(blocks, []string{fmt.Sprintf("%#x", v)})
				continue
			}
		}
		if n := len(blocks); n > 0 {
			blocks[n-1] = append(blocks[n-1], l)
		}
	}
	return blocks
}

func agreement(got, want [][]string) (same int, firstDiffs []string) {
	for i := range want {
		if i < len(got) && strings.Join(got[i], "\n") == strings.Join(want[i], "\n") {
			same++
		} else if len(firstDiffs) < 5 && i < len(got) {
			firstDiffs = append(firstDiffs, "want:\n"+strings.Join(want[i], "\n")+"\ngot:\n"+strings.Join(got[i], "\n"))
		}
	}
	return same, firstDiffs
}

// TestSymbolsResolveBigDifferential compares `symbols resolve -a -f -i -C`
// with binutils addr2line (and reports llvm-symbolizer's agreement) on
// 20,000 random .text addresses of each binary in GOTRACY_SYMBOLS_DIFF
// (colon-separated: large -O2 -g C/C++ builds made outside the repository,
// e.g. a program linking Tracy's TracyClient.cpp, zstd, leveldb). It fails
// when agreement with addr2line is below GOTRACY_SYMBOLS_DIFF_MIN percent
// (default 99.9).
func TestSymbolsResolveBigDifferential(t *testing.T) {
	list := os.Getenv("GOTRACY_SYMBOLS_DIFF")
	if list == "" {
		t.Skip("set GOTRACY_SYMBOLS_DIFF=bin1:bin2 to compare big builds with addr2line")
	}
	if _, err := exec.LookPath("addr2line"); err != nil {
		t.Skip("addr2line (binutils) not installed")
	}
	minPct := 99.9
	if v := os.Getenv("GOTRACY_SYMBOLS_DIFF_MIN"); v != "" {
		var err error
		if minPct, err = strconv.ParseFloat(v, 64); err != nil {
			t.Fatalf("GOTRACY_SYMBOLS_DIFF_MIN=%q: %v", v, err)
		}
	}
	for _, bin := range filepath.SplitList(list) {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			addrs := textAddrs(t, bin, 20000)
			in := strings.Join(addrs, "\n") + "\n"
			tool := func(name string, args ...string) [][]string {
				c := exec.Command(name, args...)
				c.Stdin = strings.NewReader(in)
				out, err := c.Output()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return answerBlocks(string(out))
			}
			want := tool("addr2line", "-a", "-f", "-i", "-C", "-e", bin)
			got := answerBlocks(resolveInput(t, bin, true, in))
			same, diffs := agreement(got, want)
			pct := 100 * float64(same) / float64(len(want))
			t.Logf("%s: %d of %d addresses as addr2line prints them (%.2f%%)", bin, same, len(want), pct)
			if _, err := exec.LookPath("llvm-symbolizer"); err == nil {
				ls := tool("llvm-symbolizer", "--output-style=GNU", "-a", "-f", "-i", "-C", "--obj="+bin)
				lsame, _ := agreement(got, ls)
				asame, _ := agreement(ls, want)
				t.Logf("%s: llvm-symbolizer agrees with us on %.2f%%, with addr2line on %.2f%%", bin,
					100*float64(lsame)/float64(len(ls)), 100*float64(asame)/float64(len(want)))
			}
			if pct < minPct {
				t.Errorf("agreement %.2f%% < %.2f%%; first differences:\n%s", pct, minPct, strings.Join(diffs, "\n---\n"))
			}
		})
	}
}

// resolveInput runs `symbols resolve -f -i -C -e bin` (with -a when
// addresses) on stdin in.
func resolveInput(t testing.TB, bin string, addresses bool, in string) string {
	t.Helper()
	var out bytes.Buffer
	f := &symbolsFlags{exe: bin, functions: true, addresses: addresses, inlines: true, demangle: true}
	if err := symbolsResolve(&env{stdout: &out, stderr: io.Discard}, f, nil, strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// BenchmarkSymbolsResolveFresh times fresh processes resolving the same
// addresses, interleaved in each iteration: the built gotracy, binutils
// addr2line and llvm-symbolizer (those installed). The binary is
// GOTRACY_SYMBOLS_BENCH_BIN, else the checked-in symbols/testdata/
// a2l-gcc.elf; addresses are 20,000 random .text addresses. Reported:
// wall and CPU (user+sys) milliseconds per run of each tool and the ratios
// of the others' to ours.
func BenchmarkSymbolsResolveFresh(b *testing.B) {
	bin := os.Getenv("GOTRACY_SYMBOLS_BENCH_BIN")
	if bin == "" {
		bin, _ = filepath.Abs("../../symbols/testdata/a2l-gcc.elf")
	}
	exe := filepath.Join(b.TempDir(), "gotracy")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	in := strings.Join(textAddrs(b, bin, 20000), "\n") + "\n"
	tools := [][]string{{exe, "symbols", "resolve", "-f", "-i", "-C", "-e", bin}}
	names := []string{"gotracy"}
	if _, err := exec.LookPath("addr2line"); err == nil {
		tools, names = append(tools, []string{"addr2line", "-f", "-i", "-C", "-e", bin}), append(names, "addr2line")
	}
	if _, err := exec.LookPath("llvm-symbolizer"); err == nil {
		tools, names = append(tools, []string{"llvm-symbolizer", "-f", "-i", "-C", "--obj=" + bin}), append(names, "llvm-symbolizer")
	}
	wall := make([]time.Duration, len(tools))
	cpu := make([]time.Duration, len(tools))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, tl := range tools {
			c := exec.Command(tl[0], tl[1:]...)
			c.Stdin = strings.NewReader(in)
			start := time.Now()
			if err := c.Run(); err != nil {
				b.Fatalf("%s: %v", names[k], err)
			}
			wall[k] += time.Since(start)
			cpu[k] += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		}
	}
	for k, n := range names {
		b.ReportMetric(float64(wall[k].Microseconds())/1e3/float64(b.N), n+"-wall-ms/op")
		b.ReportMetric(float64(cpu[k].Microseconds())/1e3/float64(b.N), n+"-cpu-ms/op")
		if k > 0 {
			b.ReportMetric(float64(wall[k])/float64(wall[0]), n+"/gotracy-wall")
			b.ReportMetric(float64(cpu[k])/float64(cpu[0]), n+"/gotracy-cpu")
		}
	}
}

// BenchmarkSymbolsResolveInProcess is the gotracy half of the above in
// this process: a new Resolver each iteration (open, index, resolve, print).
func BenchmarkSymbolsResolveInProcess(b *testing.B) {
	bin := os.Getenv("GOTRACY_SYMBOLS_BENCH_BIN")
	if bin == "" {
		bin, _ = filepath.Abs("../../symbols/testdata/a2l-gcc.elf")
	}
	in := strings.Join(textAddrs(b, bin, 20000), "\n") + "\n"
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		resolveInput(b, bin, false, in)
	}
}
