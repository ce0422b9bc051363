//go:build !notracy

package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/symbolize"
	"github.com/gotracy/gotracy/symbols"
	"github.com/gotracy/gotracy/tracy"
)

//go:noinline
func extLeaf(i int) {
	tracy.MessageCallstack(fmt.Sprintf("leaf %d", i), 32)
}

//go:noinline
func extMiddle(i int) {
	for j := range 3 {
		extLeaf(i + j)
	}
}

// extInlined is small enough to be inlined into extOuter: its frame is an
// inline level in both modes.
func extInlined(i int) { extMiddle(i * 2) }

//go:noinline
func extOuter(n int) {
	for i := range n {
		extInlined(i)
	}
	func() { extLeaf(-1) }()
}

// captureGoClient captures this process's own Go client with the given
// symbol mode and returns the result.
func captureGoClient(t *testing.T, mode capture.SymbolMode, r *symbols.Resolver) *capture.Result {
	t.Helper()
	if err := tracy.Start(tracy.WithPort(0), tracy.WithBroadcast(false), tracy.WithProgramName("ext-test")); err != nil {
		t.Fatalf("tracy.Start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	type out struct {
		res *capture.Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := capture.Connect(ctx, capture.JoinAddr("127.0.0.1", tracy.Port()), capture.WithSymbols(mode, r))
		ch <- out{res, err}
	}()
	if err := tracy.WaitConnected(ctx); err != nil {
		tracy.Stop()
		t.Fatalf("WaitConnected: %v", err)
	}
	extOuter(4)
	if err := tracy.Stop(); err != nil {
		t.Fatalf("tracy.Stop: %v", err)
	}
	o := <-ch
	if o.err != nil {
		t.Fatalf("capture (%v): %v", mode, o.err)
	}
	return o.res
}

// messageFrames renders every frame of every message call stack: id ->
// "function file:line | ..." innermost first.
func messageFrames(tr *model.Trace) map[uint64]string {
	m := map[uint64]string{}
	for _, msg := range tr.Messages {
		if msg.CallStack == 0 {
			continue
		}
		for _, id := range tr.CallStack(msg.CallStack) {
			fd := tr.Frames[id]
			var parts []string
			for _, l := range fd.Frames {
				parts = append(parts, fmt.Sprintf("%s %s:%d", tr.Str(l.Name), tr.Str(l.File), l.Line))
			}
			m[id] = strings.Join(parts, " | ")
		}
	}
	return m
}

// The gotracy image-list extension: with --symbols=server the Go client
// sends its image list and leaves its frames to the server, which resolves
// them from the executable's DWARF to the same function, file and line
// (inline levels included) as the client's runtime tables give.
func TestGoClientServerSideFramesEqualClientSide(t *testing.T) {
	r, err := symbols.New()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	client := captureGoClient(t, capture.SymbolsClient, nil)
	if client.Symbols != nil {
		t.Fatalf("client mode resolved on the server: %+v", client.Symbols)
	}
	if !protocol.HasExtImages(client.Welcome.HostInfo) {
		t.Skipf("the client does not advertise its images on this platform (HostInfo %q)", client.Welcome.HostInfo)
	}
	server := captureGoClient(t, capture.SymbolsServer, r)

	want, got := messageFrames(client.Trace), messageFrames(server.Trace)
	if len(want) == 0 {
		t.Fatal("no call-stack frames captured")
	}
	rep := server.Symbols
	if rep == nil || rep.Candidates == 0 || rep.Resolved != rep.Candidates {
		t.Fatalf("server resolution report %+v", rep)
	}
	// The two captures run extOuter from different lines of this test, so
	// the frames below it differ; every frame both have must agree, and
	// the test's own functions, inlined ones included, must be among them.
	compared, seen := 0, map[string]bool{}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			continue
		}
		compared++
		if g != w {
			t.Errorf("frame %#x:\nserver %s\nclient %s", id, g, w)
		}
		for _, fn := range []string{"extLeaf", "extMiddle", "extInlined", "extOuter.func1", "extOuter"} {
			if strings.Contains(w, "gotracy."+fn+" ") {
				seen[fn] = true
			}
		}
	}
	if len(seen) != 5 || compared < 8 {
		t.Errorf("compared %d frames, of the test's functions %v: the comparison proves little", compared, seen)
	}
	// The server-side trace records the image with its build id, so
	// `gotracy symbolize --reset` can verify it later.
	var rec symbolize.ImageRecord
	for _, im := range symbolize.Images(server.Trace) {
		rec = im
	}
	if rec.Path == "" || rec.ID.IsZero() || rec.Size == 0 || !rec.Logical {
		t.Errorf("image record %+v", rec)
	}
	if len(rep.Images) != 1 || rep.Images[0].ID.String() != rec.ID.String() {
		t.Errorf("resolution was not verified against the client's id: %+v", rep.Images)
	}

	// --symbols=none: the client still leaves its frames unresolved, the
	// trace keeps them with the image record, and offline symbolization
	// later gives the same frames again.
	none := captureGoClient(t, capture.SymbolsNone, nil)
	unresolved := 0
	for _, s := range messageFrames(none.Trace) {
		if strings.HasPrefix(s, symbolize.UnresolvedName) {
			unresolved++
		}
	}
	if unresolved == 0 {
		t.Fatal("none mode: the client resolved its frames itself")
	}
	orep, err := symbolize.Trace(context.Background(), none.Trace, r, symbolize.Options{})
	if err != nil || orep.Resolved != orep.Candidates || orep.Candidates < unresolved {
		t.Fatalf("offline symbolize: %+v %v", orep, err)
	}
	compared = 0
	for id, g := range messageFrames(none.Trace) {
		if w, ok := want[id]; ok {
			compared++
			if g != w {
				t.Errorf("frame %#x:\nsymbolize %s\nclient    %s", id, g, w)
			}
		}
	}
	if compared < 8 {
		t.Errorf("none mode + symbolize: compared %d frames", compared)
	}
}
