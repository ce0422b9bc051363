//go:build (amd64 || arm64) && !purego

package texture

import "unsafe"

// EncoderPath names the DXT1 encoder implementation this process uses:
// "avx2" or "sse4.1" on amd64, "neon" on arm64, or "go" (the portable code;
// forced by the purego build tag). All produce identical bytes.
func EncoderPath() string { return path }

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
