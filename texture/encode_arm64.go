//go:build arm64 && !purego

package texture

import "unsafe"

// NEON (Advanced SIMD) is a mandatory part of AArch64, and Go's own runtime
// uses it unconditionally, so unlike amd64 there is nothing to detect: the
// NEON kernel always runs unless the purego tag forces the Go path.
var path = "neon"

// dxt1RowNEON encodes n blocks from four pixel rows into dst (8n bytes).
// It works on four blocks (16 pixels) per step, so n must be a positive
// multiple of 4; rowNEON handles every other n.
//
//go:noescape
func dxt1RowNEON(dst, r0, r1, r2, r3 *byte, n int)

func encode(out, rgba []byte, w, h int, flip bool) {
	encodeRows(out, rgba, w, h, flip, rowNEON)
}

// rowNEON runs the NEON kernel over a row of n blocks. A remainder of one
// to three blocks is handled by encoding the row's last four blocks again,
// overlapping blocks already written (encoding is deterministic, so they are
// rewritten with the same bytes). Rows narrower than four blocks (images
// under 16 pixels wide) are copied into zero-padded stack buffers, so the
// kernel never reads or writes past the caller's rows.
func rowNEON(dst, r0, r1, r2, r3 *byte, n int) {
	if n >= 4 {
		q := n &^ 3
		dxt1RowNEON(dst, r0, r1, r2, r3, q)
		if q == n {
			return
		}
		o := n - 4
		dxt1RowNEON((*byte)(unsafe.Add(unsafe.Pointer(dst), 8*o)),
			(*byte)(unsafe.Add(unsafe.Pointer(r0), 16*o)),
			(*byte)(unsafe.Add(unsafe.Pointer(r1), 16*o)),
			(*byte)(unsafe.Add(unsafe.Pointer(r2), 16*o)),
			(*byte)(unsafe.Add(unsafe.Pointer(r3), 16*o)), 4)
		return
	}
	if n <= 0 {
		return
	}
	var rows [4][64]byte
	var blk [32]byte
	copy(rows[0][:], unsafe.Slice(r0, 16*n))
	copy(rows[1][:], unsafe.Slice(r1, 16*n))
	copy(rows[2][:], unsafe.Slice(r2, 16*n))
	copy(rows[3][:], unsafe.Slice(r3, 16*n))
	dxt1RowNEON(&blk[0], &rows[0][0], &rows[1][0], &rows[2][0], &rows[3][0], 4)
	copy(unsafe.Slice(dst, 8*n), blk[:])
}
