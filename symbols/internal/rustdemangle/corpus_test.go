package rustdemangle

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/symbols/internal/demangletest"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus.txt.gz from c++filt")

const corpusPath = "testdata/corpus.txt.gz"

// The corpus is a golden file of mangled names and what
// `c++filt -i --format=rust` prints for them (the name itself when binutils'
// Rust demangler rejects it). --format=rust keeps binutils from falling
// back to its C++ demangler, which is the caller's business; for names
// the Rust demangler accepts, the output is the one `c++filt -i` and
// `addr2line -C` print.
func readCorpus(tb testing.TB) []demangletest.Entry { return demangletest.ReadGolden(tb, corpusPath) }

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
	if path, ok := demangletest.CxxFilt(); ok {
		names := make([]string, len(corpus))
		for i, e := range corpus {
			names[i] = e.Name
		}
		live := cxxfilt(t, path, names)
		drift := 0
		for i := range corpus {
			if corpus[i].Want != live[i] {
				drift++
				if !*update && drift <= 10 {
					t.Errorf("golden drifted from c++filt for %s\ngolden: %s\n  live: %s", names[i], corpus[i].Want, live[i])
				}
				corpus[i].Want = live[i]
			}
		}
		if *update {
			demangletest.WriteGolden(t, corpusPath, corpus)
			t.Logf("rewrote %s: %d names, %d changed", corpusPath, len(corpus), drift)
		}
	} else if *update {
		t.Fatal("-update needs c++filt")
	} else {
		t.Logf("c++filt not installed; checking the golden file only")
	}
	bad, demangled := 0, 0
	for _, e := range corpus {
		if e.Want != e.Name {
			demangled++
		}
		if err := check(e.Name, e.Want); err != nil {
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
	path, ok := demangletest.CxxFilt()
	if !ok {
		t.Skip("c++filt not installed, or not binutils " + demangletest.Binutils)
	}
	n := *mutants
	if testing.Short() {
		n /= 10
	}
	corpus := readCorpus(t)
	rng := rand.New(rand.NewPCG(*mutSeed, 7))
	names := make([]string, n)
	for i := range names {
		names[i] = mutate(rng, corpus[rng.IntN(len(corpus))].Name)
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
	path, ok := demangletest.CxxFilt()
	if !ok {
		t.Skip("c++filt not installed, or not binutils " + demangletest.Binutils)
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
