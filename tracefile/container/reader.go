package container

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

const defaultReadAhead = 2

// Reader decompresses a container. Read (or NextBlock, or WriteTo) yields
// the payload bytes in order. The stream goroutines start at the first read
// and stop at Close, which must be called. A Reader is not safe for
// concurrent use.
type Reader struct {
	hdr   Header
	src   io.ReaderAt
	data  []byte // the whole file when it is in memory (mapped); else nil
	size  int64
	sizes []uint32 // compressed size of every chunk, in file order
	cfg   readConfig
	close func() error

	payload int64 // total payload size implied by the framing (upper bound)

	started bool
	done    chan struct{}
	wg      sync.WaitGroup
	streams []*rstream

	next    int // index of the next chunk to take from its stream
	checked int // chunks delivered whose content checksum was verified
	cur     *blockBuf
	curData []byte
	err     error
	closed  bool
}

// byteSource is implemented by in-memory sources (the mapped file) so chunks
// are taken straight from memory, with no read system call.
type byteSource interface{ bytes() []byte }

// NewReader checks the header and the framing of every chunk of the size
// bytes of r, then returns a Reader of the payload. No decompression happens
// until the first Read. Errors match ErrNotTrace or ErrCorrupt (and
// ErrTruncated for a file cut short).
func NewReader(r io.ReaderAt, size int64, opts ...ReadOption) (*Reader, error) {
	cfg := readConfig{readAhead: defaultReadAhead}
	for _, o := range opts {
		if err := o.applyRead(&cfg); err != nil {
			return nil, err
		}
	}
	rd := &Reader{src: r, size: size, cfg: cfg}
	if bs, ok := r.(byteSource); ok {
		rd.data = bs.bytes()
		if int64(len(rd.data)) < size {
			size = int64(len(rd.data))
			rd.size = size
		}
	}
	h, err := parseHeader(r, size)
	if err != nil {
		return nil, err
	}
	rd.hdr = h
	if err := rd.scan(); err != nil {
		return nil, err
	}
	if n := len(rd.sizes); n > 0 {
		rd.payload = int64(n) * BlockSize
	}
	return rd, nil
}

// scan validates the chunk framing: every size field present, 1..MaxChunkSize,
// and every chunk inside the file. Trailing bytes after the last chunk are
// read as a chunk too, so they fail one of these checks (or, if they happen
// to look like a chunk, fail to decompress).
func (r *Reader) scan() (err error) {
	if r.data != nil {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer faultToError(&err, r.hdr.DataOffset)
	}
	off := r.hdr.DataOffset
	var b [4]byte
	for off < r.size {
		i := len(r.sizes)
		if r.size-off < 4 {
			return truncatedf(off, i, "file ends %d bytes into a 4-byte chunk size", r.size-off)
		}
		if r.data != nil {
			copy(b[:], r.data[off:off+4])
		} else if _, err := r.src.ReadAt(b[:], off); err != nil {
			return fmt.Errorf("tracy container: reading chunk %d size at offset %d: %w", i, off, err)
		}
		n := binary.LittleEndian.Uint32(b[:])
		switch {
		case n == 0:
			return corruptf(off, i, "chunk size is 0")
		case n > MaxChunkSize:
			return corruptf(off, i, "chunk size %d exceeds %d, the most a Tracy writer emits", n, MaxChunkSize)
		case int64(n) > r.size-off-4:
			return truncatedf(off, i, "chunk of %d bytes runs %d bytes past the end of the file", n, int64(n)-(r.size-off-4))
		}
		r.sizes = append(r.sizes, n)
		off += 4 + int64(n)
	}
	return nil
}

// faultToError turns a memory fault (a mapped file shrunk under us) into
// ErrTruncated instead of crashing the program. It only works when the
// calling goroutine has debug.SetPanicOnFault(true).
func faultToError(err *error, off int64) {
	if e := recover(); e != nil {
		*err = truncatedf(off, -1, "file changed while being read: %v", e)
	}
}

// copyMapped copies from the mapped file. The calling goroutine has
// debug.SetPanicOnFault(true), so a page that vanished (the file was
// truncated after Open) panics here instead of killing the process.
func copyMapped(dst, src []byte, off int64, chunk int) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = truncatedf(off, chunk, "file changed while being read: %v", e)
		}
	}()
	copy(dst, src)
	return nil
}

// Header returns the container header.
func (r *Reader) Header() Header { return r.hdr }

// Chunks returns the number of chunks (blocks) in the file.
func (r *Reader) Chunks() int { return len(r.sizes) }

// ChecksummedChunks returns how many of the chunks delivered so far were
// verified by a content checksum (Zstd chunks holding whole checksummed
// frames, as this package writes them). Tracy's own files have none, and
// LZ4 has no checksum: for those chunks only the framing and the
// decompressed sizes are checked.
func (r *Reader) ChecksummedChunks() int { return r.checked }

// ChunksRead returns how many chunks have been delivered so far.
func (r *Reader) ChunksRead() int { return r.next }

// Size returns the file size.
func (r *Reader) Size() int64 { return r.size }

