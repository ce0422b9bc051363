//go:build !notracy

package tracy

import (
	"fmt"
	"sync/atomic"

	"github.com/gotracy/gotracy/texture"
)

// ---- messages ----

// Message sends text (copied) to the viewer's message list, on the running
// goroutine's thread.
func Message(text string) {
	if ep := rec.Load(); ep != 0 {
		state(ep).writeMessage(text, 0, 0, false, nil)
	}
}

// MessageColor is Message with a colour 0xRRGGBB.
func MessageColor(text string, rgb uint32) {
	if ep := rec.Load(); ep != 0 {
		state(ep).writeMessage(text, 0, rgb&0xFFFFFF, true, nil)
	}
}

// MessageCallstack is Message with the caller's call stack, depth frames.
func MessageCallstack(text string, depth int) {
	if ep := rec.Load(); ep != 0 {
		var buf [maxStack]uintptr
		pcs := callers(1, depth, &buf)
		state(ep).writeMessage(text, 0, 0, false, pcs)
	}
}

// MessageL sends a message whose text is a constant: it is interned and sent
// by key, so each message costs 17 bytes on the wire whatever its length.
// Use it for literal strings only; after 65536 distinct texts it falls back
// to copying.
func MessageL(text string) {
	if ep := rec.Load(); ep != 0 {
		k, ok := literalKey(text)
		state(ep).writeMessage(text, k*boolU64(ok), 0, false, nil)
	}
}

// MessageLColor is MessageL with a colour 0xRRGGBB.
func MessageLColor(text string, rgb uint32) {
	if ep := rec.Load(); ep != 0 {
		k, ok := literalKey(text)
		state(ep).writeMessage(text, k*boolU64(ok), rgb&0xFFFFFF, true, nil)
	}
}

