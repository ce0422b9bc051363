package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

// formatsTrace writes a small Builder-made trace to dir and returns its path.
func formatsTrace(t *testing.T, dir string) string {
	t.Helper()
	b := model.NewBuilder()
	a := b.AddStaticSrcLoc(1, model.SourceLocation{Name: model.IdxRef(b.Intern("alpha")), File: model.IdxRef(b.Intern("a.cpp")), Line: 3})
	c := b.AddStaticSrcLoc(2, model.SourceLocation{Function: model.IdxRef(b.Intern("beta")), File: model.IdxRef(b.Intern("b.cpp")), Line: 9})
	b.FrameMark(0, 0)
	for _, tid := range []uint64{11, 12} {
		th := b.Thread(tid)
		for i := range 5 {
			s := int64(i)*1_000_003 + int64(tid)
			b.BeginZone(th, s, a)
			b.BeginZone(th, s+17, c)
			b.EndZone(th, s+500_001)
			b.EndZone(th, s+900_007)
		}
		b.AddMessage(tid, model.Message{Time: 77, Text: model.IdxRef(b.Intern("hello " + strconv.FormatUint(tid, 10)))})
	}
	p := filepath.Join(dir, "in.tracy")
	if err := tracefile.WriteFile(p, b.Finish()); err != nil {
		t.Fatal(err)
	}
	return p
}

func runFmtCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestExportImportCLI(t *testing.T) {
	dir := t.TempDir()
	in := formatsTrace(t, dir)
	want, _, code := runFmtCLI(t, "csv", in)
	if code != 0 {
		t.Fatal("csv of the input failed")
	}
	for _, ext := range []string{".json", ".json.zst"} {
		js := filepath.Join(dir, "out"+ext)
		if _, e, code := runFmtCLI(t, "export", in, "-o", js); code != 0 {
			t.Fatalf("export %s: %s", ext, e)
		}
		back := filepath.Join(dir, "back"+ext+".tracy")
		if _, e, code := runFmtCLI(t, "import", js, "-o", back); code != 0 {
			t.Fatalf("import %s: %s", ext, e)
		}
		got, _, _ := runFmtCLI(t, "csv", back)
		// Row order follows Tracy's hash of the (new) source-location ids;
		// compare rows as sets.
		if g, w := sortedLines(got), sortedLines(want); g != w {
			t.Errorf("%s round trip csv:\n%s\nwant\n%s", ext, g, w)
		}
	}
	// pprof: the profile parses (the package's tests check its totals).
	pp := filepath.Join(dir, "out.pb.gz")
	if _, e, code := runFmtCLI(t, "export", in, "-o", pp); code != 0 {
		t.Fatalf("export pprof: %s", e)
	}
	if f, err := os.Open(pp); err != nil {
		t.Fatal(err)
	} else if prof, err := profile.Parse(f); err != nil {
		t.Errorf("pprof output: %v", err)
	} else if len(prof.Sample) != 4 { // alpha and beta on two threads
		t.Errorf("%d samples, want 4", len(prof.Sample))
	}
	// perfetto: a non-empty packet stream (the package's tests decode it).
	pf := filepath.Join(dir, "out.pftrace")
	if _, e, code := runFmtCLI(t, "export", in, "-o", pf); code != 0 {
		t.Fatalf("export perfetto: %s", e)
	}
	if b, err := os.ReadFile(pf); err != nil || len(b) < 100 || b[0] != 0x0a {
		t.Errorf("perfetto output: %d bytes, err %v", len(b), err)
	}
	// An existing output needs --force (export) or -f (import).
	js := filepath.Join(dir, "out.json")
	if _, e, code := runFmtCLI(t, "export", in, "-o", js); code == 0 || !strings.Contains(e, "exists") {
		t.Errorf("export over an existing file: code %d, %q", code, e)
	}
	if _, e, code := runFmtCLI(t, "export", in, "-o", js, "--force"); code != 0 {
		t.Errorf("export --force: %s", e)
	}
	back := filepath.Join(dir, "back.json.tracy")
	if _, e, code := runFmtCLI(t, "import", js, "-o", back); code == 0 || !strings.Contains(e, "exists") {
		t.Errorf("import over an existing file: code %d, %q", code, e)
	}
	if _, e, code := runFmtCLI(t, "import", js, "-o", back, "-f"); code != 0 {
		t.Errorf("import -f: %s", e)
	}
	// Non-regular inputs and outputs are refused.
	sub := filepath.Join(dir, "d.json")
	os.Mkdir(sub, 0o755)
	if _, e, code := runFmtCLI(t, "import", sub, "-o", filepath.Join(dir, "x.tracy")); code == 0 || !strings.Contains(e, "not a regular file") {
		t.Errorf("import of a directory: code %d, %q", code, e)
	}
	if _, e, code := runFmtCLI(t, "export", in, "-o", sub, "--force"); code == 0 || !strings.Contains(e, "not a regular file") {
		t.Errorf("export over a directory: code %d, %q", code, e)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	// Fuchsia: the package's golden input, through the command.
	fx, err := os.ReadFile("../../formats/fuchsia/testdata/golden.fxt")
	if err != nil {
		t.Fatal(err)
	}
	fxt := filepath.Join(dir, "in.fxt")
	os.WriteFile(fxt, fx, 0o644)
	if out, e, code := runFmtCLI(t, "import", fxt, "-o", filepath.Join(dir, "fxt.tracy")); code != 0 || !strings.Contains(out, "3 zones, 1 messages, 2 plots") {
		t.Errorf("import .fxt: code %d, %q %q", code, out, e)
	}
	// Malformed input: a clear error with the offset.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"ph":"X","name":"a","ts":1,"dur":2,"tid":1},{"ph":}]`), 0o644)
	if _, e, code := runFmtCLI(t, "import", bad, "-o", filepath.Join(dir, "bad.tracy")); code != 1 || !strings.Contains(e, "byte 52") {
		t.Errorf("malformed import: code %d, %q", code, e)
	}
	if _, e, code := runFmtCLI(t, "export", in, "-o", filepath.Join(dir, "x.txt")); code != 2 || !strings.Contains(e, "--format") {
		t.Errorf("unknown extension: code %d, %q", code, e)
	}
}

func TestMergeCLI(t *testing.T) {
	dir := t.TempDir()
	in := formatsTrace(t, dir)
	in2 := filepath.Join(dir, "in2.tracy")
	b, _ := os.ReadFile(in)
	os.WriteFile(in2, b, 0o644)
	out := filepath.Join(dir, "m.tracy")
	if _, e, code := runFmtCLI(t, "merge", in, in2, "-o", out, "--offset", in2+"=5000000000"); code != 0 {
		t.Fatalf("merge: %s", e)
	}
	tr, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The same program twice: its pid (0xFFFE0000|index, no pid in the
	// file) keeps the lanes apart; the second input starts 5 s later.
	if tr.ZoneCount() != 40 || len(tr.Threads) != 4 {
		t.Errorf("%d zones on %d threads, want 40 on 4", tr.ZoneCount(), len(tr.Threads))
	}
	late := 0
	for _, th := range tr.Threads {
		if th.Zones.Len() > 0 && th.Zones.At(0).Start() >= 5_000_000_000 {
			late++
		}
	}
	if late != 2 {
		t.Errorf("%d threads start after the 5 s offset, want 2", late)
	}
	if _, e, code := runFmtCLI(t, "merge", in, "-o", out); code == 0 || !strings.Contains(e, "exists") {
		t.Errorf("merge over an existing output: code %d, %q", code, e)
	}
	if _, e, code := runFmtCLI(t, "merge", in, "-o", out, "-f", "--offset", "nope.tracy=1"); code != 2 || !strings.Contains(e, "not one of the inputs") {
		t.Errorf("offset of a non-input: code %d, %q", code, e)
	}
	if _, e, code := runFmtCLI(t, "merge", in, "-o", out, "-f", "--offset", in+"=x"); code != 2 {
		t.Errorf("bad offset: code %d, %q", code, e)
	}
}

func sortedLines(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > 1 {
		rest := l[1:]
		sortStrings(rest)
	}
	return strings.Join(l, "\n")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
