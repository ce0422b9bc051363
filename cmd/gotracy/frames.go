package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
)

func init() {
	register(&command{
		name:    "frames",
		summary: "export every frame image (screenshot) of a .tracy file as PNG, named by frame number",
		usage:   "frames FILE -o DIR [-f]",
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			out := fs.String("o", "", "`directory` for the PNG files (required; created if missing)")
			hiddenAlias(fs, "o", "out") // the old spelling
			force := fs.Bool("f", false, "overwrite PNG files that already exist")
			return func(e *env, args []string) error {
				if len(args) != 1 {
					return usagef("frames needs exactly one trace file, got %d arguments", len(args))
				}
				if *out == "" {
					return usagef("frames needs an output directory: -o DIR")
				}
				t, _, err := loadTrace(e, args[0])
				if err != nil {
					return err
				}
				n, err := exportFrameImages(e, t, *out, *force)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "wrote %d frame image(s) to %s\n", n, *out)
				return nil
			}
		},
	})
}

// frameImageName names an image file after the frame number Tracy's GUI
// shows for base-set frame i: the index itself, or in on-demand captures
// i + frameOffset - 1, the frame count of the client's own numbering.
func frameImageName(t *model.Trace, i int) string {
	n := uint64(i)
	if off := t.Metadata.FrameOffset; off != 0 {
		n = uint64(i) + off - 1
	}
	return fmt.Sprintf("frame%06d.png", n)
}

// exportFrameImages writes one PNG per base-set frame that has an image and
// returns how many it wrote. Images are standard BC1 after Tracy's FixOrder
// and RDO (Zstd-packed when the trace comes straight from a capture), so
// once unpacked they decode as they are.
func exportFrameImages(e *env, t *model.Trace, dir string, force bool) (int, error) {
	if len(t.FrameSets) == 0 {
		return 0, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	// Every name is checked before the first is written, so a refused run
	// writes nothing.
	for i, fr := range t.FrameSets[0].Frames {
		if fr.Image >= 0 {
			if err := fileio.CheckOutput(filepath.Join(dir, frameImageName(t, i)), force); err != nil {
				return 0, err
			}
		}
	}
	n := 0
	var buf []byte // reused across packed images
	for i, fr := range t.FrameSets[0].Frames {
		if fr.Image < 0 {
			continue
		}
		if int(fr.Image) >= len(t.FrameImages) {
			return n, fmt.Errorf("frame %d refers to image %d of %d: %w", i, fr.Image, len(t.FrameImages), errBadImageIndex)
		}
		img := t.FrameImages[fr.Image]
		path := filepath.Join(dir, frameImageName(t, i))
		data, err := texture.ImageData(buf, img.Data, int(img.W), int(img.H), img.Packed)
		if err != nil {
			return n, fmt.Errorf("frame %d image: %w", i, err)
		}
		if img.Packed {
			buf = data
		}
		if err := writeFrameImage(e, path, force, img, data); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

var errBadImageIndex = errors.New("frame image index out of range")

func writeFrameImage(e *env, path string, force bool, img model.FrameImage, data []byte) error {
	err := writeOutput(e.context(), path, force, func(w io.Writer) error {
		return texture.WritePNG(w, data, int(img.W), int(img.H), img.Flip)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
