package capture

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/texture"
	"github.com/gotracy/gotracy/tracefile"
)

// gradient is a w x h RGBA8 test picture that varies with seed.
func gradient(w, h, seed int) []byte {
	p := make([]byte, 0, w*h*4)
	for y := range h {
		for x := range w {
			p = append(p, byte(x*255/w+seed), byte(y*255/h), byte((x+y)*seed), 255)
		}
	}
	return p
}

// saveAndLoad writes tr as a .tracy file and reads it back.
func saveAndLoad(t *testing.T, tr *model.Trace) *model.Trace {
	t.Helper()
	var file bytes.Buffer
	if err := tracefile.Write(&file, tr); err != nil {
		t.Fatal(err)
	}
	back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestFrameImagesPacked: a capture keeps frame images as Tracy's server
// does, Zstd-packed after FixOrder and RDO, and the saved file holds them
// unpacked: exactly texture.Prepare of the client's DXT1. An image whose
// blocks do not match its stated size is dropped without disturbing the
// next one.
func TestFrameImagesPacked(t *testing.T) {
	const w, h = 64, 32
	var clientDXT [][]byte
	var b []byte
	for f := range 3 {
		dxt, err := texture.AppendDXT1(nil, gradient(w, h, f*40), w, h, false)
		if err != nil {
			t.Fatal(err)
		}
		clientDXT = append(clientDXT, dxt)
		if b, err = protocol.AppendFrameImageWithData(b, uint32(f), w, h, f == 2, dxt); err != nil {
			t.Fatal(err)
		}
		if f == 0 { // claims 64x64 with 64x32 worth of blocks: dropped
			if b, err = protocol.AppendFrameImageData(b, 0, dxt); err != nil {
				t.Fatal(err)
			}
			b = protocol.AppendFrameImage(b, 9, w, w, 0)
		}
	}
	b = protocol.AppendTerminate(b)
	res, err := Replay(context.Background(), bytes.NewReader(stream(t, b)))
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace
	if len(tr.FrameImages) != len(clientDXT) {
		t.Fatalf("%d frame images, want %d", len(tr.FrameImages), len(clientDXT))
	}
	want := make([][]byte, len(clientDXT))
	for i, img := range tr.FrameImages {
		want[i] = bytes.Clone(clientDXT[i])
		texture.Prepare(want[i])
		if !img.Packed || img.W != w || img.H != h || img.Flip != (i == 2) {
			t.Errorf("image %d: packed %v, %dx%d flip %v", i, img.Packed, img.W, img.H, img.Flip)
		}
		if cap(img.Data) >= w*h/2 { // cap: a packed copy keeping the raw capacity saves nothing
			t.Errorf("image %d: %d bytes (cap %d) in memory, raw is %d", i, len(img.Data), cap(img.Data), w*h/2)
		}
		got, err := texture.Unpack(nil, img.Data, w, h)
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Errorf("image %d: unpacks to other bytes than Prepare of the client's DXT1 (%v)", i, err)
		}
	}
	for i, img := range saveAndLoad(t, tr).FrameImages {
		if img.Packed || !bytes.Equal(img.Data, want[i]) {
			t.Errorf("saved image %d: packed %v, equal to Prepare of the client's DXT1: %v", i, img.Packed, bytes.Equal(img.Data, want[i]))
		}
	}
}

// TestReplayImagesMatchTracy: replaying the demo recording and saving it
// gives byte for byte the images the real Tracy capture wrote into
// demo.tracy, while memory holds them packed.
func TestReplayImagesMatchTracy(t *testing.T) {
	wantTr, err := tracefile.ReadFile(fixtures.Path(t, "demo.tracy"))
	if err != nil {
		t.Fatal(err)
	}
	res := replayFixture(t, "demo")
	raw, packed, held := 0, 0, 0
	for i, img := range res.Trace.FrameImages {
		if !img.Packed {
			t.Fatalf("image %d not packed", i)
		}
		raw += int(img.W) * int(img.H) / 2
		packed += len(img.Data)
		held += cap(img.Data)
	}
	n := len(res.Trace.FrameImages)
	if n == 0 || held >= raw {
		t.Fatalf("%d images, %d bytes held packed for %d raw", n, held, raw)
	}
	t.Logf("demo: %d images, in memory %d bytes each packed (%d allocated; was %d raw), %.2fx smaller",
		n, packed/n, held/n, raw/n, float64(raw)/float64(held))
	got := saveAndLoad(t, res.Trace).FrameImages
	if len(got) != len(wantTr.FrameImages) {
		t.Fatalf("%d images saved, demo.tracy has %d", len(got), len(wantTr.FrameImages))
	}
	for i, img := range got {
		w := wantTr.FrameImages[i]
		if img.W != w.W || img.H != w.H || img.Flip != w.Flip || !bytes.Equal(img.Data, w.Data) {
			t.Errorf("image %d differs from demo.tracy's", i)
		}
	}
}

// TestFrameImagesPackedOffConsumer: images are compressed on a goroutine of
// their own (images.go). With more images than may wait unpacked, spread
// over many transport frames and read by a live reader throughout, every
// snapshot holds each image either unpacked or packed but always as the
// same prepared bytes, in stream order, and the finished trace holds all
// of them packed.
func TestFrameImagesPackedOffConsumer(t *testing.T) {
	const w, h = 32, 16
	n := 3*imagesInFlight + 5
	var frames [][]byte
	want := make([][]byte, n)
	var b []byte
	for f := range n {
		dxt, err := texture.AppendDXT1(nil, gradient(w, h, f*7+1), w, h, false)
		if err != nil {
			t.Fatal(err)
		}
		want[f] = bytes.Clone(dxt)
		texture.Prepare(want[f])
		if b, err = protocol.AppendFrameImageWithData(b, uint32(f), w, h, false, dxt); err != nil {
			t.Fatal(err)
		}
		if f%3 == 2 { // several images per transport frame, many frames
			frames, b = append(frames, b), nil
		}
	}
	frames = append(frames, protocol.AppendTerminate(b))
	check := func(what string, imgs []model.FrameImage, all bool) {
		t.Helper()
		if all && len(imgs) != n {
			t.Fatalf("%s: %d images, want %d", what, len(imgs), n)
		}
		for i, img := range imgs {
			got, err := texture.ImageData(nil, img.Data, w, h, img.Packed)
			if err != nil || !bytes.Equal(got, want[i]) {
				t.Fatalf("%s: image %d (packed %v) is not the client's image %d prepared (%v)", what, i, img.Packed, i, err)
			}
			if all && !img.Packed {
				t.Errorf("%s: image %d not packed", what, i)
			}
		}
	}
	p := NewPublisher(time.Microsecond)
	p.Latest()
	done := make(chan struct{})
	snaps := 0
	go func() {
		defer close(done)
		for {
			ch := p.Changed()
			if s := p.Latest(); s != nil {
				check("snapshot", s.Trace.FrameImages, false)
				snaps++
				if s.Final {
					return
				}
			}
			select {
			case <-ch:
			case <-time.After(10 * time.Second):
				t.Error("no snapshot for 10 s")
				return
			}
		}
	}()
	res, err := Replay(context.Background(), bytes.NewReader(stream(t, frames...)), WithPublisher(p))
	if err != nil {
		t.Fatal(err)
	}
	<-done
	check("result", res.Trace.FrameImages, true)
	t.Logf("%d snapshots", snaps)
}
