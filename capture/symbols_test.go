package capture

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/symtest"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/symbolize"
	"github.com/gotracy/gotracy/symbols"
	"github.com/gotracy/gotracy/tracefile"
)

// offlineStream is what a TRACY_SYMBOL_OFFLINE_RESOLVE client sends for
// call stacks through image, loaded at base: stacks of absolute addresses
// with messages, then the answers to the server's frame queries, each one
// level "[unresolved]" / "[unknown]" with symAddr = the image-relative
// address, and a kernel frame Tracy resolves on the client.
func offlineStream(t *testing.T, image string, base uint64, addrs []uint64) []byte {
	t.Helper()
	var b []byte
	app := func(nb []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b = nb
	}
	var refs protocol.TimeRefs
	b = refs.AppendThreadContext(b, 1)
	const kernel = 0xffffffff81000010
	for i := 0; i < len(addrs); i += 8 {
		var stack []uint64
		for _, a := range addrs[i:min(i+8, len(addrs))] {
			stack = append(stack, base+a)
		}
		stack = append(stack, kernel)
		app(protocol.AppendCallstackPayloadFrames(b, uint64(i+1), stack))
		b = protocol.AppendCallstack(b)
		app(protocol.AppendSingleString(b, fmt.Sprintf("stack %d", i)))
		b = protocol.AppendMessageCallstack(b, int64(1000+i), 0)
	}
	for _, a := range addrs {
		app(protocol.AppendCallstackFrameAnswer(b, base+a, image, []protocol.CallstackFrameInfo{
			{Name: symbolize.UnresolvedName, File: symbolize.UnknownFile, SymAddr: a},
		}))
	}
	app(protocol.AppendCallstackFrameAnswer(b, kernel, "<kernel>", []protocol.CallstackFrameInfo{
		{Name: "do_syscall_64", File: "<kernel>", SymAddr: kernel - 0x10, SymLen: 0x100},
	}))
	b = protocol.AppendTerminate(b)
	return stream(t, b)
}

