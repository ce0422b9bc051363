package rustdemangle

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus.txt.gz from c++filt")

const corpusPath = "testdata/corpus.txt.gz"

// corpusEntry is one golden line: a mangled name and what
// `c++filt -i --format=rust` prints for it (the name itself when binutils'
// Rust demangler rejects it). --format=rust keeps binutils from falling
// back to its C++ demangler, which is the caller's business; for names
// the Rust demangler accepts, the output is the one `c++filt -i` and
// `addr2line -C` print.
type corpusEntry struct{ name, want string }

func readCorpus(tb testing.TB) []corpusEntry {
	tb.Helper()
	raw, err := os.ReadFile(corpusPath)
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	var out []corpusEntry
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		name, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			tb.Fatalf("corpus line without tab: %q", sc.Text())
		}
		out = append(out, corpusEntry{name, want})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatal("empty corpus")
	}
	return out
}

func writeCorpus(t *testing.T, c []corpusEntry) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, e := range c {
		fmt.Fprintf(zw, "%s\t%s\n", e.name, e.want)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corpusPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goldenBinutils is the binutils release the corpus expectations were
// recorded with. Another release may print some names differently, so
// live comparisons run against this one only.
const goldenBinutils = "2.40"

// lookFilt returns c++filt's path if it is binutils goldenBinutils.
func lookFilt() (string, bool) {
	path, err := exec.LookPath("c++filt")
	if err != nil {
		return "", false
	}
	v, err := exec.Command(path, "--version").Output()
	line, _, _ := strings.Cut(string(v), "\n")
	return path, err == nil && strings.HasSuffix(strings.TrimSpace(line), " "+goldenBinutils)
}

// cxxfilt runs binutils over names, a batch of arguments at a time, and
// returns one output line per name.
func cxxfilt(t *testing.T, path string, names []string) []string {
	t.Helper()
	const batch = 500
	var out []string
	for i := 0; i < len(names); i += batch {
		args := append([]string{"-i", "--format=rust"}, names[i:min(i+batch, len(names))]...)
		b, err := exec.Command(path, args...).Output()
		if err != nil {
			t.Fatalf("c++filt: %v", err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(lines) != len(args)-2 {
			t.Fatalf("c++filt printed %d lines for %d names", len(lines), len(args)-2)
		}
		out = append(out, lines...)
	}
	return out
}

// check compares Append with the expectation for one name: the
// demangled text, or, when binutils printed the name unchanged, ok=false.
func check(name, want string) error {
	got, ok := Append(nil, name)
	switch {
	case want == name && ok:
		return fmt.Errorf("%s\n binutils rejects it; got ok with %q", name, got)
	case want != name && !ok:
		return fmt.Errorf("%s\n got ok=false, want %q", name, want)
	case ok && string(got) != want:
		return fmt.Errorf("%s\n got: %s\nwant: %s", name, got, want)
	}
	if ok != IsRust(name) {
		return fmt.Errorf("%s: IsRust=%v, Append ok=%v", name, !ok, ok)
	}
	return nil
}

// TestCorpus holds Append to the checked-in c++filt expectations and,
// where binutils is installed, to c++filt itself, so the golden file
// cannot drift from the oracle. -update rewrites the expectations.
func TestCorpus(t *testing.T) {
	corpus := readCorpus(t)
	if path, ok := lookFilt(); ok {
		names := make([]string, len(corpus))
		for i, e := range corpus {
			names[i] = e.name
		}
		live := cxxfilt(t, path, names)
		drift := 0
		for i := range corpus {
			if corpus[i].want != live[i] {
				drift++
				if !*update && drift <= 10 {
					t.Errorf("golden drifted from c++filt for %s\ngolden: %s\n  live: %s", names[i], corpus[i].want, live[i])
				}
				corpus[i].want = live[i]
			}
		}
		if *update {
			writeCorpus(t, corpus)
			t.Logf("rewrote %s: %d names, %d changed", corpusPath, len(corpus), drift)
		}
	} else if *update {
		t.Fatal("-update needs c++filt")
	} else {
		t.Logf("c++filt not installed; checking the golden file only")
	}
	bad, demangled := 0, 0
	for _, e := range corpus {
		if e.want != e.name {
			demangled++
		}
		if err := check(e.name, e.want); err != nil {
			bad++
			if bad <= 20 {
				t.Error(err)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d corpus names differ from binutils", bad, len(corpus))
	}
	t.Logf("%d names, %d demangled by binutils, %d rejected", len(corpus), demangled, len(corpus)-demangled)
}

var mutants = flag.Int("mutants", 20000, "names TestMutantsLive derives from the corpus and checks against c++filt")

// TestMutantsLive damages corpus names at random (seeded by -mutseed,
// so a failure reproduces) and compares Append with c++filt on them:
// the error paths (truncation, bad backreferences, stray bytes) must
// reject exactly what binutils rejects, and accept with the same text.
func TestMutantsLive(t *testing.T) {
	path, ok := lookFilt()
	if !ok {
		t.Skip("c++filt not installed, or not binutils " + goldenBinutils)
	}
	n := *mutants
	if testing.Short() {
		n /= 10
	}
	corpus := readCorpus(t)
	rng := rand.New(rand.NewPCG(*mutSeed, 7))
	names := make([]string, n)
	for i := range names {
		names[i] = mutate(rng, corpus[rng.IntN(len(corpus))].name)
	}
	live := cxxfilt(t, path, names)
	bad := 0
	for i, name := range names {
		if err := check(name, live[i]); err != nil {
			bad++
			if bad <= 20 {
				t.Error(err)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d mutants differ from c++filt (-mutseed %d)", bad, n, *mutSeed)
	}
}

var mutSeed = flag.Uint64("mutseed", 1, "seed for TestMutantsLive")

// mutate damages a name the way a fuzzer would, keeping to bytes c++filt
// reads as part of one word.
func mutate(rng *rand.Rand, s string) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$.BBBBNNNIIEEE"
	b := []byte(s)
	for range 1 + rng.IntN(3) {
		if len(b) < 4 {
			break
		}
		i := 2 + rng.IntN(len(b)-2)
		switch rng.IntN(7) {
		case 0:
			b = b[:i]
		case 1:
			b[i] = alphabet[rng.IntN(len(alphabet))]
		case 2:
			b = slices.Insert(b, i, alphabet[rng.IntN(len(alphabet))])
		case 3:
			b = slices.Delete(b, i, i+1)
		case 4:
			j := min(len(b), i+1+rng.IntN(8))
			b = slices.Insert(b, j, b[i:j]...)
		case 5:
			b = append(b, ".llvm.123"...)
		case 6: // swap two bytes
			j := 2 + rng.IntN(len(b)-2)
			b[i], b[j] = b[j], b[i]
		}
	}
	return string(b)
}

var namesFile = flag.String("names", "", "file of names (one a line) for TestNamesLive to check against c++filt")

// TestNamesLive checks arbitrary names, e.g. a fuzzer's findings or a
// binary's `nm` output, against c++filt: go test -run TestNamesLive -names FILE.
func TestNamesLive(t *testing.T) {
	if *namesFile == "" {
		t.Skip("no -names file")
	}
	path, ok := lookFilt()
	if !ok {
		t.Skip("c++filt not installed, or not binutils " + goldenBinutils)
	}
	raw, err := os.ReadFile(*namesFile)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range strings.Split(string(raw), "\n") {
		// Arguments c++filt would take for options, or split, are skipped.
		if s != "" && s[0] != '-' && !strings.ContainsAny(s, " \t\r\v\f") {
			names = append(names, s)
		}
	}
	live := cxxfilt(t, path, names)
	bad := 0
	for i, name := range names {
		if err := check(name, live[i]); err != nil {
			bad++
			if bad <= 20 {
				t.Error(err)
			}
		}
	}
	t.Logf("%d names, %d differ", len(names), bad)
}
