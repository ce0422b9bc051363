package symbols

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
)

// Many goroutines hitting a cold Resolver at once (the per-image and
// per-unit sync.Once paths) get the same answers as one goroutine; run
// under -race in CI.
func TestConcurrentColdResolve(t *testing.T) {
	bin := cBinary(t, "cxx-O2", "g++", "templates.cpp", "-O2")
	addrs := lineAddrs(t, bin, 300)
	seq, _ := New(WithDebugDirs(), WithWorkers(1))
	defer seq.Close()
	want := make([]Result, len(addrs))
	for i, a := range addrs {
		want[i] = seq.Lookup(Image{Path: bin}, a)
	}
	r, _ := New(WithDebugDirs(), WithWorkers(4))
	defer r.Close()
	reqs := make([]Request, len(addrs))
	for i, a := range addrs {
		reqs[i] = Request{Image: Image{Path: bin}, Addr: a}
	}
	var wg sync.WaitGroup
	results := make([][]Result, 6)
	for g := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if g%2 == 0 {
				results[g] = r.Resolve(context.Background(), reqs)
				return
			}
			done := make(chan []Result)
			r.ResolveAsync(context.Background(), reqs, func(res []Result) { done <- res })
			results[g] = <-done
		}()
	}
	wg.Wait()
	for g, res := range results {
		if !reflect.DeepEqual(res, want) {
			t.Fatalf("goroutine %d got different answers", g)
		}
	}
}

func TestResolveCancelledAndClosed(t *testing.T) {
	bin := cBinary(t, "c-O2", "gcc", "inline.c", "-O2")
	r, _ := New(WithDebugDirs())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.Resolve(ctx, []Request{{Image: Image{Path: bin}, Addr: 0x1000}})
	if !errors.Is(res[0].Err, context.Canceled) {
		t.Errorf("cancelled batch: %v", res[0].Err)
	}
	r.Close()
	if res := r.Lookup(Image{Path: bin}, 0x1000); !errors.Is(res.Err, ErrClosed) {
		t.Errorf("after Close: %v", res.Err)
	}
	if _, err := New(WithWorkers(0)); err == nil {
		t.Error("New accepted 0 workers")
	}
}

// Without inlines only the innermost frame is returned, as addr2line
// without -i prints it; the symbol-table fallback names functions in a
// binary without DWARF.
func TestNoInlinesAndSymtabFallback(t *testing.T) {
	bin := cBinary(t, "c-O2", "gcc", "inline.c", "-O2")
	r, _ := New(WithDebugDirs())
	defer r.Close()
	r1, _ := New(WithDebugDirs(), WithInlines(false))
	defer r1.Close()
	for _, a := range lineAddrs(t, bin, 0) {
		all, one := r.Lookup(Image{Path: bin}, a), r1.Lookup(Image{Path: bin}, a)
		if len(one.Frames) != 1 || len(all.Frames) == 0 || one.Frames[0] != all.Frames[0] {
			t.Fatalf("%#x: without inlines %v, with %v", a, one.Frames, all.Frames)
		}
	}
	dir := t.TempDir()
	stripped := dir + "/prog"
	runTool(t, "objcopy", "--strip-debug", bin, stripped)
	r2, _ := New(WithDebugDirs())
	defer r2.Close()
	sum := symAddr(t, r2, Image{Path: stripped}, "sum")
	res := r2.Lookup(Image{Path: stripped}, sum+3)
	if len(res.Frames) != 1 || res.Frames[0].Function != "sum" || res.Frames[0].Line != 0 || res.Frames[0].FuncAddr != sum {
		t.Fatalf("symbol-table fallback: %+v", res)
	}
	if !errors.Is(res.Err, ErrImageNotFound) {
		// No debug file anywhere: the frame says why it has no line.
		t.Errorf("missing-debug reason: %v", res.Err)
	}
}
