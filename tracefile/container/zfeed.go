package container

import (
	"encoding/binary"
	"io"
	"math/bits"
)

// Zstd frame constants (RFC 8878).
const (
	zstdMagic          = 0xFD2FB528
	zstdSkippableMask  = 0xFFFFFFF0
	zstdSkippableMagic = 0x184D2A50
	zstdMaxBlockSize   = 128 << 10
	// minPatchedWindow keeps a lowered window at least one maximum block, so
	// the decoder's block-size limit (min(window, 128 KiB)) never changes.
	minPatchedWindow = zstdMaxBlockSize
)

// zfeed hands one stream's chunks, one at a time, to a streaming Zstd
// decoder. Before a chunk is fed, load walks its Zstd framing (frame
// headers and block headers, no entropy decoding) so that:
//
//   - a chunk must hold whole blocks: a block or header that crosses the end
//     of the chunk is corruption, which makes the decoder's EOF at the end
//     of an unterminated stream unambiguous;
//   - a window above 2^27 is rejected before the decoder allocates it;
//   - a window larger than everything the stream can still produce is
//     lowered (the window descriptor byte is patched in what the decoder
//     reads), so a tiny hostile file declaring 255 streams of 128 MiB
//     windows cannot make the decoders allocate gigabytes. Lowering is
//     exact: no valid match can reach further back than the stream's own
//     output.
type zfeed struct {
	src     []byte
	pos     int
	patches []zpatch

	// Walker state, carried from chunk to chunk of the stream.
	inFrame  bool
	checksum bool

	// windowCap is the window the stream can use at most: its total output
	// rounded up to a power of two, at least minPatchedWindow.
	windowCap uint64
}

type zpatch struct {
	at  int
	val byte
}

func newZfeed(streamOut int64) *zfeed {
	c := uint64(minPatchedWindow)
	if streamOut > minPatchedWindow {
		c = 1 << bits.Len64(uint64(streamOut-1))
	}
	c = min(c, maxZstdWindow)
	return &zfeed{windowCap: c}
}

func (f *zfeed) Read(p []byte) (int, error) {
	if f.pos >= len(f.src) {
		return 0, io.EOF
	}
	n := copy(p, f.src[f.pos:])
	for _, pt := range f.patches {
		if i := pt.at - f.pos; i >= 0 && i < n {
			p[i] = pt.val
		}
	}
	f.pos += n
	return n, nil
}

// remaining is how many bytes of the current chunk the decoder has not read.
func (f *zfeed) remaining() int { return len(f.src) - f.pos }

// load makes src the next chunk of the stream after checking its framing.
// It reports whether the chunk is self-checking: it holds whole frames only
// (none started in an earlier chunk or left open), each with a content
// checksum, so decoding it verifies every byte it produces.
func (f *zfeed) load(src []byte, off int64, chunk int) (checked bool, err error) {
	f.src, f.pos, f.patches = src, 0, f.patches[:0]
	p := 0
	checked = !f.inFrame
	frames := 0
	short := func(what string) error {
		return corruptf(off, chunk, "zstd %s crosses the end of the chunk (chunk offset %d of %d bytes)", what, p, len(src))
	}
	for p < len(src) {
		if !f.inFrame {
			if len(src)-p < 4 {
				return false, short("frame magic")
			}
			magic := binary.LittleEndian.Uint32(src[p:])
			if magic&zstdSkippableMask == zstdSkippableMagic {
				if len(src)-p < 8 {
					return false, short("skippable frame header")
				}
				n := uint64(binary.LittleEndian.Uint32(src[p+4:]))
				if n > uint64(len(src)-p-8) {
					return false, short("skippable frame")
				}
				p += 8 + int(n)
				continue
			}
			if magic != zstdMagic {
				return false, corruptf(off, chunk, "bad zstd frame magic %08x at chunk offset %d", magic, p)
			}
			if len(src)-p < 5 {
				return false, short("frame header")
			}
			fhd := src[p+4]
			if fhd&0x08 != 0 {
				return false, corruptf(off, chunk, "zstd frame header has its reserved bit set")
			}
			single := fhd&0x20 != 0
			didSize := [4]int{0, 1, 2, 4}[fhd&3]
			fcsSize := [4]int{0, 2, 4, 8}[fhd>>6]
			if single && fhd>>6 == 0 {
				fcsSize = 1
			}
			hl := 5
			if !single {
				hl++
			}
			if len(src)-p < hl+didSize+fcsSize {
				return false, short("frame header")
			}
			var did uint64
			for i := range didSize {
				did |= uint64(src[p+hl+i]) << (8 * i)
			}
			if did != 0 {
				return false, corruptf(off, chunk, "zstd frame needs dictionary %d; Tracy files use none", did)
			}
			var fcs uint64
			for i := range fcsSize {
				fcs |= uint64(src[p+hl+didSize+i]) << (8 * i)
			}
			if fcsSize == 2 {
				fcs += 256
			}
			if single {
				if fcs > f.windowCap {
					return false, corruptf(off, chunk, "zstd frame content size %d exceeds what the stream holds", fcs)
				}
			} else {
				wd := src[p+5]
				wlog := 10 + uint(wd>>3)
				w := uint64(1)<<wlog + (uint64(1)<<wlog>>3)*uint64(wd&7)
				if w > maxZstdWindow {
					return false, corruptf(off, chunk, "zstd window %d exceeds 2^27, the most Tracy's reader accepts", w)
				}
				if w > f.windowCap {
					f.patches = append(f.patches, zpatch{p + 5, byte(bits.Len64(f.windowCap)-1-10) << 3})
				}
			}
			f.inFrame, f.checksum = true, fhd&0x04 != 0
			checked = checked && f.checksum
			frames++
			p += hl + didSize + fcsSize
			continue
		}
		if len(src)-p < 3 {
			return false, short("block header")
		}
		bh := uint32(src[p]) | uint32(src[p+1])<<8 | uint32(src[p+2])<<16
		last, typ, size := bh&1 != 0, (bh>>1)&3, int(bh>>3)
		if typ == 3 {
			return false, corruptf(off, chunk, "zstd block of reserved type at chunk offset %d", p)
		}
		if size > zstdMaxBlockSize {
			return false, corruptf(off, chunk, "zstd block of %d bytes exceeds 128 KiB", size)
		}
		content := size
		if typ == 1 { // RLE: one byte repeated size times
			content = 1
		}
		if len(src)-p-3 < content {
			return false, short("block")
		}
		p += 3 + content
		if last {
			f.inFrame = false
			if f.checksum {
				if len(src)-p < 4 {
					return false, short("frame checksum")
				}
				p += 4
			}
		}
	}
	return checked && frames > 0 && !f.inFrame, nil
}
