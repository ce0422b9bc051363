package texture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zstdLevel is the level Tracy's server compresses frame images with.
const zstdLevel = 3

// dictMagic starts a dictionary in Zstd's own format (entropy tables plus
// content), as produced by ZDICT and by TrainDict; anything else is used as
// raw content.
const dictMagic = 0xEC30A437

// maxUnpacked bounds what Unpack will ever decompress, so a corrupt or
// hostile frame header cannot make it allocate gigabytes. u16 dimensions
// allow at most 65532*65532/2 bytes, but Tracy frame images are limited to
// one network frame (262131 bytes); 64 MiB leaves room for files written by
// other tools.
const maxUnpacked = 64 << 20

// Prepare turns client-order DXT1 data, in place, into what Tracy's server
// stores: FixOrder (standard BC1) followed by the RDO pass. The result is
// also exactly what a .tracy file holds for the image.
func Prepare(dxt1 []byte) {
	FixOrder(dxt1)
	RDO(dxt1)
}

// Packer compresses frame images as Tracy's server keeps them in memory:
// Prepare followed by Zstd level 3, optionally with a dictionary. A Packer
// is safe for concurrent use.
type Packer struct {
	enc     *zstd.Encoder
	dec     *zstd.Decoder
	scratch sync.Pool // *[]byte, for Prepare without touching the input
}

// Option configures a Packer.
type Option func(*packerOptions)

type packerOptions struct {
	dict []byte
}

// WithDict makes the Packer compress and decompress with dict, either a
// Zstd-format dictionary (as TrainDict returns, or as Tracy stores in a
// .tracy file when written with `tracy-update -d`) or raw content. Packed
// data made with a dictionary can only be unpacked with the same one.
func WithDict(dict []byte) Option {
	return func(o *packerOptions) { o.dict = dict }
}

// NewPacker returns a Packer configured by opts.
func NewPacker(opts ...Option) (*Packer, error) {
	var o packerOptions
	for _, f := range opts {
		f(&o)
	}
	eopts := []zstd.EOption{
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(zstdLevel)),
		// libzstd's one-shot API writes no checksum; neither do we.
		zstd.WithEncoderCRC(false),
		// One encoder (about 1.3 MB of match tables at level 3) instead
		// of one per CPU: a capture packs its images on one goroutine, and
		// concurrent callers of EncodeAll simply take turns.
		zstd.WithEncoderConcurrency(1),
	}
	dopts := []zstd.DOption{
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(maxUnpacked),
	}
	if len(o.dict) > 0 {
		if len(o.dict) >= 8 && binary.LittleEndian.Uint32(o.dict) == dictMagic {
			eopts = append(eopts, zstd.WithEncoderDict(o.dict))
			dopts = append(dopts, zstd.WithDecoderDicts(o.dict))
		} else {
			eopts = append(eopts, zstd.WithEncoderDictRaw(0, o.dict))
			dopts = append(dopts, zstd.WithDecoderDictRaw(0, o.dict))
		}
	}
	enc, err := zstd.NewWriter(nil, eopts...)
	if err != nil {
		return nil, fmt.Errorf("texture: zstd encoder: %w", err)
	}
	dec, err := zstd.NewReader(nil, dopts...)
	if err != nil {
		return nil, fmt.Errorf("texture: zstd decoder: %w", err)
	}
	return &Packer{enc: enc, dec: dec}, nil
}

// Pack appends to dst the packed form of the w x h client-order DXT1 image
// dxt1 (as AppendDXT1 makes it and a Tracy client sends it): a copy goes
// through Prepare and is Zstd-compressed at level 3. dxt1 itself is not
// modified. After warm-up Pack allocates nothing when dst has room.
func (p *Packer) Pack(dst, dxt1 []byte, w, h int) ([]byte, error) {
	if err := checkSize(dxt1, w, h); err != nil {
		return dst, err
	}
	bp, _ := p.scratch.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	buf := append((*bp)[:0], dxt1...)
	Prepare(buf)
	dst = p.enc.EncodeAll(buf, dst)
	*bp = buf
	p.scratch.Put(bp)
	return dst, nil
}

// PackPrepared is Pack for data that already went through Prepare (standard
// BC1 after RDO, as a .tracy file stores it): it only compresses.
func (p *Packer) PackPrepared(dst, bc1 []byte, w, h int) ([]byte, error) {
	if err := checkSize(bc1, w, h); err != nil {
		return dst, err
	}
	return p.enc.EncodeAll(bc1, dst), nil
}