func TestServerSideOfflineFrames(t *testing.T) {
	const base = 0x5600d0000000
	dir := t.TempDir()
	bin := symtest.BuildC(t, dir, "prog", "", "-O2")
	addrs := symtest.LineAddrs(t, bin, 64)
	ref := symtest.Addr2Line(t, bin, addrs)
	raw := offlineStream(t, bin, base, addrs)

	r, err := symbols.New()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var log bytes.Buffer
	res, err := Replay(context.Background(), bytes.NewReader(raw), WithSymbols(SymbolsServer, r), func(c *config) { c.queryLog = &log })
	// The stream has no answers for these: the replay says so.
	wantUnanswered(t, err, "1 thread names, 1 symbols")
	if n := queryCounts(log.Bytes())[protocol.ServerQuerySymbol]; n != 1 {
		t.Errorf("%d symbol queries, want 1 (the kernel frame): an offset is no symbol address", n)
	}
	var file bytes.Buffer
	if err := tracefile.Write(&file, res.Trace); err != nil {
		t.Fatal(err)
	}
	tr, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		t.Fatal(err)
	}
	compared, inlined := 0, 0
	for i, a := range addrs {
		fd, ok := tr.Frames[(base+a)&frameIdxMask]
		if !ok {
			t.Fatalf("%#x: no frame", a)
		}
		if !symtest.Known(ref[i]) {
			continue
		}
		var got []symtest.Frame
		for _, l := range fd.Frames {
			got = append(got, symtest.Frame{Function: tr.Str(l.Name), File: tr.Str(l.File), Line: int(l.Line)})
			if l.SymAddr != a {
				t.Errorf("%#x: symAddr %#x, want the offset kept", a, l.SymAddr)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(ref[i]) {
			t.Errorf("%#x: got %v, addr2line -f -i -C says %v", a, got, ref[i])
		}
		if tr.Str(fd.ImageName) != bin {
			t.Errorf("%#x: image %q", a, tr.Str(fd.ImageName))
		}
		compared++
		if len(got) > 1 {
			inlined++
		}
	}
	if compared < len(addrs)/2 || inlined == 0 {
		t.Fatalf("compared %d of %d addresses, %d with inline levels", compared, len(addrs), inlined)
	}
	if k := tr.Frames[0xffffffff81000010&frameIdxMask]; tr.Str(k.Frames[0].Name) != "do_syscall_64" {
		t.Errorf("kernel frame changed: %+v", k)
	}
	rep := res.Symbols
	if rep == nil || rep.Candidates != len(addrs) || rep.Resolved+rep.Unresolved != len(addrs) || rep.Resolved < compared {
		t.Fatalf("report %+v", rep)
	}
	if rec, ok := symbolize.Images(tr)[bin]; !ok || rec.Base != base {
		t.Errorf("image record %+v %v", rec, ok)
	}

	// client and none keep the frames as sent.
	for _, mode := range []SymbolMode{SymbolsClient, SymbolsNone} {
		res, err := Replay(context.Background(), bytes.NewReader(raw), WithSymbols(mode, r))
		// Here the client's frames are kept, so their symbols are asked.
		// (none keeps frames as sent but asks no symbol for an offline frame).
		wantUnanswered(t, err, map[SymbolMode]string{SymbolsClient: "1 thread names, 37 symbols", SymbolsNone: "1 thread names, 1 symbols"}[mode])
		if res.Symbols != nil {
			t.Errorf("%v: report %+v", mode, res.Symbols)
		}
		for _, a := range addrs {
			fd := res.Trace.Frames[(base+a)&frameIdxMask]
			if off, ok := symbolize.Offline(res.Trace, &fd); !ok || off != a {
				t.Fatalf("%v: %#x resolved: %+v", mode, a, fd)
			}
		}
	}
}

// A stream whose image is not on this machine: the capture completes, the
// frames stay in offline form, and the report says why.
func TestServerSideMissingImage(t *testing.T) {
	raw := offlineStream(t, "/nonexistent/gotracy/prog", 0x400000, []uint64{0x1000, 0x1010})
	r, _ := symbols.New()
	defer r.Close()
	res, err := Replay(context.Background(), bytes.NewReader(raw), WithSymbols(SymbolsServer, r))
	// The stream has no answers for these: the replay says so.
	wantUnanswered(t, err, "1 thread names, 1 symbols")
	rep := res.Symbols
	if rep.Unresolved != 2 || len(rep.Images) != 1 || rep.Images[0].Reasons[0].Kind != symbols.ErrImageNotFound {
		t.Fatalf("report %+v", rep)
	}
	for id, fd := range res.Trace.Frames {
		if model.StrID(0) != fd.ImageName && res.Trace.Str(fd.ImageName) == "/nonexistent/gotracy/prog" {
			if _, ok := symbolize.Offline(res.Trace, &fd); !ok {
				t.Errorf("%#x changed", id)
			}
		}
	}
}

func TestParseSymbolMode(t *testing.T) {
	for _, m := range []SymbolMode{SymbolsClient, SymbolsServer, SymbolsNone} {
		if got, err := ParseSymbolMode(m.String()); err != nil || got != m {
			t.Errorf("%v: %v %v", m, got, err)
		}
	}
	if _, err := ParseSymbolMode("both"); err == nil {
		t.Error("accepted both")
	}
}

// A real Tracy client's recording (frames resolved by the client): server
// mode asks nothing more, changes no frame and adds no image record.
func TestServerModeKeepsClientResolvedFrames(t *testing.T) {
	p := fixtures.Path(t, "demo.c2s.bin")
	r, _ := symbols.New()
	defer r.Close()
	replay := func(opts ...Option) (*Result, map[protocol.ServerQuery]int) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var log bytes.Buffer
		res, err := Replay(context.Background(), f, append(opts, func(c *config) { c.queryLog = &log })...)
		if err != nil {
			t.Fatal(err)
		}
		return res, queryCounts(log.Bytes())
	}
	client, cq := replay()
	server, sq := replay(WithSymbols(SymbolsServer, r))
	if fmt.Sprint(cq) != fmt.Sprint(sq) {
		t.Errorf("queries differ: client mode %v, server mode %v", cq, sq)
	}
	if len(client.Trace.Frames) == 0 || fmt.Sprint(client.Trace.Frames) != fmt.Sprint(server.Trace.Frames) {
		t.Errorf("frames differ (%d vs %d)", len(client.Trace.Frames), len(server.Trace.Frames))
	}
	if len(client.Trace.AppInfo) != len(server.Trace.AppInfo) || server.Symbols.Candidates != 0 {
		t.Errorf("app info %d vs %d, report %+v", len(client.Trace.AppInfo), len(server.Trace.AppInfo), server.Symbols)
	}
}
