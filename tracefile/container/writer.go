package container

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Writer compresses a payload into a container as Tracy 0.14.0 writes it:
// the tr\xFDP header, the payload cut into 64 KiB blocks, block i compressed
// by stream i mod N, chunks (u32 size + data) in block order. The streams
// compress in parallel, one goroutine each. Close flushes the last block
// and stops the goroutines (so it must be called, even after an error); it
// does not close the underlying writer.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	w   io.Writer
	cfg writeConfig

	buf        *wjob // block being filled
	streams    []*wstream
	jobs       chan *wjob // free jobs
	next       int        // index of the next block to dispatch
	pending    int        // dispatched blocks not yet written, oldest first
	maxPending int
	payload    int64  // payload bytes accepted
	done       int64  // payload bytes whose chunks are written
	out        int64  // container bytes written
	obuf       []byte // chunks not yet written to w, in order (outBufSize capacity)
	err        error
	closed     bool
}

type wjob struct {
	in   []byte // BlockSize capacity
	out  []byte // MaxChunkSize+4 capacity: size field, then the chunk
	err  error
	size int // payload bytes in in
}

type wstream struct {
	in   chan *wjob
	out  chan *wjob
	cfg  *writeConfig
	comp blockCompressor // created at the stream's first block
}

// newCompressor is called by the stream goroutine on its first block, so a
// small payload does not pay for encoders of streams it never reaches (a
// level-19 Zstd encoder costs tens of megabytes).
func (s *wstream) newCompressor() blockCompressor {
	cfg := s.cfg
	switch {
	case cfg.compression == Zstd && cfg.zstdStream:
		return newZstdStreamCompressor(cfg.zstdLevel, zstdWindow(cfg.zstdLevel, cfg.total, cfg.streams))
	case cfg.compression == Zstd:
		return newZstdCompressor(cfg.zstdLevel)
	case cfg.lz4Mode == lz4Fast:
		return &lz4FastComp{}
	case cfg.lz4Mode == lz4Extreme:
		return &lz4HCComp{c: lz4.CompressorHC{Level: lz4ExtremeDepth}}
	default:
		return &lz4HCComp{c: lz4.CompressorHC{Level: lz4HCDepth}}
	}
}

// blockCompressor compresses one block of a stream into dst (which has
// room for MaxChunkSize bytes) and returns the chunk.
type blockCompressor interface {
	compress(dst, src []byte) ([]byte, error)
	release()
}

// streamDepth is how many blocks each stream may have queued or in
// progress. Two let a stream start on its next block while the oldest
// result waits to be written.
const streamDepth = 2

// outBufSize is how many bytes of finished chunks the Writer gathers before
// one write to the underlying writer. A well-compressed trace has chunks of
// a few hundred bytes to a few KiB (heavy10m: 3,970 chunks of 915 bytes on
// average), so a write per chunk was thousands of system calls per file.
const outBufSize = 1 << 20

// NewWriter writes the container header to w and returns a Writer of the
// payload. The default is Zstd level 3 with 4 streams, as tracy-capture
// writes.
func NewWriter(w io.Writer, opts ...WriteOption) (*Writer, error) {
	cfg := writeConfig{compression: Zstd, zstdLevel: 3, streams: 4, total: -1}
	for _, o := range opts {
		if err := o.applyWrite(&cfg); err != nil {
			return nil, err
		}
	}
	wr := &Writer{w: w, cfg: cfg}
	hdr := appendHeader(nil, cfg.compression, cfg.streams)
	n, err := w.Write(hdr)
	wr.out += int64(n)
	if err != nil {
		return nil, fmt.Errorf("tracy container: writing header: %w", err)
	}
	// Blocks in flight: enough to keep every CPU busy with one queued
	// behind it, but not one per stream each: with 16 or 64 streams that
	// would only add cold compressor state and buffers to the cache.
	wr.maxPending = min(cfg.streams*streamDepth, streamDepth*(runtime.GOMAXPROCS(0)+1))
	wr.jobs = make(chan *wjob, wr.maxPending+1)
	wr.streams = make([]*wstream, cfg.streams)
	for i := range wr.streams {
		s := &wstream{in: make(chan *wjob, streamDepth), out: make(chan *wjob, streamDepth), cfg: &wr.cfg}
		wr.streams[i] = s
		go s.run()
	}
	return wr, nil
}

func (s *wstream) run() {
	for j := range s.in {
		if s.comp == nil {
			s.comp = s.newCompressor()
		}
		chunk, err := s.comp.compress(j.out[4:4:cap(j.out)], j.in[:j.size])
		if err == nil && (len(chunk) == 0 || len(chunk) > MaxChunkSize) {
			err = fmt.Errorf("compressed block of %d bytes outside 1..%d", len(chunk), MaxChunkSize)
		}
		j.err = err
		if err == nil {
			binary.LittleEndian.PutUint32(j.out[:4], uint32(len(chunk)))
			j.out = j.out[:4+len(chunk)]
		}
		s.out <- j
	}
	if s.comp != nil {
		s.comp.release()
	}
	close(s.out)
}

