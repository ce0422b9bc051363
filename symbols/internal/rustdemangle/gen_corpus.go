//go:build ignore

// gen_corpus collects the names of testdata/corpus.txt.gz: every Rust
// symbol of ../../testdata/src/rustprog.rs and testdata/shapes.rs, each
// built with both manglings, a
// deterministic sample of the v0 names exported by rustc's
// librustc_driver, and deterministic mutations of those names (to cover
// error paths). It writes the names with empty expectations; then
//
//	go test -run TestCorpus -update
//
// fills in what c++filt prints. Run from this directory:
//
//	go run gen_corpus.go
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

const (
	driverSample = 4000
	mutations    = 3000
)

func main() {
	tmp, err := os.MkdirTemp("", "rustcorpus")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	home, _ := os.UserHomeDir()
	rustc := filepath.Join(home, ".cargo/bin/rustc")
	var names []string
	for _, src := range []string{"../../testdata/src/rustprog.rs", "testdata/shapes.rs"} {
		for _, m := range []string{"legacy", "v0"} {
			bin := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(src), ".rs")+"-"+m)
			run(rustc, "-g", "-C", "symbol-mangling-version="+m, "-Z", "unstable-options", "-o", bin, src)
			names = append(names, rustNames(run("nm", bin))...)
		}
	}
	drivers, _ := filepath.Glob(filepath.Join(home, ".rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/librustc_driver-*.so"))
	if len(drivers) == 0 {
		log.Fatal("no librustc_driver")
	}
	all := rustNames(run("nm", "-D", drivers[0]))
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	names = append(names, all[:min(driverSample, len(all))]...)
	slices.Sort(names)
	names = slices.Compact(names)
	base := slices.Clone(names)
	for range mutations {
		names = append(names, mutate(rng, base[rng.IntN(len(base))]))
	}
	slices.Sort(names)
	names = slices.Compact(names)

	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, n := range names {
		fmt.Fprintf(zw, "%s\t\n", n)
	}
	zw.Close()
	if err := os.WriteFile("testdata/corpus.txt.gz", buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d names", len(names))
}

func run(name string, args ...string) []byte {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "RUSTC_BOOTSTRAP=1")
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("%s %v: %v", name, args, err)
	}
	return out
}

// rustNames picks the Rust symbols (and C++-looking _ZN names, which
// must be rejected) out of nm output.
func rustNames(nm []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(nm))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		s := f[len(f)-1]
		if i := strings.IndexByte(s, '@'); i > 0 {
			s = s[:i]
		}
		if strings.HasPrefix(s, "_R") || strings.HasPrefix(s, "_ZN") {
			out = append(out, s)
		}
	}
	return out
}

// mutate damages a name the way a fuzzer would, keeping to characters
// that c++filt reads as one word.
func mutate(rng *rand.Rand, s string) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$."
	b := []byte(s)
	for range 1 + rng.IntN(3) {
		if len(b) < 4 {
			break
		}
		i := 2 + rng.IntN(len(b)-2)
		switch rng.IntN(6) {
		case 0: // truncate
			b = b[:i]
		case 1: // replace
			b[i] = alphabet[rng.IntN(len(alphabet))]
		case 2: // insert
			b = slices.Insert(b, i, alphabet[rng.IntN(len(alphabet))])
		case 3: // delete
			b = slices.Delete(b, i, i+1)
		case 4: // duplicate a span
			j := min(len(b), i+1+rng.IntN(8))
			b = slices.Insert(b, j, b[i:j]...)
		case 5: // append a suffix
			b = append(b, ".llvm.123"...)
		}
	}
	return string(b)
}