func boolU64(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// AppInfo adds a line of application information, shown in the trace's
// information window rather than on the timeline. It is kept and replayed
// to every server that connects.
func AppInfo(text string) {
	if running.Load() {
		pushDeferred(serialEv{kind: sAppInfo, str: clipText(text)})
	}
}

// ---- plots ----

// Plot adds a point to the plot called name (float64 values).
func Plot(name string, v float64) {
	if ep := rec.Load(); ep != 0 {
		state(ep).writePlot(rPlotDouble, strKey(name), f64bits(v), 8)
	}
}

// PlotInt adds an integer point to the plot called name.
func PlotInt(name string, v int64) {
	if ep := rec.Load(); ep != 0 {
		state(ep).writePlot(rPlotInt, strKey(name), uint64(v), 8)
	}
}

// PlotFloat adds a float32 point to the plot called name.
func PlotFloat(name string, v float32) {
	if ep := rec.Load(); ep != 0 {
		state(ep).writePlot(rPlotFloat, strKey(name), f32bits(v), 4)
	}
}

// PlotConfig sets how the plot called name is drawn: value format, staircase
// steps, filled area, colour 0xRRGGBB (0 = automatic).
func PlotConfig(name string, format PlotFormat, step, fill bool, rgb uint32) {
	if !running.Load() {
		return
	}
	sz := uint64(format)
	if step {
		sz |= 1 << 8
	}
	if fill {
		sz |= 1 << 16
	}
	pushDeferred(serialEv{kind: sPlotConfig, ptr: strKey(name), size: sz, id: rgb & 0xFFFFFF})
}

// ---- frames ----

var (
	running    atomic.Bool   // between Start and Stop
	frameCount atomic.Uint64 // main frame marks since Start (on-demand payload, images)
)

// FrameMark ends the current main frame (the "Frame" set) and starts the
// next one.
func FrameMark() {
	if !running.Load() {
		return
	}
	frameCount.Add(1)
	if rec.Load() != 0 {
		pushSerial(serialEv{kind: sFrameMark})
	}
}

// FrameMarkNamed marks a frame of the continuous frame set called name.
func FrameMarkNamed(name string) {
	if rec.Load() != 0 {
		pushSerial(serialEv{kind: sFrameMark, ptr: strKey(name)})
	}
}

// FrameMarkStart starts a frame of the discontinuous set called name.
// Do not mix it with FrameMarkNamed for one name.
func FrameMarkStart(name string) {
	if rec.Load() != 0 && name != "" {
		pushSerial(serialEv{kind: sFrameMark, ptr: strKey(name), id: 1})
	}
}

// FrameMarkEnd ends the frame of the discontinuous set called name.
func FrameMarkEnd(name string) {
	if rec.Load() != 0 && name != "" {
		pushSerial(serialEv{kind: sFrameMark, ptr: strKey(name), id: 2})
	}
}

// maxImageBytes: FrameImageData (13 bytes + data) must fit one frame.
const maxImageBytes = 262144 - 13

type imageJob struct {
	rgba  []byte
	w, h  int
	frame uint32
	flip  bool
	ep    uint32
}

var (
	imageQ        = make(chan imageJob, 4)
	imagesDropped atomic.Uint64
	imagesPending atomic.Int64
)

// FrameImage attaches a screenshot to a frame: rgba is w*h RGBA8 pixels
// (copied), offset is how many frames ago it was taken, flip says the rows
// are bottom-up (OpenGL). The image is compressed to DXT1 on a background
// goroutine; at most 4 wait for it, further ones are dropped with
// ErrImageBusy rather than block the frame.
func FrameImage(rgba []byte, w, h int, offset uint8, flip bool) error {
	ep := rec.Load()
	if ep == 0 {
		return nil
	}
	if w <= 0 || h <= 0 || w%4 != 0 || h%4 != 0 || w > 65535 || h > 65535 || w*h/2 > maxImageBytes {
		return fmt.Errorf("%w: %dx%d", ErrImageSize, w, h)
	}
	if len(rgba) < w*h*4 {
		return fmt.Errorf("%w: %d bytes for %dx%d", ErrImageSize, len(rgba), w, h)
	}
	cp := make([]byte, w*h*4)
	copy(cp, rgba)
	job := imageJob{rgba: cp, w: w, h: h, frame: uint32(frameCount.Load() - uint64(offset)), flip: flip, ep: ep}
	imagesPending.Add(1)
	select {
	case imageQ <- job:
		return nil
	default:
		imagesPending.Add(-1)
		imagesDropped.Add(1)
		return ErrImageBusy
	}
}

// compressImages is the background compressor (one per Start).
func compressImages(done <-chan struct{}, exited chan<- struct{}) {
	defer close(exited)
	for {
		select {
		case <-done:
			return
		case j := <-imageQ:
			if rec.Load() == j.ep {
				dxt, err := texture.AppendDXT1(make([]byte, 0, j.w*j.h/2), j.rgba, j.w, j.h, j.flip)
				if err == nil {
					var flip uint64
					if j.flip {
						flip = 1
					}
					pushSerial(serialEv{kind: sFrameImage, id: j.frame, size: uint64(j.w)<<16 | uint64(j.h), key: flip, data: dxt})
				}
			}
			imagesPending.Add(-1)
		}
	}
}

// ---- memory ----

// Alloc reports an allocation of size bytes at ptr in the default pool.
// ptr is any non-zero key unique among live allocations (an address, an id).
func Alloc(ptr uintptr, size uint64) { memEv(sMemAlloc, ptr, size, "", 0) }

// Free reports that the allocation at ptr was freed.
func Free(ptr uintptr) { memEv(sMemFree, ptr, 0, "", 0) }

// AllocNamed reports an allocation in the named pool.
func AllocNamed(ptr uintptr, size uint64, pool string) { memEv(sMemAlloc, ptr, size, pool, 0) }

// FreeNamed reports a free in the named pool.
func FreeNamed(ptr uintptr, pool string) { memEv(sMemFree, ptr, 0, pool, 0) }

// AllocCallstack is Alloc with the caller's call stack, depth frames.
func AllocCallstack(ptr uintptr, size uint64, depth int) { memEv(sMemAlloc, ptr, size, "", depth) }

// FreeCallstack is Free with the caller's call stack, depth frames.
func FreeCallstack(ptr uintptr, depth int) { memEv(sMemFree, ptr, 0, "", depth) }

// AllocNamedCallstack is AllocNamed with the caller's call stack.
func AllocNamedCallstack(ptr uintptr, size uint64, pool string, depth int) {
	memEv(sMemAlloc, ptr, size, pool, depth)
}

// FreeNamedCallstack is FreeNamed with the caller's call stack.
func FreeNamedCallstack(ptr uintptr, pool string, depth int) { memEv(sMemFree, ptr, 0, pool, depth) }

// SecureAlloc is Alloc for code that may run while the profiler is stopping
// or stopped (finalizers, exit paths). Every memory call of this package is
// already safe then (it checks the profiler is recording and does nothing
// otherwise); the Secure names exist so code ported from Tracy's
// TracySecureAlloc keeps its meaning.
func SecureAlloc(ptr uintptr, size uint64) { memEv(sMemAlloc, ptr, size, "", 0) }

// SecureFree is Free; see SecureAlloc.
func SecureFree(ptr uintptr) { memEv(sMemFree, ptr, 0, "", 0) }

// SecureAllocNamed is AllocNamed; see SecureAlloc.
func SecureAllocNamed(ptr uintptr, size uint64, pool string) { memEv(sMemAlloc, ptr, size, pool, 0) }

// SecureFreeNamed is FreeNamed; see SecureAlloc.
func SecureFreeNamed(ptr uintptr, pool string) { memEv(sMemFree, ptr, 0, pool, 0) }

// MemDiscard frees every live allocation of the named pool at once.
func MemDiscard(pool string) {
	if rec.Load() == 0 || pool == "" {
		return
	}
	pushSerial(serialEv{kind: sMemDiscard, tid: uint32(goid()), key: strKey(pool)})
}

func memEv(kind serialKind, ptr uintptr, size uint64, pool string, depth int) {
	if rec.Load() == 0 {
		return
	}
	ev := serialEv{kind: kind, tid: uint32(goid()), ptr: uint64(ptr), size: size & (1<<48 - 1)}
	if pool != "" {
		ev.key = strKey(pool)
	}
	if depth > 0 {
		var buf [maxStack]uintptr
		pcs := callers(2, depth, &buf)
		ev.pcs = append([]uintptr(nil), pcs...)
	}
	pushSerial(ev)
}
