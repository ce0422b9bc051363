// Package texture handles Tracy frame images, the screenshots a client
// attaches to frames, stored as DXT1 (BC1) at 4 bits per pixel: encoding
// them on the client, preparing and packing them on the server as Tracy
// does, and turning a trace's images back into pixels.
//
// Saving the frame images of a loaded trace as PNG files (what
// `gotracy frames` does):
//
//	for i, fi := range tr.FrameImages {
//		bc1, err := texture.ImageData(nil, fi.Data, int(fi.W), int(fi.H), fi.Packed)
//		if err != nil {
//			return err
//		}
//		f, err := os.Create(fmt.Sprintf("frame%d.png", i))
//		...
//		err = texture.WritePNG(f, bc1, int(fi.W), int(fi.H), fi.Flip)
//	}
//
// The stages follow Tracy 0.14 bit for bit, because the real GUI and server
// consume what gotracy produces:
//
//   - Client: AppendDXT1 turns RGBA8 into DXT1 with Tracy's own fast
//     algorithm, including its private index order. It runs in SIMD
//     assembly where the CPU allows (EncoderPath names the path in use; the
//     purego build tag forces the portable Go code).
//   - Server: Prepare applies FixOrder (Tracy's order to standard BC1) and
//     RDO, Tracy's rate-distortion pass; Pack adds Zstd level 3 to keep
//     images small in memory (a 320x180 frame: 28,800 DXT1 bytes, about
//     9.4 KB packed), and Unpack undoes it.
//   - Files: a .tracy file stores each image prepared but not packed;
//     DecodeDXT1, Image and WritePNG turn such data into pixels.
//
// Errors are the sentinels ErrDimensions, ErrSize, ErrCorrupt and
// ErrNoSamples, wrapped with the offending sizes. Nothing panics on bad
// input. How the encoders are built and tested is in docs/DESIGN.md in the
// repository.
package texture