// PayloadSizeBound returns an upper bound of the payload size implied by the
// framing (chunks × 64 KiB); the exact size is known only after the last
// block. Callers may use it to bound allocations driven by counts in the
// payload.
func (r *Reader) PayloadSizeBound() int64 { return r.payload }

type blockBuf struct {
	b     []byte // BlockSize bytes
	refs  atomic.Int32
	owner *rstream
}

type rblock struct {
	buf     *blockBuf
	n       int
	checked bool  // decoding verified a content checksum over the whole chunk
	end     int64 // file offset just after the chunk
	err     error
}

type rstream struct {
	id        int
	out       chan rblock
	free      chan *blockBuf
	allocated int
	poolSize  int
}

func (s *rstream) release(b *blockBuf) {
	if b != nil && b.refs.Add(-1) == 0 {
		s.free <- b // never blocks: free has room for every buffer
	}
}

// get returns a free block buffer, allocating up to poolSize, or nil when
// the reader is closed.
func (s *rstream) get(done <-chan struct{}) *blockBuf {
	select {
	case b := <-s.free:
		return b
	default:
	}
	if s.allocated < s.poolSize {
		s.allocated++
		return &blockBuf{b: make([]byte, BlockSize), owner: s}
	}
	select {
	case b := <-s.free:
		return b
	case <-done:
		return nil
	}
}

func (r *Reader) start() {
	r.started = true
	r.done = make(chan struct{})
	n := min(r.hdr.Streams, len(r.sizes))
	r.streams = make([]*rstream, n)
	for i := range r.streams {
		// One buffer being decoded, readAhead queued, one being consumed,
		// and for LZ4 one held as the next block's dictionary.
		pool := r.cfg.readAhead + 3
		s := &rstream{id: i, out: make(chan rblock, r.cfg.readAhead), free: make(chan *blockBuf, pool), poolSize: pool}
		r.streams[i] = s
	}
	r.wg.Add(n)
	for _, s := range r.streams {
		go r.runStream(s)
	}
}

// runStream decompresses the chunks of one stream, in order, handing each
// block to the consumer through s.out. It stops at the first error (sent as
// the block in its place) or when the Reader is closed.
func (r *Reader) runStream(s *rstream) {
	defer r.wg.Done()
	if r.data != nil {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	}
	n := len(r.streams)
	var (
		off    = r.hdr.DataOffset
		dict   *blockBuf
		cbuf   []byte
		feed   *zfeed
		dec    *zstd.Decoder
		lastOf = len(r.sizes) - 1 // last chunk of the file
	)
	defer func() { s.release(dict) }()
	if r.hdr.Compression == Zstd {
		chunks := (len(r.sizes) - s.id + n - 1) / n
		feed = newZfeed(int64(chunks) * BlockSize)
		dec = getDecoder()
		defer putDecoder(dec)
		if err := dec.Reset(feed); err != nil {
			r.send(s, rblock{err: fmt.Errorf("tracy container: zstd decoder: %w", err)})
			return
		}
	}
	cbuf = make([]byte, MaxChunkSize)
	for i, size := range r.sizes {
		if i%n != s.id {
			off += 4 + int64(size)
			continue
		}
		buf := s.get(r.done)
		if buf == nil {
			return
		}
		blk, err := r.decodeChunk(i, off, size, i == lastOf, buf, dict, feed, dec, cbuf)
		if err != nil {
			buf.refs.Store(1)
			s.release(buf)
			r.send(s, rblock{err: err})
			return
		}
		if r.hdr.Compression == LZ4 {
			// This block is the next one's dictionary: it is released by
			// both the consumer and this goroutine.
			buf.refs.Store(2)
			old := dict
			dict = buf
			s.release(old)
		} else {
			buf.refs.Store(1)
		}
		off += 4 + int64(size)
		blk.end = off
		if !r.send(s, blk) {
			return
		}
	}
}

func (r *Reader) send(s *rstream, b rblock) bool {
	select {
	case s.out <- b:
		return true
	case <-r.done:
		if b.buf != nil {
			s.release(b.buf)
		}
		return false
	}
}

