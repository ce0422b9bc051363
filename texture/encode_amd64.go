//go:build amd64 && !purego

package texture

import "golang.org/x/sys/cpu"

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
