package texture

import (
	"fmt"
	"image"
	"image/png"
	"io"
)

// Image decodes a standard BC1 frame image (as a .tracy file or Unpack
// holds it) into an image.NRGBA. With flip set (the image's flip flag: the
// client's rows were bottom-up) it is turned upright, as Tracy's viewer
// shows it.
func Image(bc1 []byte, w, h int, flip bool) (*image.NRGBA, error) {
	if err := checkDims(w, h); err != nil {
		return nil, err
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	if err := DecodeDXT1(img.Pix, bc1, w, h, flip); err != nil {
		return nil, err
	}
	return img, nil
}

// WritePNG writes a standard BC1 frame image to wr as PNG; see Image.
func WritePNG(wr io.Writer, bc1 []byte, w, h int, flip bool) error {
	img, err := Image(bc1, w, h, flip)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(wr, img); err != nil {
		return fmt.Errorf("texture: write PNG: %w", err)
	}
	return nil
}
