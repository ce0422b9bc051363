package container

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/klauspost/compress/zstd"
)

// benchFixture is the largest fixture, written by the real tracy-capture
// (Zstd 3, 4 streams): 4.25 MB of file, 260 MB of payload.
const benchFixture = "heavy10m"

func BenchmarkRead(b *testing.B) {
	path := fixtures.Path(b, benchFixture+".tracy")
	payload := fixturePayload(b, benchFixture)
	b.Run("fixture-zstd3x4/mmap", func(b *testing.B) { benchReadFile(b, path, len(payload)) })
	b.Run("fixture-zstd3x4/readat", func(b *testing.B) { benchReadFile(b, path, len(payload), WithoutMmap()) })
	// The same payload in our other encodings, from memory.
	for _, c := range []struct {
		name string
		opts []WriteOption
	}{
		{"lz4x4", []WriteOption{WithLZ4(), WithStreams(4)}},
		{"lz4x1", []WriteOption{WithLZ4(), WithStreams(1)}},
		{"lz4x16", []WriteOption{WithLZ4(), WithStreams(16)}},
		{"zstd3x1", []WriteOption{WithZstd(3), WithStreams(1)}},
		{"zstd3x16", []WriteOption{WithZstd(3), WithStreams(16)}},
	} {
		file := write(b, payload, c.opts...)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := NewReaderBytes(file)
				if err != nil {
					b.Fatal(err)
				}
				if n, err := io.Copy(io.Discard, r); err != nil || n != int64(len(payload)) {
					b.Fatal(n, err)
				}
				r.Close()
			}
		})
	}
}

func benchReadFile(b *testing.B, path string, size int, opts ...ReadOption) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	buf := make([]byte, 32<<10)
	for b.Loop() {
		r, err := Open(path, opts...)
		if err != nil {
			b.Fatal(err)
		}
		// Read through a caller buffer, as the payload parser does.
		n := 0
		for {
			k, err := r.Read(buf)
			n += k
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if n != size {
			b.Fatal(n)
		}
		r.Close()
	}
}

// BenchmarkReadReference decodes the fixture's streams one after the other
// with a bare decoder: no framing checks, no ordering, one goroutine. It is
// the yardstick for BenchmarkRead/fixture-zstd3x4.
func BenchmarkReadReference(b *testing.B) {
	file, err := os.ReadFile(fixtures.Path(b, benchFixture+".tracy"))
	if err != nil {
		b.Fatal(err)
	}
	n := int(file[5])
	streams := make([][]byte, n)
	for off, i := 6, 0; off < len(file); i++ {
		size := int(binary.LittleEndian.Uint32(file[off:]))
		streams[i%n] = append(streams[i%n], file[off+4:off+4+size]...)
		off += 4 + size
	}
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<27))
	payload := fixturePayload(b, benchFixture)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		total := int64(0)
		for _, s := range streams {
			dec.Reset(io.MultiReader(bytes.NewReader(s))) // MultiReader: stream, not DecodeAll
			k, _ := io.Copy(io.Discard, dec)
			total += k
		}
		if total != int64(len(payload)) {
			b.Fatal(total)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	payload := fixturePayload(b, benchFixture)
	raw, _ := os.ReadFile(fixtures.Path(b, benchFixture+".tracy"))
	b.Logf("tracy-capture (zstd 3, 4 streams): %d -> %d bytes, ratio %.1f", len(payload), len(raw), float64(len(payload))/float64(len(raw)))
	for _, c := range []struct {
		name string
		opt  WriteOption
	}{{"lz4", WithLZ4()}, {"zstd3", WithZstd(3)}} {
		for _, streams := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/streams=%d", c.name, streams), func(b *testing.B) {
				b.SetBytes(int64(len(payload)))
				b.ReportAllocs()
				var cw countWriter
				for b.Loop() {
					cw = 0
					w, err := NewWriter(&cw, c.opt, WithStreams(streams))
					if err != nil {
						b.Fatal(err)
					}
					w.Write(payload)
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(payload))/float64(cw), "ratio")
				b.ReportMetric(float64(cw), "file-bytes")
			})
		}
	}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
