//go:build linux && !notracy

package tracy

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/protocol"
)

func TestExeImage(t *testing.T) {
	im := exeImg()
	if !im.ok {
		t.Fatal("the test binary could not be described")
	}
	pc := uint64(reflect.ValueOf(TestExeImage).Pointer())
	if pc < im.start || pc >= im.end {
		t.Fatalf("own code %#x outside the image [%#x, %#x)", pc, im.start, im.end)
	}
	if !strings.HasPrefix(im.id, "go:") && len(im.id) < 16 {
		t.Errorf("build id %q", im.id)
	}
	if im.path != exePath {
		t.Errorf("path %q, want %q", im.path, exePath)
	}
	if !protocol.HasExtImages(advertise("OS: linux\n")) || advertise(advertise("x")) != advertise("x") {
		t.Error("advertise")
	}
	b, ok := appendImagesAnswer(nil)
	if !ok {
		t.Fatal("no image list")
	}
	var d protocol.ItemDecoder
	d.Reset(b, 0)
	it, _ := d.Next()
	imgs, err := protocol.ParseExtImages(it.Payload())
	if err != nil || len(imgs) != 1 || imgs[0].Path != exePath || !imgs[0].Logical || imgs[0].Base != im.bias+1 {
		t.Fatalf("image list %+v %v", imgs, err)
	}
}

func TestScanMaps(t *testing.T) {
	maps := `00400000-00401000 r--p 00001000 08:01 123 /bin/prog
00401000-00500000 r-xp 00000000 08:01 123 /bin/prog
7f0000000000-7f0000001000 r--p 00000000 08:01 456 /bin/prog two
`
	if v, ok := scanMaps(strings.NewReader(maps), "/bin/prog"); !ok || v != 0x401000 {
		t.Errorf("got %#x %v", v, ok)
	}
	if v, ok := scanMaps(strings.NewReader(maps), "/bin/prog two"); !ok || v != 0x7f0000000000 {
		t.Errorf("path with a space: %#x %v", v, ok)
	}
	if _, ok := scanMaps(strings.NewReader(maps), "/bin/other"); ok {
		t.Error("found an unmapped file")
	}
}

// An offline answer names the image and the call site relative to it.
func TestOfflineFrameAnswer(t *testing.T) {
	im := exeImg()
	var pcs [1]uintptr
	runtime.Callers(1, pcs[:])
	b := appendOfflineFrameAnswer(nil, uint64(pcs[0]))
	var d protocol.ItemDecoder
	d.Reset(b, 0)
	var types []protocol.QueueType
	var sym uint64
	for it, ok := d.Next(); ok; it, ok = d.Next() {
		types = append(types, it.Type)
		if it.Type == protocol.CallstackFrame {
			sym = it.U64(5)
		}
	}
	if len(types) != 5 || sym != uint64(pcs[0])-1-im.bias {
		t.Fatalf("items %v, symAddr %#x (pc %#x, bias %#x)", types, sym, pcs[0], im.bias)
	}
}

//go:noinline
func benchStack(depth int, pcs []uintptr) int {
	if depth > 0 {
		return benchStack(depth-1, pcs)
	}
	return runtime.Callers(1, pcs)
}

// Client CPU per captured call stack: answering the frame queries for one
// 16-frame stack (every address new, the worst case: a server asks each
// address once per session) by resolving through the runtime's tables
// (client-side) or in offline form for the server (gotracy extension).
func BenchmarkFrameAnswers(b *testing.B) {
	pcs := make([]uintptr, 16)
	pcs = pcs[:benchStack(20, pcs)]
	exeImg()
	for _, mode := range []struct {
		name string
		fn   func([]byte, uint64) []byte
	}{{"client-side", appendFrameAnswer}, {"server-side", appendOfflineFrameAnswer}} {
		b.Run(mode.name, func(b *testing.B) {
			buf := make([]byte, 0, 64<<10)
			b.ReportAllocs()
			for b.Loop() {
				buf = buf[:0]
				for _, pc := range pcs {
					buf = mode.fn(buf, uint64(pc))
				}
			}
			b.SetBytes(int64(len(buf)))
			b.ReportMetric(float64(len(pcs)), "frames/stack")
		})
	}
}
