package tracefile

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// decoder is a buffered little-endian reader over the decompressed payload.
// Malformed input makes it panic with a *CorruptError, which readPayload
// recovers: this keeps every section reader a straight line of field reads
// (as the format is) without an error check after each of them.
type decoder struct {
	r       io.Reader
	buf     []byte
	p, n    int   // read position and end of valid data in buf
	base    int64 // payload offset of buf[0]
	limit   int64 // upper bound of the payload size; math.MaxInt64 if unknown
	eof     bool
	section string

	progress   func(done int64)
	nextReport int64

	// With a block source (the container Reader), buf is the source's
	// current block itself, not a copy: the decompressed payload is read
	// where the decoders put it. A read that spans two blocks is served
	// from stitch: the unread end of one block and the first bytes of the
	// next (blk, of which blk[:blkOff] are the end of stitch); once the
	// reads pass into blk, buf is blk again.
	blocks   blockSource
	stitch   []byte
	inStitch bool // buf is stitch
	blk      []byte
	blkOff   int
}

// blockSource hands out the payload a block at a time without copying
// (container.Reader.NextBlock); a block is valid until the next call.
type blockSource interface {
	NextBlock() ([]byte, error)
}

const decBufSize = 1 << 18

func newDecoder(r io.Reader, limit int64) *decoder {
	if limit < 0 {
		limit = math.MaxInt64
	}
	if bs, ok := r.(blockSource); ok {
		return &decoder{r: r, blocks: bs, limit: limit, nextReport: 1 << 22}
	}
	return &decoder{r: r, buf: make([]byte, decBufSize), limit: limit, nextReport: 1 << 22}
}

// offset is the payload offset of the next byte to read.
func (d *decoder) offset() int64 { return d.base + int64(d.p) }

func (d *decoder) fail(off int64, err error) {
	panic(&CorruptError{Offset: off, Section: d.section, Err: err})
}

func (d *decoder) failf(format string, args ...any) {
	d.fail(d.offset(), fmt.Errorf(format, args...))
}

// fill makes at least k bytes available at d.p (k <= decBufSize).
func (d *decoder) fill(k int) {
	if d.blocks != nil {
		d.fillBlocks(k)
	} else {
		d.fillCopy(k)
	}
	if d.base+int64(d.n) > d.limit {
		d.fail(d.limit, fmt.Errorf("payload longer than its bound of %d bytes", d.limit))
	}
	if d.progress != nil && d.base+int64(d.n) >= d.nextReport {
		d.progress(d.base + int64(d.n))
		d.nextReport = d.base + int64(d.n) + 1<<22
	}
	if d.n < k+d.p {
		d.fail(d.base+int64(d.n), io.ErrUnexpectedEOF)
	}
}

// fillBlocks is fill from a block source.
func (d *decoder) fillBlocks(k int) {
	for d.n-d.p < k && !d.eof {
		r := d.n - d.p
		if d.inStitch && d.blk != nil && r <= d.blkOff {
			// The unread bytes are the last ones copied from blk: go on
			// reading in blk itself.
			d.base += int64(d.n - d.blkOff)
			d.buf, d.p, d.n = d.blk, d.blkOff-r, len(d.blk)
			d.blk, d.inStitch = nil, false
			continue
		}
		if r == 0 {
			d.base += int64(d.n)
			d.buf, d.p, d.n, d.inStitch = nil, 0, 0, false
		} else {
			// Keep the unread bytes at the front of stitch, then the rest
			// of blk: the source may reuse a block's memory once asked for
			// the next one.
			if d.inStitch {
				copy(d.stitch, d.stitch[d.p:d.n])
				d.stitch = d.stitch[:r]
				if d.blk != nil {
					d.stitch = append(d.stitch, d.blk[d.blkOff:]...)
					d.blk = nil
				}
			} else {
				d.stitch = append(d.stitch[:0], d.buf[d.p:d.n]...)
			}
			d.base += int64(d.p)
			d.buf, d.p, d.n, d.inStitch = d.stitch, 0, len(d.stitch), true
			if d.n >= k {
				continue
			}
		}
		nb, err := d.blocks.NextBlock()
		if err == io.EOF {
			d.eof = true
			break
		} else if err != nil {
			panic(readError{err})
		}
		if !d.inStitch {
			d.buf, d.p, d.n = nb, 0, len(nb) // nothing unread: read in nb
			continue
		}
		m := min(len(nb), k-d.n)
		d.stitch = append(d.stitch, nb[:m]...)
		d.buf, d.n = d.stitch, len(d.stitch)
		d.blk, d.blkOff = nb, m
	}
}

