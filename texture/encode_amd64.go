//go:build amd64 && !purego

package texture

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// EncoderPath names the DXT1 encoder implementation this process uses:
// "avx2", "sse4.1" or "go" (the portable code; forced by the purego build
// tag). All produce identical bytes.
func EncoderPath() string { return path }

var path = func() string {
	switch {
	case cpu.X86.HasAVX2:
		return "avx2"
	case cpu.X86.HasSSE41 && cpu.X86.HasSSSE3:
		return "sse4.1"
	}
	return "go"
}()

// dxt1RowSSE41 encodes n blocks from four pixel rows into dst (8n bytes).
//
//go:noescape
func dxt1RowSSE41(dst, r0, r1, r2, r3 *byte, n int)

// dxt1RowAVX2 is dxt1RowSSE41 taking two blocks per step; n may be odd.
//
//go:noescape
func dxt1RowAVX2(dst, r0, r1, r2, r3 *byte, n int)

func encode(out, rgba []byte, w, h int, flip bool) {
	switch path {
	case "avx2":
		encodeRows(out, rgba, w, h, flip, dxt1RowAVX2)
	case "sse4.1":
		encodeRows(out, rgba, w, h, flip, dxt1RowSSE41)
	default:
		encodeGeneric(out, rgba, w, h, flip)
	}
}

// encodeRows drives a row kernel over the image. The caller has checked
// len(rgba) == w*h*4 and len(out) == w*h/2, which is what keeps the
// kernels' unchecked pointer arithmetic inside the buffers.
func encodeRows(out, rgba []byte, w, h int, flip bool, row func(dst, r0, r1, r2, r3 *byte, n int)) {
	if len(rgba) < w*h*4 || len(out) < w*h/2 || w < 4 || h < 4 {
		panic("texture: encodeRows: buffer too small") // unreachable after AppendDXT1's checks
	}
	stride := w * 4
	base := unsafe.Pointer(unsafe.SliceData(rgba))
	dst := unsafe.Pointer(unsafe.SliceData(out))
	for by := 0; by < h/4; by++ {
		var r0, step int
		if flip {
			r0, step = (h-1-4*by)*stride, -stride
		} else {
			r0, step = 4*by*stride, stride
		}
		row((*byte)(unsafe.Add(dst, by*w*2)),
			(*byte)(unsafe.Add(base, r0)),
			(*byte)(unsafe.Add(base, r0+step)),
			(*byte)(unsafe.Add(base, r0+2*step)),
			(*byte)(unsafe.Add(base, r0+3*step)),
			w/4)
	}
}
