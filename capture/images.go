package capture

import (
	"bytes"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
)

// Frame images are compressed off the consumer goroutine. The consumer
// checks an image's size, runs Tracy's FixOrder and RDO pass on a copy
// (texture.Prepare, cheap) and stores it at once, unpacked: a FrameImage
// with Packed false and the prepared bytes is a complete image as a .tracy
// file holds it, so every reader (snapshots, the flight recorder's save, the
// writer) sees a valid trace at any moment. The Zstd compression Tracy's
// server does for memory's sake (most of an image's cost) runs on one
// packer goroutine; the consumer swaps each packed result in, between
// frames, and waits for all of them when the capture ends or the flight
// recorder is about to move images. At most imagesInFlight images wait
// unpacked, so memory stays bounded whatever the rate of images; a full
// queue makes the consumer wait for the oldest result.
//
// The packed bytes are never written to a file (the writer unpacks them),
// so where the compression runs cannot change a saved trace.
const imagesInFlight = 8

type imageJob struct {
	idx    int32  // index in t.FrameImages
	data   []byte // prepared image, as stored until packed
	w, h   int
	packed []byte // packer's result (exact size), nil if packing failed
}

type imagePacker struct {
	jobs    chan *imageJob
	results chan *imageJob
	pending int // jobs sent, results not applied
}

func newImagePacker() *imagePacker {
	p := &imagePacker{
		jobs:    make(chan *imageJob, imagesInFlight),
		results: make(chan *imageJob, imagesInFlight),
	}
	go p.run()
	return p
}

func (p *imagePacker) run() {
	var buf []byte
	for j := range p.jobs {
		var err error
		buf, err = texture.PackPrepared(buf[:0], j.data, j.w, j.h)
		if err == nil {
			// An exact-size copy: packing into a fresh slice would keep
			// a W*H/2 capacity alive for a third of that in data.
			j.packed = bytes.Clone(buf)
		}
		p.results <- j
	}
}

// storeImage adds a prepared image (data is the worker's to keep) to the
// trace and queues its compression; it returns the image's index.
func (w *worker) storeImage(data []byte, width, height uint16, flip bool) int32 {
	idx := int32(len(w.t.FrameImages))
	w.t.FrameImages = append(w.t.FrameImages, model.FrameImage{W: width, H: height, Flip: flip, Data: data})
	if w.images == nil {
		w.images = newImagePacker()
	}
	p := w.images
	if p.pending == imagesInFlight {
		w.applyImage(<-p.results)
	}
	p.pending++
	p.jobs <- &imageJob{idx: idx, data: data, w: int(width), h: int(height)}
	return idx
}

// applyImage swaps a packed image in. The image stays unpacked when packing
// failed (it cannot: the size was checked) or when the slot no longer holds
// the data that was packed.
func (w *worker) applyImage(j *imageJob) {
	w.images.pending--
	if j.packed == nil || int(j.idx) >= len(w.t.FrameImages) {
		return
	}
	fi := &w.t.FrameImages[j.idx]
	if fi.Packed || len(fi.Data) == 0 || &fi.Data[0] != &j.data[0] {
		return
	}
	fi.Data, fi.Packed = j.packed, true
}

// collectImages applies the results that are ready, without waiting.
func (w *worker) collectImages() {
	p := w.images
	for p != nil && p.pending > 0 {
		select {
		case j := <-p.results:
			w.applyImage(j)
		default:
			return
		}
	}
}

// waitImages applies every outstanding result.
func (w *worker) waitImages() {
	p := w.images
	for p != nil && p.pending > 0 {
		w.applyImage(<-p.results)
	}
}

// stopImages waits for every outstanding result and ends the packer.
func (w *worker) stopImages() {
	if w.images == nil {
		return
	}
	w.waitImages()
	close(w.images.jobs)
	w.images = nil
}
