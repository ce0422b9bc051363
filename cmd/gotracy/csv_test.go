package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// csvCases are the real tracy-csvexport outputs kept beside each fixture:
// the flags it was run with and the file holding its output.
var csvCases = []struct {
	flags  []string
	suffix string
}{
	{nil, ".csv"},
	{[]string{"-e"}, ".self.csv"},
	{[]string{"-u"}, ".unwrap.csv"},
	{[]string{"-m"}, ".messages.csv"},
	{[]string{"-u", "-p"}, ".plots.csv"},
}

// expectedCSV returns the real tool's output for NAME+suffix, decompressing
// the .gz form; ok is false when the fixture set does not keep that output
// (heavy10m -u and -u -p).
func expectedCSV(t *testing.T, dir, name, suffix string) ([]byte, bool) {
	t.Helper()
	p := filepath.Join(dir, name+suffix)
	if b, err := os.ReadFile(p); err == nil {
		return b, true
	}
	f, err := os.Open(p + ".gz")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b, true
}

// compareLines reports the first lines where got and want differ.
func compareLines(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	g := strings.Split(string(got), "\n")
	w := strings.Split(string(want), "\n")
	bad := 0
	for i := 0; i < max(len(g), len(w)) && bad < 5; i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("%s line %d:\n got %q\nwant %q", what, i+1, gl, wl)
			bad++
		}
	}
	t.Errorf("%s: output differs (%d lines, want %d)", what, len(g), len(w))
}

// cacheLoads makes csv and info load each file once for the rest of the
// test: the commands still parse their flags and print as from the shell,
// without decoding the same large fixture once per flag combination.
func cacheLoads(t *testing.T) {
	type loaded struct {
		tr  *model.Trace
		rep *tracefile.Report
	}
	cache := map[string]loaded{}
	orig := loadTrace
	loadTrace = func(e *env, path string, opts ...tracefile.Option) (*model.Trace, *tracefile.Report, error) {
		if c, ok := cache[path]; ok {
			return c.tr, c.rep, nil
		}
		tr, rep, err := orig(e, path, opts...)
		if err == nil {
			cache[path] = loaded{tr, rep}
		}
		return tr, rep, err
	}
	t.Cleanup(func() { loadTrace = orig })
}

// fixtureTraces are the recordings whose csv outputs are compared; under
// -race the 10-million-zone one is left out (it alone takes minutes).
func fixtureTraces() []string {
	if race.Enabled {
		return []string{"demo", "demo-ondemand", "heavy1m"}
	}
	return fixtures.Recordings
}

// skipUnderRace leaves out, under -race, the per-zone listings of the
// million-zone fixture (two 34 MB outputs; the plain run compares them).
func skipUnderRace(name string, flags []string) bool {
	return race.Enabled && name == "heavy1m" && slices.Contains(flags, "-u")
}

func TestCSVMatchesTracyCsvexport(t *testing.T) {
	cacheLoads(t)
	for _, name := range fixtureTraces() {
		t.Run(name, func(t *testing.T) {
			trace := fixtures.Path(t, name+".tracy")
			dir := filepath.Dir(trace)
			for _, c := range csvCases {
				want, ok := expectedCSV(t, dir, name, c.suffix)
				if !ok || skipUnderRace(name, c.flags) {
					continue
				}
				args := append(append([]string{"csv"}, c.flags...), trace)
				out, errOut, code := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errOut)
				}
				compareLines(t, fmt.Sprintf("%s %v", name, c.flags), []byte(out), want)
			}
		})
	}
}

// TestCSVAfterRewrite loads each fixture, writes it back with gotracy's
// writer, and checks that csv of the rewritten file still gives the real
// tool's output: nothing csvexport depends on (including the hash-map row
// order) is lost in a read -> write -> read round trip.
func TestCSVAfterRewrite(t *testing.T) {
	cacheLoads(t)
	names := []string{"demo", "demo-ondemand", "heavy1m"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			trace := fixtures.Path(t, name+".tracy")
			dir := filepath.Dir(trace)
			tr, err := tracefile.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), name+".tracy")
			if err := tracefile.WriteFile(out, tr, tracefile.WithLZ4(), tracefile.WithStreams(2)); err != nil {
				t.Fatal(err)
			}
			for _, c := range csvCases {
				want, ok := expectedCSV(t, dir, name, c.suffix)
				if !ok || skipUnderRace(name, c.flags) {
					continue
				}
				args := append(append([]string{"csv"}, c.flags...), out)
				got, errOut, code := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errOut)
				}
				compareLines(t, fmt.Sprintf("rewritten %s %v", name, c.flags), []byte(got), want)
			}
		})
	}
}