// decodeChunk decompresses chunk i (whose size field is at off) into buf.
func (r *Reader) decodeChunk(i int, off int64, size uint32, last bool, buf, dict *blockBuf, feed *zfeed, dec *zstd.Decoder, cbuf []byte) (blk rblock, err error) {
	defer func() {
		// Codecs must not panic on hostile input; if one does, it is this
		// chunk's corruption, not the program's end.
		if e := recover(); e != nil {
			err = corruptf(off, i, "decoder failed: %v", e)
		}
	}()
	src := cbuf[:size]
	if r.data != nil {
		// The compressed bytes are copied out of the mapping (cheap: they
		// are a fraction of the output) so that a fault, if the file
		// shrinks under us, happens in this copy, which the runtime can
		// turn into a panic we recover, and never inside a codec's
		// assembly, which it cannot unwind.
		if err := copyMapped(src, r.data[off+4:], off, i); err != nil {
			return blk, err
		}
	} else {
		if _, err := r.src.ReadAt(src, off+4); err != nil {
			if errors.Is(err, io.EOF) {
				return blk, truncatedf(off, i, "file shrank while being read")
			}
			return blk, fmt.Errorf("tracy container: reading chunk %d at offset %d: %w", i, off, err)
		}
	}
	var n int
	if r.hdr.Compression == LZ4 {
		var d []byte
		if dict != nil {
			d = dict.b
		}
		n, err = lz4.UncompressBlockWithDict(src, buf.b, d)
		if err != nil {
			return blk, corruptf(off, i, "LZ4 block does not decode to at most 64 KiB: %v", err)
		}
	} else {
		checked, err := feed.load(src, off, i)
		if err != nil {
			return blk, err
		}
		blk.checked = checked
		n, err = io.ReadFull(dec, buf.b)
		switch {
		case err == nil && last:
			// A last block must not be longer than 64 KiB.
			var one [1]byte
			if m, _ := dec.Read(one[:]); m > 0 {
				return blk, corruptf(off, i, "last zstd chunk decompresses to more than 64 KiB")
			}
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			// The decoder ran out of this chunk's input. The framing walk
			// proved the chunk ends on a block boundary, so this is the
			// normal end of an unterminated stream, not truncation.
			err = nil
		case errors.Is(err, zstd.ErrCRCMismatch):
			return blk, &CorruptError{Offset: off, Chunk: i, Err: fmt.Errorf("%w: the chunk's Zstd frame decodes to bytes other than those it was written from", ErrChecksum)}
		case err != nil:
			return blk, corruptf(off, i, "zstd: %v", err)
		}
		if k := feed.remaining(); k > 0 {
			return blk, corruptf(off, i, "%d compressed bytes left over after the block's 64 KiB", k)
		}
	}
	if last {
		if n < 1 {
			return blk, corruptf(off, i, "last chunk decompresses to no bytes")
		}
	} else if n != BlockSize {
		return blk, corruptf(off, i, "chunk decompresses to %d bytes; every chunk but the last must give 65536", n)
	}
	return rblock{buf: buf, n: n, checked: blk.checked}, nil
}

var decoderPool sync.Pool

func getDecoder() *zstd.Decoder {
	if d, ok := decoderPool.Get().(*zstd.Decoder); ok {
		return d
	}
	// Concurrency 1 decodes synchronously inside Read: parallelism comes
	// from the streams, and a synchronous decoder reads its input block by
	// block, exactly, which the chunk checks rely on.
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderLowmem(false))
	if err != nil {
		panic("tracy container: zstd.NewReader with constant options: " + err.Error())
	}
	return d
}

func putDecoder(d *zstd.Decoder) {
	if d.Reset(nil) == nil {
		decoderPool.Put(d)
	}
}

// Read reads decompressed payload bytes. It returns io.EOF after the last
// block and a *CorruptError when a chunk does not decompress, in file order:
// the bytes of every good block before the bad one are delivered first.
func (r *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.curData) == 0 {
			if err := r.advance(); err != nil {
				if n > 0 && err == io.EOF {
					return n, nil
				}
				return n, err
			}
		}
		c := copy(p[n:], r.curData)
		r.curData = r.curData[c:]
		n += c
	}
	return n, nil
}

// NextBlock returns the rest of the current decompressed block, or the next
// block, without copying. The slice is valid until the next call of Read,
// NextBlock, WriteTo or Close.
func (r *Reader) NextBlock() ([]byte, error) {
	if len(r.curData) == 0 {
		if err := r.advance(); err != nil {
			return nil, err
		}
	}
	b := r.curData
	r.curData = nil
	return b, nil
}

// WriteTo writes the rest of the payload to w (io.Copy uses it).
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		b, err := r.NextBlock()
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		m, err := w.Write(b)
		total += int64(m)
		if err != nil {
			return total, err
		}
	}
}

// advance releases the current block and waits for the next one.
func (r *Reader) advance() error {
	if r.closed {
		return ErrClosed
	}
	if r.err != nil {
		return r.err
	}
	if r.cur != nil {
		r.cur.owner.release(r.cur)
		r.cur, r.curData = nil, nil
	}
	if r.next >= len(r.sizes) {
		r.err = io.EOF
		if r.cfg.progress != nil {
			r.cfg.progress(r.size, r.size)
		}
		return r.err
	}
	if !r.started {
		r.start()
	}
	blk := <-r.streams[r.next%len(r.streams)].out
	if blk.err != nil {
		r.err = blk.err
		return r.err
	}
	r.next++
	if blk.checked {
		r.checked++
	}
	r.cur, r.curData = blk.buf, blk.buf.b[:blk.n]
	if r.cfg.progress != nil {
		r.cfg.progress(blk.end, r.size)
	}
	return nil
}

// Close stops the stream goroutines, waits for them, and releases the file
// when the Reader came from Open. It is safe to call more than once.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.started {
		close(r.done)
		r.wg.Wait()
	}
	r.cur, r.curData = nil, nil
	if r.close != nil {
		return r.close()
	}
	return nil
}