// fillCopy is fill from a plain reader, into buf.
func (d *decoder) fillCopy(k int) {
	if d.p > 0 {
		copy(d.buf, d.buf[d.p:d.n])
		d.base += int64(d.p)
		d.n -= d.p
		d.p = 0
	}
	for d.n < k && !d.eof {
		m, err := d.r.Read(d.buf[d.n:])
		d.n += m
		if err == io.EOF {
			d.eof = true
		} else if err != nil {
			panic(readError{err})
		} else if m == 0 {
			// Tolerate a reader that returns (0, nil) a few times.
			continue
		}
	}
}

// readError carries an I/O error (not corruption) out of the decoder.
type readError struct{ err error }

// next returns the next k bytes and advances past them.
func (d *decoder) next(k int) []byte {
	if d.n-d.p < k {
		d.fill(k)
	}
	b := d.buf[d.p : d.p+k : d.p+k]
	d.p += k
	return b
}

func (d *decoder) u8() uint8   { return d.next(1)[0] }
func (d *decoder) u16() uint16 { return binary.LittleEndian.Uint16(d.next(2)) }
func (d *decoder) u32() uint32 { return binary.LittleEndian.Uint32(d.next(4)) }
func (d *decoder) u64() uint64 { return binary.LittleEndian.Uint64(d.next(8)) }
func (d *decoder) i16() int16  { return int16(d.u16()) }
func (d *decoder) i32() int32  { return int32(d.u32()) }
func (d *decoder) i64() int64  { return int64(d.u64()) }
func (d *decoder) f32() float32 {
	return math.Float32frombits(d.u32())
}
func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }
func (d *decoder) u24() uint32 {
	b := d.next(3)
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
}
func (d *decoder) i48() int64 {
	b := d.next(6)
	u := uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint16(b[4:]))<<32
	return int64(u<<16) >> 16
}
func (d *decoder) bool() bool { return d.u8() != 0 }

// remaining is the most payload bytes that can still follow.
func (d *decoder) remaining() int64 { return d.limit - d.offset() }

// count reads a u64 count of records of at least recSize bytes each and
// rejects it if that many records cannot fit in what remains of the
// payload. It also caps counts at 2^32-1 as Tracy's 32-bit vectors do.
func (d *decoder) count(recSize int64) int {
	off := d.offset()
	n := d.u64()
	d.checkCount(off, n, recSize)
	return int(n)
}

func (d *decoder) checkCount(off int64, n uint64, recSize int64) {
	if n > math.MaxUint32 {
		d.fail(off, fmt.Errorf("count %d exceeds 2^32-1", n))
	}
	if recSize > 0 && int64(n) > d.remaining()/recSize {
		d.fail(off, fmt.Errorf("count %d of %d-byte records exceeds the %d bytes that can remain", n, recSize, d.remaining()))
	}
}

// capFor bounds an initial slice capacity: the exact count when the
// payload size is known (counts were checked against it), otherwise no more
// than what a modest amount of data could hold, growing as records arrive.
func (d *decoder) capFor(n int) int {
	if d.limit == math.MaxInt64 && n > 1<<16 {
		return 1 << 16
	}
	return n
}

// bytes reads n raw bytes into a new slice, bounded by the payload size.
func (d *decoder) bytes(n uint64) []byte {
	off := d.offset()
	if n > uint64(d.remaining()) || n > math.MaxInt32 {
		d.fail(off, fmt.Errorf("length %d exceeds the %d bytes that can remain", n, d.remaining()))
	}
	out := make([]byte, 0, min(int(n), 1<<20))
	for len(out) < int(n) {
		k := min(int(n)-len(out), decBufSize)
		out = append(out, d.next(k)...)
	}
	return out
}

// str reads a length-prefixed (u64) string.
func (d *decoder) str() string { return string(d.bytes(d.u64())) }

// atEOF reports whether the payload has ended exactly here.
func (d *decoder) atEOF() bool {
	if d.n > d.p {
		return false
	}
	if d.blocks != nil {
		d.fillBlocks(1)
		return d.n == d.p
	}
	d.base += int64(d.p)
	d.p, d.n = 0, 0
	for tries := 0; !d.eof && tries < 100; tries++ {
		m, err := d.r.Read(d.buf)
		d.n += m
		if m > 0 {
			return false
		}
		if err == io.EOF {
			d.eof = true
		} else if err != nil {
			panic(readError{err})
		}
	}
	return d.eof
}