func TestCSVFlags(t *testing.T) {
	trace := fixtures.Path(t, "demo.tracy")
	// -f filters case-insensitively, -c makes it case-sensitive, -s changes
	// the separator.
	out, _, code := runCLI(t, "csv", "-f", "WORK_ITEM", "-s", ";", trace)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "name;src_file;") ||
		!strings.HasPrefix(lines[1], "work_item;demo.cpp;85;") || !strings.HasPrefix(lines[2], "work_item_inner;demo.cpp;90;") {
		t.Errorf("filtered output:\n%s", out)
	}
	out, _, _ = runCLI(t, "csv", "-c", "--filter", "WORK_ITEM", trace)
	if strings.Count(out, "\n") != 1 {
		t.Errorf("case-sensitive filter kept rows:\n%s", out)
	}
	// -t adds two columns; -t=50 picks the median.
	out, _, _ = runCLI(t, "csv", "-t=50", "-f", "leaf_compute", trace)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], ",percentile_ns,truncated_mean_ns") || strings.Count(lines[1], ",") != 11 {
		t.Errorf("-t output:\n%s", out)
	}
	// -g on a trace without GPU zones prints only the header.
	out, _, _ = runCLI(t, "csv", "-g", trace)
	if out != "name,src_file,Time from start of program,GPU execution time\n" {
		t.Errorf("-g output: %q", out)
	}
	if _, _, code := runCLI(t, "csv"); code != 2 {
		t.Errorf("csv without a file exited %d, want 2", code)
	}
}

func TestPercentFlag(t *testing.T) {
	var v int
	p := percentFlag{&v}
	for _, c := range []struct {
		in   string
		want int
	}{{"true", 90}, {"50", 50}, {"0", 1}, {"250", 99}, {"75abc", 75}, {"x", 1}, {"false", 0}} {
		if err := p.Set(c.in); err != nil || v != c.want {
			t.Errorf("Set(%q) = %d, %v; want %d", c.in, v, err, c.want)
		}
	}
}

func TestTraceErrorsWorded(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.tracy")
	if err := os.WriteFile(junk, []byte("hello, not a trace at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"csv", "info"} {
		_, errOut, code := runCLI(t, cmd, junk)
		if code != 1 || !strings.Contains(errOut, "not a Tracy trace: expected a .tracy file") {
			t.Errorf("%s junk: exit %d, stderr %q", cmd, code, errOut)
		}
		oneLine(t, cmd, errOut)
	}

	// A real file cut short is corrupt, and says so, with no panic.
	src := fixtures.Path(t, "demo.tracy")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.tracy")
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"csv", "info"} {
		_, errOut, code := runCLI(t, cmd, cut)
		if code != 1 || !strings.Contains(errOut, "damaged or cut short") {
			t.Errorf("%s cut: exit %d, stderr %q", cmd, code, errOut)
		}
		oneLine(t, cmd, errOut)
	}
}

func TestDescribeTraceFileError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x.tracy: %w", &tracefile.VersionError{Version: 0x000F00, Err: tracefile.ErrUnsupportedVersion}), "upgrade gotracy"},
		{fmt.Errorf("x.tracy: %w", &tracefile.VersionError{Version: 0x000600, Err: tracefile.ErrLegacyVersion}), "tracy-update tool of an older Tracy"},
		{&tracefile.CorruptError{Offset: 42, Section: "zones", Err: io.ErrUnexpectedEOF}, "damaged or cut short"},
		{fmt.Errorf("x: %w", tracefile.ErrNotTrace), "not a Tracy trace"},
	} {
		got := describeError(c.err)
		if !strings.HasPrefix(got, c.err.Error()) || !strings.Contains(got, c.want) {
			t.Errorf("describeError(%v) = %q, want the error then %q", c.err, got, c.want)
		}
	}
	if got := describeError(io.ErrClosedPipe); got != io.ErrClosedPipe.Error() {
		t.Errorf("unrelated error described as %q", got)
	}
}
