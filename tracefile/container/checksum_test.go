package container

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// chunkOffsets returns the file offset of every chunk's size field.
func chunkOffsets(file []byte, dataOff int) []int {
	var offs []int
	for off := dataOff; off+4 <= len(file); off += 4 + int(binary.LittleEndian.Uint32(file[off:])) {
		offs = append(offs, off)
	}
	return offs
}

// TestZstdChunksChecksummed: every chunk we write is one whole Zstd frame
// whose header announces a content checksum.
func TestZstdChunksChecksummed(t *testing.T) {
	file := write(t, genPayload(31, 7*65536+5), WithZstd(3), WithStreams(3))
	for i, off := range chunkOffsets(file, 6) {
		c := file[off+4 : off+4+int(binary.LittleEndian.Uint32(file[off:]))]
		var h zstd.Header
		if err := h.Decode(c); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if !h.HasCheckSum {
			t.Fatalf("chunk %d has no content checksum", i)
		}
	}
}

// TestChecksumMismatch: a byte flipped inside a stored (raw) block decodes
// without complaint from the entropy decoder; only the checksum catches it,
// and the error names the chunk.
func TestChecksumMismatch(t *testing.T) {
	// Random bytes do not compress: the encoder stores them as raw blocks,
	// whose bytes are copied to the output unchecked.
	payload := make([]byte, 3*65536+100)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range payload {
		payload[i] = byte(rng.Uint32())
	}
	file := write(t, payload, WithZstd(3), WithStreams(2))
	offs := chunkOffsets(file, 6)
	for _, victim := range []int{0, 1, 3} {
		for _, where := range []string{"data", "checksum"} {
			b := bytes.Clone(file)
			end := offs[victim] + 4 + int(binary.LittleEndian.Uint32(b[offs[victim]:]))
			at := end - 1 // last byte of the checksum
			if where == "data" {
				at = (offs[victim] + end) / 2 // inside the raw block
			}
			b[at] ^= 0x40
			n, err := readErr(t, b)
			if !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrChecksum) {
				t.Fatalf("chunk %d %s flipped: %d bytes, %v; want ErrChecksum", victim, where, n, err)
			}
			var ce *CorruptError
			errors.As(err, &ce)
			if ce.Chunk != victim || ce.Offset != int64(offs[victim]) {
				t.Errorf("chunk %d %s flipped: error names chunk %d at %d: %v", victim, where, ce.Chunk, ce.Offset, err)
			}
			// The blocks before the bad one are delivered, nothing of it.
			if n != int64(victim)*BlockSize {
				t.Errorf("chunk %d %s flipped: %d bytes delivered, want %d", victim, where, n, victim*BlockSize)
			}
		}
	}
}

// TestChecksummedChunks: the Reader counts the chunks a checksum covered:
// all of ours in Zstd, none of Tracy's layout or of LZ4.
func TestChecksummedChunks(t *testing.T) {
	payload := genPayload(32, 9*65536+17)
	for _, c := range []struct {
		name string
		opt  WriteOption
		want int
	}{{"zstd", WithZstd(3), 10}, {"tracy layout", tracyZstd(3), 0}, {"lz4", WithLZ4(), 0}} {
		r, err := NewReaderBytes(write(t, payload, c.opt, WithStreams(3)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		if r.ChunksRead() != 10 || r.ChecksummedChunks() != c.want {
			t.Errorf("%s: %d chunks read, %d checksummed; want 10, %d", c.name, r.ChunksRead(), r.ChecksummedChunks(), c.want)
		}
		r.Close()
	}
}
