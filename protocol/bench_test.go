package protocol

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/pierrec/lz4/v4"
)

// tracyHeavy10mWire is the size of Tracy's own stream for heavy10m.
const tracyHeavy10mWire = 2960619

func loadFixture(b *testing.B, name string) []byte {
	data, err := os.ReadFile(fixtures.Path(b, name))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecodeHeavy10m decodes the largest real recording end to end:
// handshake, LZ4 frames with the 64 KiB dictionary, and every item split
// and counted. SetBytes is the decompressed size.
func BenchmarkDecodeHeavy10m(b *testing.B) {
	data := loadFixture(b, "heavy10m.c2s.bin")
	rd := bytes.NewReader(data)
	fr := NewFrameReader(rd, 0) // buffers allocated once, outside the timing
	var d ItemDecoder
	var items, decoded int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		rd.Reset(data)
		s, err := ReadSession(rd)
		if err != nil {
			b.Fatal(err)
		}
		fr.Reset(rd, s.Size)
		items, decoded = 0, 0
		var counts [NumQueueTypes]int64
		for {
			f, err := fr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			decoded += int64(len(f))
			d.Reset(f, 0)
			for it, ok := d.Next(); ok; it, ok = d.Next() {
				counts[it.Type]++
			}
			if d.Err() != nil {
				b.Fatal(d.Err())
			}
		}
		for _, c := range counts {
			items += c
		}
	}
	b.StopTimer()
	cpu := (processCPU() - cpu0) / float64(b.N)
	b.SetBytes(decoded)
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(items)/sec, "items/s")
	b.ReportMetric(float64(items), "items/op")
	if cpu > 0 {
		b.ReportMetric(cpu*1e3, "cpu-ms/op")
		b.ReportMetric(float64(items)/cpu, "items/cpu-s")
	}
}

// BenchmarkDecodeHeavy10mTimes is BenchmarkDecodeHeavy10m plus the time
// references: every item's time reconstructed, as a server does.
func BenchmarkDecodeHeavy10mTimes(b *testing.B) {
	data := loadFixture(b, "heavy10m.c2s.bin")
	rd := bytes.NewReader(data)
	fr := NewFrameReader(rd, 0)
	var d ItemDecoder
	var items, decoded int64
	var sum int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rd.Reset(data)
		s, _ := ReadSession(rd)
		fr.Reset(rd, s.Size)
		var refs TimeRefs
		items, decoded = 0, 0
		for {
			f, err := fr.Next()
			if err != nil {
				break
			}
			decoded += int64(len(f))
			d.Reset(f, 0)
			for it, ok := d.Next(); ok; it, ok = d.Next() {
				t, _ := refs.Time(it)
				sum += t
				items++
			}
		}
	}
	b.StopTimer()
	b.SetBytes(decoded)
	b.ReportMetric(float64(items)/(b.Elapsed().Seconds()/float64(b.N)), "items/s")
	_ = sum
}

// BenchmarkDecodeHeavy10mPierrec is the LZ4 reference measured in the same
// run: pierrec/lz4 decoding the same frames with the same 64 KiB dictionary
// (no item splitting).
func BenchmarkDecodeHeavy10mPierrec(b *testing.B) {
	data := loadFixture(b, "heavy10m.c2s.bin")
	s, err := ReadSession(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	wire := data[s.Size:]
	buf := make([]byte, DictSize+TargetFrameSize)
	var decoded int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		decoded = 0
		hist := 0
		for p := wire; len(p) > 0; {
			n := binary.LittleEndian.Uint32(p)
			m, err := lz4.UncompressBlockWithDict(p[4:4+n], buf[DictSize:], buf[DictSize-hist:DictSize])
			if err != nil {
				b.Fatal(err)
			}
			p = p[4+n:]
			decoded += int64(m)
			// Slide the last 64 KiB of output into the dictionary slot.
			end := DictSize + m
			keep := min(DictSize, hist+m)
			copy(buf[DictSize-keep:DictSize], buf[end-keep:end])
			hist = keep
		}
	}
	if cpu := (processCPU() - cpu0) / float64(b.N); cpu > 0 {
		b.ReportMetric(cpu*1e3, "cpu-ms/op")
	}
	b.SetBytes(decoded)
}

// heavyItems returns the decoded heavy10m frames (the items Tracy sent, in
// Tracy's own frame boundaries).
func heavyItems(b *testing.B) ([]byte, []int) {
	data := loadFixture(b, "heavy10m.c2s.bin")
	rd := bytes.NewReader(data)
	s, err := ReadSession(rd)
	if err != nil {
		b.Fatal(err)
	}
	fr := NewFrameReader(rd, s.Size)
	var all []byte
	var frames []int
	for {
		f, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, f...)
		frames = append(frames, len(f))
	}
	return all, frames
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkFrameWriterHeavy10m re-encodes the 20M items of heavy10m, handed
// over in Tracy's own frame-sized batches, and compares the wire size with
// Tracy's stream of the same items (ratio > 1: ours is smaller).
func BenchmarkFrameWriterHeavy10m(b *testing.B) {
	benchWriter(b, false, false)
}

// BenchmarkFrameWriterHeavy10mTrusted is the same through
// WriteTrustedItems (no per-item check), the path of a client's sender.
func BenchmarkFrameWriterHeavy10mTrusted(b *testing.B) {
	benchWriter(b, false, true)
}

// BenchmarkFrameWriterHeavy10mIndependent is the same without the
// cross-frame dictionary.
func BenchmarkFrameWriterHeavy10mIndependent(b *testing.B) {
	benchWriter(b, true, false)
}

func benchWriter(b *testing.B, indep, trusted bool) {
	all, frames := heavyItems(b)
	var items int64
	var d ItemDecoder
	d.Reset(all, 0)
	for _, ok := d.Next(); ok; _, ok = d.Next() {
		items++
	}
	var cw countWriter
	var opts []FrameWriterOption
	if indep {
		opts = append(opts, WithIndependentFrames())
	}
	fw := NewFrameWriter(&cw, opts...)
	write := fw.WriteItems
	if trusted {
		write = fw.WriteTrustedItems
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		cw.n = 0
		fw.Reset(&cw)
		p := all
		for _, n := range frames {
			if err := write(p[:n]); err != nil {
				b.Fatal(err)
			}
			p = p[n:]
		}
		if err := fw.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if cpu := (processCPU() - cpu0) / float64(b.N); cpu > 0 {
		b.ReportMetric(cpu*1e3, "cpu-ms/op")
		b.ReportMetric(float64(items)/cpu, "items/cpu-s")
	}
	b.SetBytes(int64(len(all)))
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(items)/sec, "items/s")
	b.ReportMetric(float64(cw.n), "wire-bytes")
	b.ReportMetric(float64(len(all))/float64(cw.n), "ratio")
	b.ReportMetric(float64(tracyHeavy10mWire)/float64(cw.n+1+WelcomeSize), "vs-tracy")
}
