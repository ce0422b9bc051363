package protocol

import (
	"encoding/binary"
	"math/bits"
)

// This file is a small LZ4 block codec (the raw block format: no frame
// header, no checksum) that works in place over a history buffer. Both
// directions keep earlier stream bytes in the same slice as the block being
// coded, so Tracy's 64 KiB cross-frame dictionary is simply "the bytes
// before the current position" and costs no copying per frame.

const (
	lz4MinMatch  = 4
	lz4MFLimit   = 12 // a match may not start in the last 12 bytes of a block
	lz4LastLits  = 5  // the last 5 bytes of a block are always literals
	lz4MaxOffset = 65535
	lz4HashLog   = 14
)

// lz4Decode decodes the raw block src into buf starting at buf[pos],
// writing at most max bytes. Matches may reach back into buf[lo:pos] (the
// history) but never before lo nor more than 65535 bytes. It returns the
// number of bytes written. Errors are ErrCorruptLZ4 for malformed blocks
// and ErrFrameSize when the output would exceed max.
func lz4Decode(buf []byte, lo, pos, max int, src []byte) (int, error) {
	d := pos
	dend := pos + max
	if dend > len(buf) {
		dend = len(buf)
	}
	si := 0
	for {
		if si >= len(src) {
			return 0, ErrCorruptLZ4
		}
		tok := src[si]
		si++
		lit := int(tok >> 4)
		if lit == 15 {
			for {
				if si >= len(src) {
					return 0, ErrCorruptLZ4
				}
				b := src[si]
				si++
				lit += int(b)
				if b != 255 {
					break
				}
			}
		}
		if lit > 0 {
			if lit > len(src)-si {
				return 0, ErrCorruptLZ4
			}
			if lit > dend-d {
				return 0, ErrFrameSize
			}
			if lit <= 16 && len(src)-si >= 16 && dend-d >= 16 {
				// Short literals (most of them) move as one 16-byte
				// word; what lands past them is overwritten next or lies
				// past the output, never before it.
				*(*[16]byte)(buf[d:]) = *(*[16]byte)(src[si:])
			} else {
				copy(buf[d:d+lit], src[si:si+lit])
			}
			d += lit
			si += lit
		}
		if si == len(src) {
			return d - pos, nil // the last sequence has literals only
		}
		if len(src)-si < 2 {
			return 0, ErrCorruptLZ4
		}
		off := int(src[si]) | int(src[si+1])<<8
		si += 2
		ml := int(tok & 15)
		if ml == 15 {
			for {
				if si >= len(src) {
					return 0, ErrCorruptLZ4
				}
				b := src[si]
				si++
				ml += int(b)
				if b != 255 {
					break
				}
			}
		}
		ml += lz4MinMatch
		s := d - off
		if off == 0 || s < lo {
			return 0, ErrCorruptLZ4
		}
		if ml > dend-d {
			return 0, ErrFrameSize
		}
		end := d + ml
		if off >= 16 && ml <= 16 && dend-d >= 16 {
			// A short match at least 16 bytes back: one word, whose source
			// lies wholly before d (the same over-copy as literals).
			*(*[16]byte)(buf[d:]) = *(*[16]byte)(buf[s:])
			d = end
			continue
		}
		if off >= ml {
			copy(buf[d:end], buf[s:s+ml])
			d = end
			continue
		}
		// Overlapping match: the source is periodic with period off, so
		// each copy may take everything written so far, doubling the step.
		for d < end {
			d += copy(buf[d:end], buf[s:d])
		}
	}
}

// lz4Encoder is a greedy LZ4 block compressor with a prefix dictionary: the
// bytes before the block in the same buffer.
type lz4Encoder struct {
	// table maps a hash of 4 bytes to their last position in the buffer
	// plus one (0 = empty).
	table [1 << lz4HashLog]int32
}

func lz4Hash(u uint32) uint32 { return (u * 2654435761) >> (32 - lz4HashLog) }

// reset forgets all positions (a new stream).
func (e *lz4Encoder) reset() { e.table = [1 << lz4HashLog]int32{} }

// shift tells the encoder the buffer contents moved down by n bytes.
func (e *lz4Encoder) shift(n int) {
	for i, v := range e.table {
		v -= int32(n)
		if v < 0 {
			v = 0
		}
		e.table[i] = v
	}
}

// compress appends the block for buf[start:end] to dst. Matches may refer to
// buf[lo:start] (the dictionary; the caller keeps it within 64 KiB) and to
// the block itself.
func (e *lz4Encoder) compress(dst, buf []byte, lo, start, end int) []byte {
	anchor := start
	if end-start > lz4MFLimit {
		limit := end - lz4MFLimit
		matchLimit := end - lz4LastLits
		i := start
		for i < limit {
			seq := binary.LittleEndian.Uint32(buf[i:])
			h := lz4Hash(seq)
			ref := int(e.table[h]) - 1
			e.table[h] = int32(i + 1)
			if ref < lo || i-ref > lz4MaxOffset || binary.LittleEndian.Uint32(buf[ref:]) != seq {
				i += 1 + (i-anchor)>>6
				continue
			}
			for i > anchor && ref > lo && buf[i-1] == buf[ref-1] {
				i--
				ref--
			}
			ml := lz4MinMatch + matchLen(buf[i+lz4MinMatch:matchLimit], buf[ref+lz4MinMatch:])
			dst = lz4Sequence(dst, buf[anchor:i], i-ref, ml)
			i += ml
			anchor = i
			if i < limit {
				p := i - 2
				e.table[lz4Hash(binary.LittleEndian.Uint32(buf[p:]))] = int32(p + 1)
			}
		}
	}
	return lz4Sequence(dst, buf[anchor:end], 0, 0)
}

// matchLen counts the common prefix of a and b (len(b) >= len(a) or stops
// at the shorter).
func matchLen(a, b []byte) int {
	n := 0
	for len(a) >= 8 && len(b) >= 8 {
		x := binary.LittleEndian.Uint64(a) ^ binary.LittleEndian.Uint64(b)
		if x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
		a, b = a[8:], b[8:]
	}
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		n++
	}
	return n
}

// lz4Sequence appends one sequence: literals, then a match of length ml at
// distance off (ml 0: the final literal-only sequence).
func lz4Sequence(dst, lits []byte, off, ml int) []byte {
	ll := len(lits)
	tok := byte(0)
	if ll >= 15 {
		tok = 15 << 4
	} else {
		tok = byte(ll) << 4
	}
	mlc := 0
	if ml > 0 {
		mlc = ml - lz4MinMatch
		if mlc >= 15 {
			tok |= 15
		} else {
			tok |= byte(mlc)
		}
	}
	dst = append(dst, tok)
	if ll >= 15 {
		dst = appendLZ4Len(dst, ll-15)
	}
	dst = append(dst, lits...)
	if ml == 0 {
		return dst
	}
	dst = append(dst, byte(off), byte(off>>8))
	if mlc >= 15 {
		dst = appendLZ4Len(dst, mlc-15)
	}
	return dst
}

func appendLZ4Len(dst []byte, n int) []byte {
	for n >= 255 {
		dst = append(dst, 255)
		n -= 255
	}
	return append(dst, byte(n))
}

// appendLiteralBlock appends a literal-only block for p (always valid).
func appendLiteralBlock(dst, p []byte) []byte { return lz4Sequence(dst, p, 0, 0) }
