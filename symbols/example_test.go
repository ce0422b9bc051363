package symbols_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/gotracy/gotracy/symbols"
)

// Resolve an image-relative address to its source frames, innermost first,
// as `addr2line -f -i` prints them. The image is a small MinGW-built DLL
// checked in with the tests (source in testdata/src/pedll.c), where -O2
// inlined sum_squares into work.
func ExampleResolver_Lookup() {
	r, err := symbols.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()

	img := symbols.Image{Path: "testdata/pe/work.dll"} // a zero ID trusts the path
	mod, err := r.Module(img)
	if err != nil {
		fmt.Println(err)
		return
	}
	// addr2line takes file addresses; Tracy clients send image-relative ones
	// (for PE, the RVA). Module.Base converts.
	const fileAddr = 0x251f51034
	res := r.Lookup(img, fileAddr-mod.Base)
	if res.Err != nil {
		fmt.Println(res.Err)
		return
	}
	for _, f := range res.Frames {
		fmt.Printf("%s %s:%d inlined=%v\n", f.Function, f.File, f.Line, f.Inlined)
	}
	// Output:
	// sum_squares /tmp/pe/pedll.c:8 inlined=true
	// work /tmp/pe/pedll.c:23 inlined=false
}

// Resolve answers a batch on the Resolver's worker goroutines; each Result
// carries its own error, so one unknown address does not fail the batch.
func ExampleResolver_Resolve() {
	r, err := symbols.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()

	img := symbols.Image{Path: "testdata/pe/work.dll"}
	reqs := []symbols.Request{
		{Image: img, Addr: 0x1000},
		{Image: img, Addr: 0x1030},
		{Image: symbols.Image{Path: "testdata/pe/missing.dll"}, Addr: 0x1000},
	}
	for i, res := range r.Resolve(context.Background(), reqs) {
		if errors.Is(res.Err, symbols.ErrImageNotFound) {
			fmt.Printf("%#x: %s not found\n", reqs[i].Addr, reqs[i].Image.Path)
			continue
		} else if res.Err != nil {
			fmt.Printf("%#x: %v\n", reqs[i].Addr, res.Err)
			continue
		}
		f := res.Frames[len(res.Frames)-1] // the real machine frame
		fmt.Printf("%#x: %s line %d\n", reqs[i].Addr, f.Function, f.Line)
	}
	// Output:
	// 0x1000: collatz line 14
	// 0x1030: work line 22
	// 0x1000: testdata/pe/missing.dll not found
}