func (w *Writer) job() *wjob {
	select {
	case j := <-w.jobs:
		return j
	default:
		return &wjob{in: make([]byte, BlockSize), out: make([]byte, 4+MaxChunkSize)}
	}
}

// Write compresses p as payload bytes.
func (w *Writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	n := 0
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = w.job()
			w.buf.size = 0
		}
		c := copy(w.buf.in[w.buf.size:BlockSize], p)
		w.buf.size += c
		p = p[c:]
		n += c
		w.payload += int64(c)
		if w.buf.size == BlockSize {
			if err := w.dispatch(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// dispatch hands the filled block to its stream, first writing out the
// oldest result when every stream is busy.
func (w *Writer) dispatch() error {
	j := w.buf
	w.buf = nil
	for w.pending >= w.maxPending {
		if err := w.writeOldest(); err != nil {
			return err
		}
	}
	w.streams[w.next%len(w.streams)].in <- j
	w.next++
	w.pending++
	return nil
}

// writeOldest waits for the oldest dispatched block and writes its chunk.
func (w *Writer) writeOldest() error {
	s := w.streams[(w.next-w.pending)%len(w.streams)]
	j := <-s.out
	w.pending--
	if j.err != nil {
		w.err = fmt.Errorf("tracy container: compressing block %d: %w", w.next-w.pending-1, j.err)
		return w.err
	}
	var err error
	if len(w.obuf)+len(j.out) > outBufSize {
		err = w.flushOut()
	}
	if w.obuf == nil {
		w.obuf = make([]byte, 0, outBufSize)
	}
	w.obuf = append(w.obuf, j.out...)
	w.done += int64(j.size)
	j.out = j.out[:cap(j.out)]
	w.jobs <- j
	if err != nil {
		return err
	}
	if w.cfg.progress != nil {
		w.cfg.progress(w.done, w.cfg.total)
	}
	return nil
}

// flushOut writes the gathered chunks to the underlying writer.
func (w *Writer) flushOut() error {
	if len(w.obuf) == 0 {
		return nil
	}
	n, err := w.w.Write(w.obuf)
	w.out += int64(n)
	if err == nil && n < len(w.obuf) {
		err = io.ErrShortWrite
	}
	w.obuf = w.obuf[:0]
	if err != nil {
		w.err = err
	}
	return err
}

// There is no Flush: every block but the last must be exactly 64 KiB, so
// only Close may emit a short block.

// Close compresses and writes the last block, waits for the streams, and
// stops them. The underlying writer is not closed.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	if w.err == nil && w.buf != nil && w.buf.size > 0 {
		w.dispatch()
	}
	for w.err == nil && w.pending > 0 {
		w.writeOldest()
	}
	if w.err == nil {
		w.flushOut()
	}
	w.obuf = nil
	w.closed = true
	for _, s := range w.streams {
		close(s.in)
	}
	for _, s := range w.streams {
		for range s.out { // drain results after an error
		}
	}
	if w.err == nil && w.cfg.progress != nil {
		w.cfg.progress(w.payload, max(w.cfg.total, w.payload))
	}
	if w.err == nil {
		return nil
	}
	err := w.err
	w.err = ErrClosed
	return err
}

// Stats returns the payload bytes accepted and the container bytes written
// so far (Tracy's GetCompressionStatistics).
func (w *Writer) Stats() (payload, file int64) { return w.payload, w.out }

// LZ4 HC search depths. Tracy's "LZ4 HC" is LZ4HC level 9, which tries 2^8
// match candidates per position; "extreme" is level 12 (2^14 candidates,
// optimal parsing). pierrec/lz4's HC depth is the candidate count.
const (
	lz4HCDepth      = 1 << 8
	lz4ExtremeDepth = 1 << 14
)

// lz4FastComp uses pierrec/lz4's C-compatible compressor: for a block with
// no dictionary it emits the bytes LZ4_compress_fast (acceleration 1, as
// Tracy calls it) would.
type lz4FastComp struct{ c lz4.CompressorCCompat }

func (l *lz4FastComp) compress(dst, src []byte) ([]byte, error) {
	n, err := l.c.CompressBlock(src, dst[:MaxChunkSize])
	return dst[:n], err
}
func (*lz4FastComp) release() {}

type lz4HCComp struct{ c lz4.CompressorHC }

func (l *lz4HCComp) compress(dst, src []byte) ([]byte, error) {
	n, err := l.c.CompressBlock(src, dst[:MaxChunkSize])
	return dst[:n], err
}
func (*lz4HCComp) release() {}

