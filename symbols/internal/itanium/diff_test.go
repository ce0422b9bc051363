package itanium

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/ianlancetaylor/demangle"
)

// reference is what the symbols package prints today.
func reference(s string) string {
	return strings.ReplaceAll(demangle.Filter(s), ", >", ">")
}

// checkNames runs the fast path and the library over names and reports
// mismatches; it returns how many names took the fast path.
func checkNames(t *testing.T, names []string) (fast int) {
	t.Helper()
	var d Demangler
	bad := 0
	for _, s := range names {
		out, ok := d.Append(nil, s)
		if !ok {
			continue
		}
		fast++
		if want := reference(s); string(out) != want {
			bad++
			if bad <= 20 {
				t.Errorf("%s\n got: %s\nwant: %s", s, out, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d fast-path names differ from the library", bad, fast)
	}
	return fast
}

func readNames(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" && !strings.HasPrefix(s, "#") {
			names = append(names, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestExternalNames runs the differential check over a file of names,
// one per line, named by $ITANIUM_NAMES (for example the output of
// `nm -D --defined-only lib.so | awk '{print $NF}'`); with $ITANIUM_MISSES
// set it also logs the names the fast path leaves to the library. It is
// how coverage figures were measured; it skips when the variable is unset.
func TestExternalNames(t *testing.T) {
	p := os.Getenv("ITANIUM_NAMES")
	if p == "" {
		t.Skip("ITANIUM_NAMES not set")
	}
	names := readNames(t, p)
	fast := checkNames(t, names)
	t.Logf("%d/%d (%.2f%%) took the fast path", fast, len(names), 100*float64(fast)/float64(len(names)))
	if os.Getenv("ITANIUM_MISSES") != "" {
		var d Demangler
		for _, s := range names {
			if _, ok := d.Append(nil, s); !ok {
				t.Logf("miss: %s", s)
			}
		}
	}
}
