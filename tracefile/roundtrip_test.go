package tracefile

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
)

func TestGeneratedPayloadRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 50000} {
		tr := genTrace(uint64(n), n)
		var buf bytes.Buffer
		if err := WritePayload(&buf, tr); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPayload(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatalf("%d zones: %v", n, err)
		}
		if d := diffTraces(tr, got); d != "" {
			t.Fatalf("%d zones: %s", n, d)
		}
		// Unknown size (no bound) must work too.
		got, err = ReadPayload(bytes.NewReader(buf.Bytes()), -1)
		if err != nil {
			t.Fatalf("%d zones, no bound: %v", n, err)
		}
		if d := diffTraces(tr, got); d != "" {
			t.Fatalf("%d zones, no bound: %s", n, d)
		}
	}
}

func TestGeneratedFileRoundTrip(t *testing.T) {
	tr := genTrace(7, 20000)
	cases := []struct {
		name string
		opts []Option
	}{
		{"lz4-1", []Option{WithLZ4(), WithStreams(1)}},
		{"lz4-16", []Option{WithLZ4(), WithStreams(16)}},
		{"zstd1-1", []Option{WithZstd(1), WithStreams(1)}},
		{"zstd3-16", []Option{WithZstd(3), WithStreams(16)}},
		{"zstd19-4", []Option{WithZstd(19), WithStreams(4)}},
		{"default", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			var wrep Report
			if err := Write(&buf, tr, append(c.opts, WithReport(&wrep))...); err != nil {
				t.Fatal(err)
			}
			var rrep Report
			got, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), WithReport(&rrep))
			if err != nil {
				t.Fatal(err)
			}
			if d := diffTraces(tr, got); d != "" {
				t.Fatal(d)
			}
			if rrep.PayloadBytes != wrep.PayloadBytes || rrep.FileBytes != int64(buf.Len()) || rrep.Compression != wrep.Compression || rrep.Streams != wrep.Streams || rrep.Version != Version || rrep.Zones != int64(tr.ZoneCount()) || wrep.Zones != rrep.Zones || rrep.GpuZones != 4 {
				t.Fatalf("reports disagree: wrote %+v, read %+v", wrep, rrep)
			}
			_ = fmt.Sprint()
		})
	}
}

// TestDiffDetects guards the round-trip tests: the comparison must notice
// a change anywhere.
func TestDiffDetects(t *testing.T) {
	a := genTrace(1, 100)
	var buf bytes.Buffer
	if err := WritePayload(&buf, a); err != nil {
		t.Fatal(err)
	}
	mutations := map[string]func(tr *model.Trace){
		"zone end":    func(tr *model.Trace) { tr.Threads[0].Zones.At(3).SetEnd(tr.Threads[0].Zones.At(3).End() + 1) },
		"message":     func(tr *model.Trace) { tr.Messages[2].Color++ },
		"ptr string":  func(tr *model.Trace) { tr.PtrStrings[0x5000]++ },
		"cpu data":    func(tr *model.Trace) { tr.CPUData[255][0].End++ },
		"image bytes": func(tr *model.Trace) { tr.FrameImages[0].Data[3]++ },
		"hw sample":   func(tr *model.Trace) { tr.HwSamples[0].Times[4][1]++ },
	}
	for name, mut := range mutations {
		b, err := ReadPayload(bytes.NewReader(buf.Bytes()), -1)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffTraces(a, b); d != "" {
			t.Fatalf("unmutated: %s", d)
		}
		mut(b)
		if diffTraces(a, b) == "" {
			t.Errorf("mutation %q not detected", name)
		}
	}
}

// TestPackedImagesWriteUnpacked: a capture keeps frame images Zstd-packed;
// the writer must store exactly the bytes it would store for the same
// images unpacked, and a reader loads them unpacked.
func TestPackedImagesWriteUnpacked(t *testing.T) {
	plain := genTrace(5, 300)
	var want bytes.Buffer
	if err := WritePayload(&want, plain); err != nil {
		t.Fatal(err)
	}
	packed := genTrace(5, 300)
	for i := range packed.FrameImages {
		img := &packed.FrameImages[i]
		img.Data, img.Packed = packPrepared(t, img.Data, img.W, img.H), true
	}
	if d := diffTraces(plain, packed); d != "" {
		t.Fatalf("packed model differs from plain one: %s", d)
	}
	var got bytes.Buffer
	if err := WritePayload(&got, packed); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatal("payload written from packed images differs from the one written from plain images")
	}
	back, err := ReadPayload(bytes.NewReader(got.Bytes()), int64(got.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for i, img := range back.FrameImages {
		if img.Packed || !bytes.Equal(img.Data, plain.FrameImages[i].Data) {
			t.Errorf("image %d read back packed=%v or with other bytes", i, img.Packed)
		}
	}
	if d := diffTraces(packed, back); d != "" {
		t.Fatal(d)
	}
	// The helper compares content: a packed image of other bytes differs.
	im0 := plain.FrameImages[0]
	packed.FrameImages[0].Data = packPrepared(t, make([]byte, len(im0.Data)), im0.W, im0.H)
	if diffTraces(plain, packed) == "" {
		t.Error("diffTraces missed a packed image with other content")
	}
}

// packPrepared packs file-form (prepared) image bytes as a capture keeps them.
func packPrepared(t *testing.T, data []byte, w, h uint16) []byte {
	t.Helper()
	p, err := texture.NewPacker()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out, err := p.PackPrepared(nil, data, int(w), int(h))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
