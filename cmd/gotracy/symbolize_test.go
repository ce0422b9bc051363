package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/symtest"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/symbolize"
	"github.com/gotracy/gotracy/tracefile"
)

// writeOfflineTrace saves a trace whose frames are offline-resolve answers
// (as a TRACY_SYMBOL_OFFLINE_RESOLVE client sends them) for addrs in image.
func writeOfflineTrace(t *testing.T, path, image string, base uint64, addrs []uint64) {
	t.Helper()
	tr := model.New()
	in := symbolize.NewInterner(tr)
	unres, unk, img := in.Intern(symbolize.UnresolvedName), in.Intern(symbolize.UnknownFile), in.Intern(image)
	for _, a := range addrs {
		id := (base + a) & (1<<62 - 1)
		tr.Frames[id] = model.FrameData{ImageName: img, Frames: []model.InlineFrame{{Name: unres, File: unk, SymAddr: a}}}
		tr.CallStackFrames = append(tr.CallStackFrames, id)
	}
	tr.CallStackOffsets = []uint32{uint32(len(tr.CallStackFrames))}
	if err := tracefile.WriteFile(path, tr); err != nil {
		t.Fatal(err)
	}
}

func TestSymbolizeCommand(t *testing.T) {
	const base = 0x7f1200000000
	dir := t.TempDir()
	bin := symtest.BuildC(t, dir, "prog", "abcdef0123456789abcdef0123456789abcdef01", "-O2")
	addrs := symtest.LineAddrs(t, bin, 80)
	ref := symtest.Addr2Line(t, bin, addrs)
	in := filepath.Join(dir, "in.tracy")
	writeOfflineTrace(t, in, "/home/ci/build/prog", base, addrs)

	// Wrong id: the only candidate is rejected and named in the summary.
	out := filepath.Join(dir, "bad.tracy")
	var stdout, stderr bytes.Buffer
	code := run([]string{"symbolize", in, "-o", out, "--substitute", "^/home/ci/build;" + dir,
		"--image-id", "/home/ci/build/prog=00000000000000000000000000000000000000ff"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "build id differs") || !strings.Contains(stdout.String(), bin) || !strings.Contains(stdout.String(), "resolved: 0;") {
		t.Fatalf("summary does not report the rejection:\n%s", stdout.String())
	}
	bad, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for id, fd := range bad.Frames {
		if _, ok := symbolize.Offline(bad, &fd); !ok {
			t.Fatalf("frame %#x resolved from a rejected file", id)
		}
	}

	// Substitution maps the recorded path to the local build; the right id
	// is accepted.
	out = filepath.Join(dir, "good.tracy")
	stdout.Reset()
	code = run([]string{"symbolize", in, "-o", out, "--substitute", "^/home/ci/build;" + dir,
		"--image-id", "/home/ci/build/prog=abcdef0123456789abcdef0123456789abcdef01"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	good, err := tracefile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for i, a := range addrs {
		if !symtest.Known(ref[i]) {
			continue
		}
		fd := good.Frames[(base+a)&(1<<62-1)]
		var got []symtest.Frame
		for _, l := range fd.Frames {
			got = append(got, symtest.Frame{Function: good.Str(l.Name), File: good.Str(l.File), Line: int(l.Line)})
		}
		if fmt.Sprint(got) != fmt.Sprint(ref[i]) {
			t.Errorf("%#x: got %v, addr2line says %v", a, got, ref[i])
		}
		compared++
	}
	if compared < len(addrs)/2 {
		t.Fatalf("only %d of %d addresses comparable", compared, len(addrs))
	}
	if want := fmt.Sprintf("/home/ci/build/prog (id abcdef0123456789abcdef0123456789abcdef01): %d of %d resolved", len(addrs), len(addrs)); !strings.Contains(stdout.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, stdout.String())
	}

	// Usage errors.
	for _, args := range [][]string{
		{"symbolize", in},
		{"symbolize", "-o", out},
		{"symbolize", in, "-o", out, "--substitute", "no-separator"},
		{"symbolize", in, "-o", out, "--image-id", "nopath"},
	} {
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// offlineRecording writes a recorded client stream (the layout --record
// writes) of a TRACY_SYMBOL_OFFLINE_RESOLVE client whose call stacks run
// through image at base.
func offlineRecording(t *testing.T, path, image string, base uint64, addrs []uint64) {
	t.Helper()
	var b []byte
	var refs protocol.TimeRefs
	must := func(nb []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b = nb
	}
	b = refs.AppendThreadContext(b, 1)
	stack := make([]uint64, len(addrs))
	for i, a := range addrs {
		stack[i] = base + a
	}
	must(protocol.AppendCallstackPayloadFrames(b, 1, stack))
	b = protocol.AppendCallstack(b)
	must(protocol.AppendSingleString(b, "with stack"))
	b = protocol.AppendMessageCallstack(b, 1000, 0)
	for _, a := range addrs {
		must(protocol.AppendCallstackFrameAnswer(b, base+a, image, []protocol.CallstackFrameInfo{
			{Name: symbolize.UnresolvedName, File: symbolize.UnknownFile, SymAddr: a},
		}))
	}
	// The answer to the server's thread-name query, as a client sends it:
	// without it the recording ends with a query unanswered.
	must(protocol.AppendThreadName(b, 1, "main"))
	b = protocol.AppendTerminate(b)
	w := protocol.Welcome{TimerMul: 1, InitBegin: 0, InitEnd: 100, ProgramName: "offline"}
	hello, err := protocol.AppendWelcomeReply(nil, &w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.Write(hello)
	fw := protocol.NewFrameWriter(&out)
	if err := fw.WriteItems(b); err != nil {
		t.Fatal(err)
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Server-side resolution during a (replayed) capture and offline
// resolution of the same capture saved with --symbols=none give the same
// frames.
func TestReplaySymbolsServerEqualsSymbolize(t *testing.T) {
	const base = 0x7f0000400000
	dir := t.TempDir()
	bin := symtest.BuildC(t, dir, "prog", "", "-O2")
	addrs := symtest.LineAddrs(t, bin, 50)
	raw := filepath.Join(dir, "offline.c2s.bin")
	offlineRecording(t, raw, bin, base, addrs)

	var stdout, stderr bytes.Buffer
	server := filepath.Join(dir, "server.tracy")
	if code := run([]string{"replay", raw, "-o", server, "--symbols", "server", "--symbol-path", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("replay --symbols=server: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if want := fmt.Sprintf("%s: %d of %d resolved", bin, len(addrs), len(addrs)); !strings.Contains(stdout.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, stdout.String())
	}
	none := filepath.Join(dir, "none.tracy")
	if code := run([]string{"replay", raw, "-o", none, "--symbols", "none"}, &stdout, &stderr); code != 0 {
		t.Fatalf("replay --symbols=none: exit %d\n%s", code, stderr.String())
	}
	offline := filepath.Join(dir, "offline.tracy")
	if code := run([]string{"symbolize", none, "-o", offline}, &stdout, &stderr); code != 0 {
		t.Fatalf("symbolize: exit %d\n%s", code, stderr.String())
	}
	a, err := tracefile.ReadFile(server)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tracefile.ReadFile(offline)
	if err != nil {
		t.Fatal(err)
	}
	render := func(tr *model.Trace) map[uint64]string {
		m := map[uint64]string{}
		for id, fd := range tr.Frames {
			s := tr.Str(fd.ImageName)
			for _, l := range fd.Frames {
				s += fmt.Sprintf(" | %s %s:%d @%#x", tr.Str(l.Name), tr.Str(l.File), l.Line, l.SymAddr)
			}
			m[id] = s
		}
		return m
	}
	ra, rb := render(a), render(b)
	if len(ra) != len(addrs) || fmt.Sprint(ra) != fmt.Sprint(rb) {
		t.Fatalf("server-side and offline frames differ:\n%v\n%v", ra, rb)
	}
	for _, s := range ra {
		if strings.Contains(s, symbolize.UnresolvedName) {
			t.Fatalf("unresolved frame left: %s", s)
		}
	}
	if code := run([]string{"replay", raw, "-o", none, "-f", "--symbol-path", dir}, &stdout, &stderr); code != 2 {
		t.Errorf("--symbol-path without --symbols=server: exit %d, want 2", code)
	}
}