// Unpack appends to dst the standard BC1 image (after FixOrder and RDO)
// that packed holds; this is the data a .tracy file stores and DecodeDXT1
// reads. It fails with ErrCorrupt unless packed decompresses to exactly
// DXT1Size(w, h) bytes.
func (p *Packer) Unpack(dst, packed []byte, w, h int) ([]byte, error) {
	if err := checkDims(w, h); err != nil {
		return dst, err
	}
	want := DXT1Size(w, h)
	if want > maxUnpacked {
		return dst, fmt.Errorf("%w (%dx%d image exceeds %d bytes)", ErrDimensions, w, h, maxUnpacked)
	}
	var hdr zstd.Header
	if err := hdr.Decode(packed); err != nil {
		return dst, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if hdr.HasFCS && hdr.FrameContentSize != uint64(want) {
		return dst, fmt.Errorf("%w: frame holds %d bytes, %dx%d needs %d", ErrCorrupt, hdr.FrameContentSize, w, h, want)
	}
	n := len(dst)
	if cap(dst)-n < want {
		nd := make([]byte, n, n+want)
		copy(nd, dst)
		dst = nd
	}
	out, err := p.dec.DecodeAll(packed, dst)
	if err != nil {
		return dst[:n], fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if len(out)-n != want {
		return dst[:n], fmt.Errorf("%w: decompressed to %d bytes, %dx%d needs %d", ErrCorrupt, len(out)-n, w, h, want)
	}
	return out, nil
}

// Close releases the Packer's Zstd resources.
func (p *Packer) Close() {
	p.enc.Close()
	p.dec.Close()
}

func checkSize(b []byte, w, h int) error {
	if err := checkDims(w, h); err != nil {
		return err
	}
	if len(b) != DXT1Size(w, h) {
		return fmt.Errorf("%w: DXT1 data has %d bytes, %dx%d needs %d", ErrSize, len(b), w, h, DXT1Size(w, h))
	}
	return nil
}

var defaultPacker = sync.OnceValue(func() *Packer {
	p, err := NewPacker()
	if err != nil {
		panic("texture: default packer: " + err.Error()) // no options: cannot fail
	}
	return p
})

// Pack packs with a shared dictionary-less Packer; see Packer.Pack.
func Pack(dst, dxt1 []byte, w, h int) ([]byte, error) { return defaultPacker().Pack(dst, dxt1, w, h) }

// PackPrepared packs already prepared data with the shared dictionary-less
// Packer; see Packer.PackPrepared.
func PackPrepared(dst, bc1 []byte, w, h int) ([]byte, error) {
	return defaultPacker().PackPrepared(dst, bc1, w, h)
}

// CheckSize reports, with the error Pack would return, whether b has the
// size of a w x h DXT1 image with valid dimensions.
func CheckSize(b []byte, w, h int) error { return checkSize(b, w, h) }

// Unpack unpacks with a shared dictionary-less Packer; see Packer.Unpack.
func Unpack(dst, packed []byte, w, h int) ([]byte, error) {
	return defaultPacker().Unpack(dst, packed, w, h)
}

// ImageData returns the w x h image's BC1 bytes (after FixOrder and RDO,
// what DecodeDXT1 reads and a .tracy file stores) given its stored data:
// when packed, data is Pack output and is unpacked into dst[:0] (reuse dst
// across images to avoid allocating); otherwise data is returned as it is,
// after a size check. This is the one place callers holding a
// model.FrameImage go through, so none of them forgets its Packed flag.
func ImageData(dst, data []byte, w, h int, packed bool) ([]byte, error) {
	if packed {
		return Unpack(dst[:0], data, w, h)
	}
	if err := checkSize(data, w, h); err != nil {
		return nil, err
	}
	return data, nil
}

// ErrNoSamples is returned by TrainDict when it has nothing to train on.
var ErrNoSamples = errors.New("texture: no frame images to train a dictionary on")

// TrainDict builds a Zstd-format dictionary of at most maxSize bytes
// (Tracy uses 4 MiB) from prepared frame images (standard BC1 after RDO,
// as Unpack returns them).
//
// Tracy trains with ZDICT's fastCover, which has no Go port. We instead use
// klauspost/compress's BuildDict with, as history, the most recent images
// up to maxSize bytes (recent frames resemble later ones most), and all
// samples to tune the entropy tables at level 3. The result is a valid
// Zstd dictionary libzstd can load, but not the one tracy-update -d would
// write.
func TrainDict(samples [][]byte, maxSize int) ([]byte, error) {
	var nonEmpty [][]byte
	total := 0
	for _, s := range samples {
		if len(s) > 0 {
			nonEmpty = append(nonEmpty, s)
			total += len(s)
		}
	}
	if len(nonEmpty) == 0 || total < 8 {
		return nil, ErrNoSamples
	}
	if maxSize <= 0 || maxSize > 4<<20 {
		maxSize = 4 << 20
	}
	// History: the newest samples that fit, kept in their original order.
	first, size := len(nonEmpty), 0
	for first > 0 && size+len(nonEmpty[first-1]) <= maxSize {
		first--
		size += len(nonEmpty[first])
	}
	hist := make([]byte, 0, max(size, 8))
	if first == len(nonEmpty) { // the newest sample alone is too big: keep its tail
		s := nonEmpty[first-1]
		hist = append(hist, s[len(s)-maxSize:]...)
	}
	for _, s := range nonEmpty[first:] {
		hist = append(hist, s...)
	}
	for len(hist) < 8 {
		hist = append(hist, 0)
	}
	d, err := zstd.BuildDict(zstd.BuildDictOptions{
		ID:       1 + uint32(total%0x7FFFFFF0), // any id >= 1; 0 means "no dictionary"
		Contents: nonEmpty,
		History:  hist,
		Offsets:  [3]int{1, 4, 8},
		Level:    zstd.EncoderLevelFromZstd(zstdLevel),
	})
	if err != nil {
		return nil, fmt.Errorf("texture: train dictionary: %w", err)
	}
	return d, nil
}
