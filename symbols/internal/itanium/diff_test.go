package itanium

import (
	"bufio"
	"errors"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/symbols/internal/demangletest"
)

// The reference is binutils: `c++filt -i` prints what `addr2line -f -i -C`
// prints (no verbose expansion of std::string and friends), and that is
// what the symbols package must answer. testdata/binutils.txt.gz holds
// names with the text c++filt -i printed for them, so the comparison runs
// without binutils; when c++filt is installed (CI installs binutils) the
// golden file is also checked against it, so it cannot drift from the
// real tool, and every name the tests generate is checked live.

var update = flag.Bool("update", false, "rewrite testdata/binutils.txt.gz from the output of c++filt -i")

const goldenPath = "testdata/binutils.txt.gz"

// readGolden reads testdata/binutils.txt.gz.
func readGolden(t testing.TB) []demangletest.Entry { return demangletest.ReadGolden(t, goldenPath) }

func goldenNames(t testing.TB) []string {
	g := readGolden(t)
	names := make([]string, len(g))
	for i, e := range g {
		names[i] = e.Name
	}
	return names
}

// filtable reports whether c++filt can be given s as one argument and
// its answer read back as one line.
func filtable(s string) bool {
	return s != "" && s[0] != '-' && strings.IndexAny(s, "\x00\n\r") < 0
}

var errNoFilt = errors.New("c++filt not installed, or not binutils " + demangletest.Binutils)

// cxxfilt demangles names with `c++filt -i`, passing them as arguments
// so that each is demangled whole (on standard input c++filt splits
// text into words). Every name must be filtable.
func cxxfilt(names []string) ([]string, error) {
	path, ok := demangletest.CxxFilt()
	if !ok {
		return nil, errNoFilt
	}
	out := make([]string, 0, len(names))
	for len(names) > 0 {
		n, size := 0, 0
		for n < len(names) && size < 64<<10 {
			size += len(names[n]) + 1
			n++
		}
		b, err := exec.Command(path, append([]string{"-i", "--"}, names[:n]...)...).Output()
		if err != nil {
			return nil, err
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(lines) != n {
			return nil, errors.New("c++filt printed an unexpected number of lines")
		}
		out = append(out, lines...)
		names = names[n:]
	}
	return out, nil
}

// checkLive runs the fast path over names and compares every name it
// accepts with live c++filt -i; it returns how many it accepted. Without
// binutils it only checks that nothing panics.
func checkLive(t *testing.T, names []string) (fast int) {
	t.Helper()
	var d Demangler
	var acc, got []string
	for _, s := range names {
		out, ok := d.Append(nil, s)
		if !ok {
			continue
		}
		fast++
		if filtable(s) {
			acc, got = append(acc, s), append(got, string(out))
		}
	}
	want, err := cxxfilt(acc)
	if errors.Is(err, errNoFilt) {
		t.Logf("c++filt not installed: %d accepted names not compared", len(acc))
		return fast
	}
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := range acc {
		if got[i] != want[i] {
			bad++
			if bad <= 20 {
				t.Errorf("%s\n got: %s\nwant: %s", acc[i], got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d fast-path names differ from c++filt -i", bad, fast)
	}
	return fast
}

// TestGolden compares the fast path with the stored c++filt -i output
// for every golden name it accepts, and the golden file with live
// c++filt when binutils is installed. With -update it rewrites the file.
func TestGolden(t *testing.T) {
	g := readGolden(t)
	names := make([]string, len(g))
	for i, e := range g {
		names[i] = e.Name
	}
	live, err := cxxfilt(names)
	switch {
	case *update && err != nil:
		t.Fatalf("-update needs c++filt: %v", err)
	case *update:
		for i := range g {
			g[i].Want = live[i]
		}
		demangletest.WriteGolden(t, goldenPath, g)
	case errors.Is(err, errNoFilt):
		t.Log("c++filt not installed: golden file not checked against it")
	case err != nil:
		t.Fatal(err)
	default:
		stale := 0
		for i, e := range g {
			if live[i] != e.Want {
				stale++
				if stale <= 10 {
					t.Errorf("%s: golden file says\n%s\nc++filt -i prints\n%s", e.Name, e.Want, live[i])
				}
			}
		}
		if stale > 0 {
			t.Errorf("%d golden entries are stale; run go test -run TestGolden -update", stale)
		}
	}
	var d Demangler
	fast, bad := 0, 0
	for _, e := range g {
		out, ok := d.Append(nil, e.Name)
		if !ok {
			continue
		}
		fast++
		if string(out) != e.Want {
			bad++
			if bad <= 20 {
				t.Errorf("%s\n got: %s\nwant: %s", e.Name, out, e.Want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d fast-path names differ from c++filt -i", bad, fast)
	}
	t.Logf("%d/%d (%.2f%%) took the fast path", fast, len(g), 100*float64(fast)/float64(len(g)))
	if fast*100 < len(g)*98 {
		t.Errorf("fast path took only %d of %d names", fast, len(g))
	}
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

// TestExternalNames runs the live comparison over a file of names, one
// per line, named by $ITANIUM_NAMES (for example the output of
// `nm -D --defined-only lib.so | awk '{print $NF}'`); with $ITANIUM_MISSES
// set it also logs the names the fast path leaves to the library. It is
// how coverage figures were measured; it skips when the variable is unset.
func TestExternalNames(t *testing.T) {
	p := os.Getenv("ITANIUM_NAMES")
	if p == "" {
		t.Skip("ITANIUM_NAMES not set")
	}
	names := readNames(t, p)
	fast := checkLive(t, names)
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
