package symbolize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gotracy/gotracy/internal/symtest"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/symbols"
	"github.com/gotracy/gotracy/tracefile"
)

// base is where the test pretends the image was loaded (a PIE's typical
// load bias), so frame ids and offsets differ.
const base = 0x555555554000

// OfflineTrace builds a trace whose call-stack frames are what a
// TRACY_SYMBOL_OFFLINE_RESOLVE client answers: one level "[unresolved]",
// file "[unknown]", symAddr = offset, image = full path.
func offlineTrace(image string, addrs []uint64) *model.Trace {
	tr := model.New()
	in := NewInterner(tr)
	unres, unk, img := in.Intern(UnresolvedName), in.Intern(UnknownFile), in.Intern(image)
	for i, a := range addrs {
		id := (base + a) & frameIdxMask
		tr.Frames[id] = model.FrameData{ImageName: img, Frames: []model.InlineFrame{{Name: unres, File: unk, SymAddr: a}}}
		tr.CallStackFrames = append(tr.CallStackFrames, id)
		if i%8 == 7 || i == len(addrs)-1 {
			tr.CallStackOffsets = append(tr.CallStackOffsets, uint32(len(tr.CallStackFrames)))
		}
	}
	return tr
}

func roundTrip(t *testing.T, tr *model.Trace) *model.Trace {
	t.Helper()
	var buf bytes.Buffer
	if err := tracefile.Write(&buf, tr); err != nil {
		t.Fatalf("write: %v", err)
	}
	out, err := tracefile.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	return out
}

// levels renders a frame's levels as addr2line would print them.
func levels(tr *model.Trace, fd model.FrameData) []symtest.Frame {
	var out []symtest.Frame
	for _, l := range fd.Frames {
		out = append(out, symtest.Frame{Function: tr.Str(l.Name), File: tr.Str(l.File), Line: int(l.Line)})
	}
	return out
}

// CheckAgainstAddr2Line compares every frame addr2line can name.
func checkAgainstAddr2Line(t *testing.T, tr *model.Trace, bin string, addrs []uint64) {
	t.Helper()
	ref := symtest.Addr2Line(t, bin, addrs)
	compared := 0
	for i, a := range addrs {
		if !symtest.Known(ref[i]) {
			continue
		}
		fd, ok := tr.Frames[(base+a)&frameIdxMask]
		if !ok {
			t.Fatalf("%#x: frame missing", a)
		}
		got := levels(tr, fd)
		if fmt.Sprint(got) != fmt.Sprint(ref[i]) {
			t.Errorf("%#x:\n got %v\nwant %v (addr2line -f -i -C)", a, got, ref[i])
		}
		for _, l := range fd.Frames {
			if l.SymAddr != a {
				t.Errorf("%#x: level symAddr %#x, want the offset kept", a, l.SymAddr)
			}
		}
		compared++
	}
	if compared < len(addrs)/2 {
		t.Fatalf("only %d of %d addresses comparable", compared, len(addrs))
	}
}

func TestSymbolizeOfflineFramesMatchAddr2Line(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			dir := t.TempDir()
			bin := symtest.BuildC(t, dir, "prog", "", opt)
			addrs := symtest.LineAddrs(t, bin, 200)
			tr := roundTrip(t, offlineTrace(bin, addrs))
			r, err := symbols.New()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rep, err := Trace(context.Background(), tr, r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Candidates != len(addrs) || rep.Resolved == 0 {
				t.Fatalf("report %+v", rep)
			}
			tr = roundTrip(t, tr)
			checkAgainstAddr2Line(t, tr, bin, addrs)
			if opt == "-O2" {
				multi := 0
				for _, fd := range tr.Frames {
					if len(fd.Frames) > 1 {
						multi++
					}
				}
				if multi == 0 {
					t.Error("no frame has inline levels at -O2")
				}
			}
			// The image is now recorded with the load base the offline
			// frames imply.
			rec, ok := Images(tr)[bin]
			if !ok || rec.Base != base {
				t.Errorf("image record %+v (found %v), want base %#x", rec, ok, base)
			}
		})
	}
}

