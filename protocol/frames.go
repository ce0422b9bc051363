package protocol

import (
	"encoding/binary"
	"fmt"
	"io"
)

// ringFrames is how many maximal frames fit in the decode/encode buffers
// after the 64 KiB of history. More frames mean fewer 64 KiB moves; four
// keeps the buffers near 1 MiB per connection.
const ringFrames = 4

const historyBufSize = DictSize + ringFrames*TargetFrameSize

// FrameReader reads the client-to-server stream after the handshake: frames
// of a u32 compressed size and a raw LZ4 block, decoded with the previous
// 64 KiB of output as dictionary (Tracy's streaming rule). It allocates only
// when created; Next allocates nothing.
type FrameReader struct {
	r   io.Reader
	off int64 // stream offset of the next frame header
	dec int64 // decompressed offset of the next frame

	buf []byte // history, then room for frames
	lo  int    // first valid history byte in buf
	pos int    // where the next frame is decoded
	src []byte // compressed block, LZ4Size
	hdr [4]byte

	frameOff int64 // stream offset of the last frame returned
	frameDec int64 // decompressed offset of the last frame returned
	err      error
}

// NewFrameReader returns a reader of frames from r, which must be positioned
// right after the handshake (status, welcome, on-demand payload). offset is
// r's position in the whole stream, used in error messages.
func NewFrameReader(r io.Reader, offset int64) *FrameReader {
	fr := &FrameReader{buf: make([]byte, historyBufSize), src: make([]byte, LZ4Size)}
	fr.Reset(r, offset)
	return fr
}

// Reset starts a new stream (a new connection) on r, keeping the buffers.
func (fr *FrameReader) Reset(r io.Reader, offset int64) {
	fr.r, fr.off, fr.dec = r, offset, 0
	fr.lo, fr.pos = 0, 0
	fr.frameOff, fr.frameDec, fr.err = 0, 0, nil
}

// Next returns the next decompressed frame. The slice is valid until the
// next call. At a clean end of stream (EOF exactly between frames) it
// returns io.EOF; every other failure is a *StreamError with the frame's
// stream offset, and is sticky.
func (fr *FrameReader) Next() ([]byte, error) {
	if fr.err != nil {
		return nil, fr.err
	}
	frame, err := fr.next()
	if err != nil {
		fr.err = err
	}
	return frame, err
}

func (fr *FrameReader) fail(err error) error {
	return &StreamError{Offset: fr.off, Compressed: true, Err: err}
}

func (fr *FrameReader) next() ([]byte, error) {
	n, err := io.ReadFull(fr.r, fr.hdr[:])
	if err != nil {
		if err == io.EOF && n == 0 {
			return nil, io.EOF
		}
		if err == io.ErrUnexpectedEOF {
			return nil, fr.fail(fmt.Errorf("frame header: %w", ErrTruncated))
		}
		return nil, fr.fail(err)
	}
	size := binary.LittleEndian.Uint32(fr.hdr[:])
	if size == 0 || size > LZ4Size {
		return nil, fr.fail(fmt.Errorf("compressed size %d: %w", size, ErrFrameSize))
	}
	src := fr.src[:size]
	if _, err := io.ReadFull(fr.r, src); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fr.fail(fmt.Errorf("block of %d bytes: %w", size, ErrTruncated))
		}
		return nil, fr.fail(err)
	}
	if fr.pos+TargetFrameSize > len(fr.buf) {
		// Keep the last 64 KiB of history and move it to the front.
		keep := fr.pos - fr.lo
		if keep > DictSize {
			keep = DictSize
		}
		copy(fr.buf[:keep], fr.buf[fr.pos-keep:fr.pos])
		fr.lo, fr.pos = 0, keep
	}
	dn, err := lz4Decode(fr.buf, fr.lo, fr.pos, TargetFrameSize, src)
	if err != nil {
		return nil, fr.fail(err)
	}
	if dn == 0 {
		return nil, fr.fail(fmt.Errorf("frame decodes to 0 bytes: %w", ErrFrameSize))
	}
	frame := fr.buf[fr.pos : fr.pos+dn : fr.pos+dn]
	fr.pos += dn
	fr.frameOff, fr.frameDec = fr.off, fr.dec
	fr.off += 4 + int64(size)
	fr.dec += int64(dn)
	return frame, nil
}

// FrameOffset is the stream offset of the last frame's size field.
func (fr *FrameReader) FrameOffset() int64 { return fr.frameOff }

// DecodedOffset is the decompressed-stream offset of the last frame's first
// byte (the base to give ItemDecoder.Reset).
func (fr *FrameReader) DecodedOffset() int64 { return fr.frameDec }

// Offset is the stream offset just past the last frame read.
func (fr *FrameReader) Offset() int64 { return fr.off }

// Decoded is the number of decompressed bytes returned so far.
func (fr *FrameReader) Decoded() int64 { return fr.dec }

// FrameWriter is what a client emits after the handshake: whole items only,
// frames of at most TargetFrameSize decompressed bytes, never empty, each a
// u32 size and a raw LZ4 block. Like Tracy's own client it compresses each
// frame with the previous 64 KiB it sent as a prefix dictionary, which a
// real Tracy server decodes under its history rule. It allocates only when
// created.
type FrameWriter struct {
	w       io.Writer
	enc     *lz4Encoder
	buf     []byte // history, then the pending frame
	lo      int    // first valid history byte
	start   int    // first byte of the pending frame
	pos     int    // end of the pending frame
	out     []byte // header + block
	noDict  bool
	written int64 // compressed bytes written, headers included
	raw     int64 // decompressed bytes committed
	frames  int64
	err     error
}

