package demangletest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Binutils is the binutils release the goldens and hand tables were
// recorded with. Another release may print some names differently, so live
// comparisons run against this one only.
const Binutils = "2.40"

// CxxFilt returns c++filt's path if it is binutils Binutils.
func CxxFilt() (string, bool) {
	path, err := exec.LookPath("c++filt")
	if err != nil {
		return "", false
	}
	v, err := exec.Command(path, "--version").Output()
	line, _, _ := strings.Cut(string(v), "\n")
	return path, err == nil && strings.HasSuffix(strings.TrimSpace(line), " "+Binutils)
}

// Entry is one golden line.
type Entry struct{ Name, Want string }

// ReadGolden reads a golden file; a missing, corrupt or empty one fails tb.
func ReadGolden(tb testing.TB, path string) []Entry {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	var out []Entry
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		name, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			tb.Fatalf("%s: line %d has no tab", path, len(out)+1)
		}
		out = append(out, Entry{name, want})
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(out) == 0 {
		tb.Fatalf("%s: empty golden file", path)
	}
	return out
}

// WriteGolden rewrites a golden file (the tests' -update).
func WriteGolden(tb testing.TB, path string, es []Entry) {
	tb.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, e := range es {
		zw.Write([]byte(e.Name + "\t" + e.Want + "\n"))
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}