// zstdComp writes each block as one complete Zstd frame with a content
// checksum (XXH64 of the block), the "one frame per chunk" variant Tracy's
// reader accepts (its streaming decoder finishes one frame per chunk and
// starts the next frame on the stream's next chunk). Tracy itself keeps one
// frame open per stream and never ends it, so its files carry no checksum
// at all: a flipped byte loads as altered data. A frame per chunk is the
// only layout in which every chunk can be checked on its own, before its
// block is handed on, and a failure names the chunk. The cost is the
// history across blocks: a frame cannot refer back into the previous
// block of its stream (see docs/DESIGN.md for the size figures).
type zstdComp struct {
	key  encoderKey
	pool *sync.Pool
	enc  *zstd.Encoder
}

// zstdWindowLog is libzstd's window log for inputs over 256 KiB, by level
// (ZSTD_defaultCParameters), so our streams need what Tracy's would; it
// stays at most 2^27, the real reader's limit.
var zstdWindowLog = [23]uint8{0, 19, 20, 21, 21, 21, 21, 21, 22, 22, 22, 22, 22, 22, 22, 22, 22, 23, 23, 23, 25, 26, 27}

// maxEncoderWindow caps the encoder window at klauspost/compress's own
// largest default (its best level uses 8 MiB). Levels 20..22 would ask
// libzstd for up to 128 MiB per stream, which with 16 or 64 streams costs
// gigabytes for a small gain on trace payloads.
const maxEncoderWindow = 1 << 23

// zstdWindow picks a stream's window: libzstd's for the level, at most
// maxEncoderWindow, and no larger than the stream's share of the payload
// when its size is announced (a power of two, at least 128 KiB).
func zstdWindow(level int, total int64, streams int) int {
	w := min(1<<zstdWindowLog[level], maxEncoderWindow)
	if total >= 0 {
		share := total/int64(streams) + 1
		w = min(w, max(1<<17, 1<<bits.Len64(uint64(share))))
	}
	return w
}

type encoderKey struct {
	level, window int
	stream        bool
}

var encoderPools sync.Map // encoderKey -> *sync.Pool

func encoderPool(k encoderKey) *sync.Pool {
	pv, _ := encoderPools.LoadOrStore(k, new(sync.Pool))
	return pv.(*sync.Pool)
}

// frameWindow is the window of the per-chunk encoders: a frame holds one
// 64 KiB block, so a larger window would only cost encoder memory.
const frameWindow = 2 * BlockSize

func newZstdCompressor(level int) *zstdComp {
	z := &zstdComp{key: encoderKey{level: level, window: frameWindow}}
	z.pool = encoderPool(z.key)
	if e, ok := z.pool.Get().(*zstd.Encoder); ok {
		z.enc = e
		return z
	}
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(true),
		zstd.WithWindowSize(frameWindow),
		zstd.WithLowerEncoderMem(false),
	)
	if err != nil {
		panic("tracy container: zstd.NewWriter with constant options: " + err.Error())
	}
	z.enc = e
	return z
}

func (z *zstdComp) compress(dst, src []byte) ([]byte, error) {
	b := z.enc.EncodeAll(src, dst[:0:MaxChunkSize])
	if len(b) > MaxChunkSize || (len(b) > 0 && &b[0] != &dst[:1][0]) {
		return nil, fmt.Errorf("zstd chunk of %d bytes exceeds %d", len(b), MaxChunkSize)
	}
	return b, nil
}

func (z *zstdComp) release() { z.pool.Put(z.enc) }

// zstdStreamComp writes Tracy's own layout, for tests of the reader on
// files shaped exactly like the real tools' output: one Zstd frame open per
// stream, each block written and flushed (the flushed bytes are the chunk),
// the frame never ended, no checksum.
type zstdStreamComp struct {
	key  encoderKey
	pool *sync.Pool
	enc  *zstd.Encoder
	sink sliceSink
}

type sliceSink struct{ b []byte }

func (s *sliceSink) Write(p []byte) (int, error) {
	if len(s.b)+len(p) > cap(s.b) {
		return 0, fmt.Errorf("zstd chunk exceeds %d bytes", MaxChunkSize)
	}
	s.b = append(s.b, p...)
	return len(p), nil
}

func newZstdStreamCompressor(level, window int) *zstdStreamComp {
	z := &zstdStreamComp{key: encoderKey{level, window, true}}
	z.pool = encoderPool(z.key)
	if e, ok := z.pool.Get().(*zstd.Encoder); ok {
		z.enc = e
		z.enc.Reset(&z.sink)
		return z
	}
	e, err := zstd.NewWriter(&z.sink,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false),
		zstd.WithWindowSize(window),
		zstd.WithLowerEncoderMem(false),
	)
	if err != nil {
		panic("tracy container: zstd.NewWriter with constant options: " + err.Error())
	}
	z.enc = e
	return z
}

func (z *zstdStreamComp) compress(dst, src []byte) ([]byte, error) {
	z.sink.b = dst[:0:MaxChunkSize]
	if _, err := z.enc.Write(src); err != nil {
		return nil, err
	}
	if err := z.enc.Flush(); err != nil {
		return nil, err
	}
	b := z.sink.b
	z.sink.b = nil
	return b, nil
}

func (z *zstdStreamComp) release() {
	z.enc.Reset(nil)
	z.pool.Put(z.enc)
}