// FrameWriterOption configures a FrameWriter.
type FrameWriterOption func(*FrameWriter)

// WithIndependentFrames compresses every frame on its own, without the
// cross-frame dictionary: a worse ratio, but each frame decodes alone.
func WithIndependentFrames() FrameWriterOption { return func(fw *FrameWriter) { fw.noDict = true } }

// NewFrameWriter returns a writer of frames to w.
func NewFrameWriter(w io.Writer, opts ...FrameWriterOption) *FrameWriter {
	fw := &FrameWriter{
		enc: new(lz4Encoder),
		buf: make([]byte, historyBufSize),
		out: make([]byte, 0, 4+LZ4Size),
	}
	for _, o := range opts {
		o(fw)
	}
	fw.Reset(w)
	return fw
}

// Reset starts a new stream (a new connection) on w, dropping pending items.
func (fw *FrameWriter) Reset(w io.Writer) {
	fw.w = w
	fw.enc.reset()
	fw.lo, fw.start, fw.pos = 0, 0, 0
	fw.written, fw.raw, fw.frames, fw.err = 0, 0, 0, nil
}

// Buffered is the size of the pending (not yet sent) frame.
func (fw *FrameWriter) Buffered() int { return fw.pos - fw.start }

// Stats reports the frames sent, the decompressed bytes they carried and
// the compressed bytes written (size headers included).
func (fw *FrameWriter) Stats() (frames, raw, written int64) { return fw.frames, fw.raw, fw.written }

// WriteItems adds whole items to the pending frame, committing frames as
// needed so that no frame exceeds TargetFrameSize and no item is split.
// p must hold complete items. Items are checked as they are taken: at the
// first malformed one (ErrUnknownItem, ErrTruncated, or ErrTooLong for an
// item larger than a frame) WriteItems stops and returns a *StreamError;
// the items before it are kept, so the stream stays made of whole items.
func (fw *FrameWriter) WriteItems(p []byte) error {
	if fw.err != nil {
		return fw.err
	}
	for len(p) > 0 {
		room := TargetFrameSize - fw.Buffered()
		take := 0
		var bad error
		for take < len(p) {
			n := int(fastSize[p[take]])
			if n == 0 || n > len(p)-take {
				var err error
				if n, err = ItemSize(p[take:]); err != nil {
					bad = err
					break
				}
				if n > TargetFrameSize {
					bad = ErrTooLong
					break
				}
			}
			if take+n > room {
				break
			}
			take += n
		}
		fw.pos += copy(fw.buf[fw.pos:], p[:take])
		if bad != nil {
			return &StreamError{Offset: fw.raw + int64(fw.Buffered()), Type: QueueType(p[take]), HasType: true, Err: bad}
		}
		p = p[take:]
		if len(p) > 0 {
			if err := fw.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteTrustedItems is WriteItems without the per-item check, for a caller
// that built p itself with this package's Append functions (a client's
// sender). Frames must hold whole items, and a writer that does not look at
// the items cannot know where they end; so WriteTrustedItems never splits p:
// if p does not fit in the pending frame, that frame is sent first and p
// starts the next one. Every frame boundary is then either a boundary
// between two calls or the end of the stream, and each call ends on an item
// boundary by the caller's contract, so frames hold whole items exactly as
// with WriteItems. Only p longer than TargetFrameSize must be split; it
// goes through WriteItems, which finds the boundaries by checking the items.
// Passing anything but whole, well-formed items sends a stream the server
// will refuse: use WriteItems for bytes of unknown origin.
func (fw *FrameWriter) WriteTrustedItems(p []byte) error {
	if fw.err != nil {
		return fw.err
	}
	if len(p) > TargetFrameSize {
		return fw.WriteItems(p)
	}
	if fw.Buffered()+len(p) > TargetFrameSize {
		if err := fw.Flush(); err != nil {
			return err
		}
	}
	fw.pos += copy(fw.buf[fw.pos:], p)
	return nil
}

// Flush compresses and sends the pending frame; it does nothing when no
// item is pending (frames are never empty).
func (fw *FrameWriter) Flush() error {
	if fw.err != nil {
		return fw.err
	}
	n := fw.Buffered()
	if n == 0 {
		return nil
	}
	dictLo := fw.start - lz4MaxOffset
	if dictLo < fw.lo {
		dictLo = fw.lo
	}
	if fw.noDict {
		dictLo = fw.start
	}
	out := fw.enc.compress(fw.out[:4], fw.buf, dictLo, fw.start, fw.pos)
	if len(out)-4 > LZ4Size {
		// Cannot happen for a correct encoder; a literal block is always
		// within the bound, so fall back rather than send a bad frame.
		out = appendLiteralBlock(fw.out[:4], fw.buf[fw.start:fw.pos])
	}
	binary.LittleEndian.PutUint32(out, uint32(len(out)-4))
	fw.out = out[:0]
	if _, err := fw.w.Write(out); err != nil {
		fw.err = fmt.Errorf("protocol: writing frame: %w", err)
		return fw.err
	}
	fw.written += int64(len(out))
	fw.raw += int64(n)
	fw.frames++
	fw.start = fw.pos
	if fw.pos+TargetFrameSize > len(fw.buf) {
		keep := fw.pos - fw.lo
		if keep > DictSize {
			keep = DictSize
		}
		shift := fw.pos - keep
		copy(fw.buf[:keep], fw.buf[shift:fw.pos])
		fw.enc.shift(shift)
		fw.lo, fw.start, fw.pos = 0, keep, keep
	}
	return nil
}
