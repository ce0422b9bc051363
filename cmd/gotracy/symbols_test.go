package main

import (
	"bufio"
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func symbolsTestBinary(t *testing.T) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	src, _ := filepath.Abs("../../symbols/testdata/src/inline.c")
	bin := filepath.Join(t.TempDir(), "prog")
	if out, err := exec.Command("gcc", "-g", "-O2", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	r := d.Reader()
	for {
		e, _ := r.Next()
		if e == nil {
			break
		}
		if lr, _ := d.LineReader(e); lr != nil {
			var le dwarf.LineEntry
			for lr.Next(&le) == nil {
				addrs = append(addrs, fmt.Sprintf("0x%x", le.Address), fmt.Sprintf("%x", le.Address+1))
			}
		}
		r.SkipChildren()
	}
	// Something outside any function, and garbage, as addr2line prints them.
	addrs = append(addrs, "0x10", "zz")
	return bin, addrs
}

// The output must be byte-identical to binutils addr2line, so tools that
// parse addr2line (Tracy's update -a) can use us instead.
func TestSymbolsResolveMatchesAddr2line(t *testing.T) {
	if _, err := exec.LookPath("addr2line"); err != nil {
		t.Skip("addr2line (binutils) not installed")
	}
	bin, addrs := symbolsTestBinary(t)
	for _, flags := range [][]string{{"-a", "-f", "-i", "-C"}, {"-f"}, {"-a", "-i"}, {"-p", "-a", "-f", "-i"}, {"-s", "-f", "-i"}} {
		t.Run(strings.Join(flags, ""), func(t *testing.T) {
			args := append(append([]string{"-e", bin}, flags...), addrs...)
			want, err := exec.Command("addr2line", args...).Output()
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runCLI(t, append([]string{"symbols", "resolve"}, args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if out != string(want) {
				t.Errorf("output differs from addr2line %v:\n%s", flags, lineDiff(out, string(want)))
			}
		})
	}
}

func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "line %d:\n  got  %q\n  want %q\n", i+1, gl, wl)
			if b.Len() > 2000 {
				break
			}
		}
	}
	return b.String()
}

// Without addresses on the command line, addresses come from stdin and each
// answer is flushed before the next line is read (coprocess use).
func TestSymbolsResolveStdinPipe(t *testing.T) {
	bin, addrs := symbolsTestBinary(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &symbolsFlags{exe: bin, functions: true, addresses: true, debugDirs: ""}
	done := make(chan error, 1)
	go func() {
		done <- symbolsResolve(&env{stdout: outW, stderr: io.Discard}, f, nil, inR)
		outW.Close()
	}()
	rd := bufio.NewReader(outR)
	for _, a := range addrs[:5] {
		fmt.Fprintln(inW, a)
		// Blocks forever (test timeout) unless the answer was flushed.
		for i := 0; i < 3; i++ {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 && !strings.HasPrefix(line, "0x0000") {
				t.Fatalf("answer to %s starts with %q", a, line)
			}
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A pipe full of addresses is answered in batches on the Resolver's
// workers; the output is still addr2line's, address for address, for
// more addresses than one batch and one read buffer hold.
func TestSymbolsResolveStdinBatches(t *testing.T) {
	if _, err := exec.LookPath("addr2line"); err != nil {
		t.Skip("addr2line (binutils) not installed")
	}
	bin, addrs := symbolsTestBinary(t)
	var in strings.Builder
	for len(in.String()) < 200<<10 {
		for _, a := range addrs {
			in.WriteString(a + "\n")
		}
	}
	cmd := exec.Command("addr2line", "-e", bin, "-a", "-f", "-i", "-C")
	cmd.Stdin = strings.NewReader(in.String())
	want, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	f := &symbolsFlags{exe: bin, functions: true, addresses: true, inlines: true, demangle: true}
	if err := symbolsResolve(&env{stdout: &out, stderr: io.Discard}, f, nil, strings.NewReader(in.String())); err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("output differs from addr2line:\n%s", lineDiff(out.String(), string(want)))
	}
}

func TestSymbolsUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"symbols"}, {"symbols", "frobnicate"}, {"symbols", "serve"}, {"symbols", "serve", "extra"}} {
		_, e, code := runCLI(t, args...)
		if code != 2 || e == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, e)
		}
	}
	_, e, code := runCLI(t, "symbols", "resolve", "-e", "/no/such/binary", "0x10")
	if code != 1 || !strings.Contains(e, "not found") {
		t.Errorf("missing binary: exit %d, %q", code, e)
	}
}