func TestSymbolizeWrongBuildIDRejected(t *testing.T) {
	dir := t.TempDir()
	bin := symtest.BuildC(t, dir, "prog", "1111111111111111111111111111111111111111", "-O0")
	addrs := symtest.LineAddrs(t, bin, 20)
	tr := offlineTrace(bin, addrs)
	in := NewInterner(tr)
	want, _ := symbols.ParseID("2222222222222222222222222222222222222222")
	AddImage(tr, ImageRecord{Path: bin, ID: want, Base: base}, in.Intern)
	r, _ := symbols.New()
	defer r.Close()
	rep, err := Trace(context.Background(), tr, r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Resolved != 0 || rep.Unresolved != len(addrs) {
		t.Fatalf("resolved %d, unresolved %d of %d: a file with another build id was used", rep.Resolved, rep.Unresolved, len(addrs))
	}
	if len(rep.Images) != 1 || len(rep.Images[0].Reasons) != 1 || rep.Images[0].Reasons[0].Kind != symbols.ErrBuildIDMismatch {
		t.Fatalf("reasons %+v, want build id mismatch", rep.Images)
	}
	if !errors.Is(rep.Images[0].Reasons[0].Example, symbols.ErrBuildIDMismatch) {
		t.Errorf("example %v", rep.Images[0].Reasons[0].Example)
	}
	for id, fd := range tr.Frames {
		if off, ok := Offline(tr, &fd); !ok || Canonical(id)-off != base {
			t.Fatalf("frame %#x changed: %+v", id, fd)
		}
	}
	// The right id (given on the command line) resolves.
	good, _ := symbols.ParseID("1111111111111111111111111111111111111111")
	rep, err = Trace(context.Background(), tr, r, Options{IDs: map[string]symbols.ID{bin: good}})
	if err != nil || rep.Resolved == 0 {
		t.Fatalf("with the right id: %+v, %v", rep, err)
	}
}

func TestSymbolizeSubstitutionAndReset(t *testing.T) {
	dir := t.TempDir()
	bin := symtest.BuildC(t, dir, "prog", "", "-O2")
	addrs := symtest.LineAddrs(t, bin, 60)
	recorded := "/build/machine/out/prog"
	tr := offlineTrace(recorded, addrs)

	r, _ := symbols.New()
	rep, _ := Trace(context.Background(), tr, r, Options{})
	r.Close()
	if rep.Resolved != 0 || rep.Images[0].Reasons[0].Kind != symbols.ErrImageNotFound {
		t.Fatalf("without substitution: %+v", rep.Images)
	}

	sub, err := symbols.ParseSubstitution("^/build/machine/out;" + dir)
	if err != nil {
		t.Fatal(err)
	}
	r, _ = symbols.New(sub)
	defer r.Close()
	if rep, err = Trace(context.Background(), tr, r, Options{}); err != nil || rep.Resolved == 0 {
		t.Fatalf("with substitution: %+v %v", rep, err)
	}
	resolved := roundTrip(t, tr)

	// Reset: spoil the resolved frames (as if an older debug file had
	// answered), then re-resolve everything from the recorded base.
	spoilt := roundTrip(t, resolved)
	in := NewInterner(spoilt)
	for id, fd := range spoilt.Frames {
		fd.Frames = []model.InlineFrame{{Name: in.Intern("stale"), File: in.Intern("old.c"), Line: 1, SymAddr: 0}}
		spoilt.Frames[id] = fd
	}
	if rep, _ = Trace(context.Background(), spoilt, r, Options{}); rep.Candidates != 0 {
		t.Fatalf("without reset, %d resolved frames were asked again", rep.Candidates)
	}
	rep, err = Trace(context.Background(), spoilt, r, Options{Reset: true})
	if err != nil || rep.Unaddressable != 0 || rep.Candidates != len(addrs) {
		t.Fatalf("reset: %+v %v", rep, err)
	}
	for id, fd := range resolved.Frames {
		if got, want := levels(spoilt, spoilt.Frames[id]), levels(resolved, fd); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%#x after reset: %v, want %v", id, got, want)
		}
	}

	// Reset of a trace without image records or offline frames cannot
	// address client-resolved frames: they are kept, and counted.
	bare := roundTrip(t, resolved)
	bare.AppInfo = nil
	rep, _ = Trace(context.Background(), bare, r, Options{Reset: true})
	if rep.Unaddressable != len(bare.Frames) || rep.Candidates != 0 {
		t.Fatalf("bare reset: %+v", rep)
	}
}

func TestImageRecordRoundTrip(t *testing.T) {
	id, _ := symbols.ParseID("go:abc/def")
	for _, r := range []ImageRecord{
		{Path: "/usr/lib/libc.so.6", Base: 0x7f0000000000, Size: 0x1000},
		{Path: "/opt/my app/bin with spaces", ID: id, Base: 0, Logical: true},
	} {
		got, ok := ParseImageRecord(r.AppInfo())
		if !ok || got.Path != r.Path || got.Base != r.Base || got.Size != r.Size || got.ID.String() != r.ID.String() || got.Logical != r.Logical {
			t.Errorf("%q -> %+v %v", r.AppInfo(), got, ok)
		}
	}
	for _, s := range []string{"", "gotracy image: ", "gotracy image: base=zz size=0x0 id=none path=/x", "gotracy image: base=0x1 size=0x0 id=none path=", "hello"} {
		if _, ok := ParseImageRecord(s); ok {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestKernelAndSyntheticFramesUntouched(t *testing.T) {
	tr := model.New()
	in := NewInterner(tr)
	k := model.FrameData{ImageName: in.Intern("<kernel>"), Frames: []model.InlineFrame{{Name: in.Intern(UnresolvedName), SymAddr: 5}}}
	s := model.FrameData{Frames: []model.InlineFrame{{Name: in.Intern("lua_fn"), File: in.Intern("x.lua"), Line: 3}}}
	tr.Frames[0xffffffff81000000&frameIdxMask] = k
	tr.Frames[frameSel|1] = s
	r, _ := symbols.New()
	defer r.Close()
	rep, err := Trace(context.Background(), tr, r, Options{Reset: true})
	if err != nil || rep.Candidates != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
}

func TestCancelled(t *testing.T) {
	dir := t.TempDir()
	bin := symtest.BuildC(t, dir, "prog", "", "-O0")
	tr := offlineTrace(bin, symtest.LineAddrs(t, bin, 10))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, _ := symbols.New()
	defer r.Close()
	if _, err := Trace(ctx, tr, r, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

// FuzzParseImageRecord: app-info lines are free text in a trace file; any
// line must parse or be ignored, and what parses must round-trip.
func FuzzParseImageRecord(f *testing.F) {
	f.Add("gotracy image: base=0x400001 size=0x1000 id=go:abc frames=logical path=/bin/x y")
	f.Add("gotracy image: base=0 size=0 id=none path=/a")
	f.Add("gotracy image: base=0x1 size=0x2 id=zz path=/a")
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := ParseImageRecord(s)
		if !ok {
			return
		}
		again, ok := ParseImageRecord(r.AppInfo())
		if !ok || again.Path != r.Path || again.Base != r.Base || again.Size != r.Size || again.Logical != r.Logical || again.ID.String() != r.ID.String() {
			t.Fatalf("%q -> %+v -> %q -> %+v %v", s, r, r.AppInfo(), again, ok)
		}
	})
}
