// Package texture handles Tracy frame images: the screenshots a client
// attaches to frames, stored as DXT1 (BC1) at 4 bits per pixel.
//
// The pipeline mirrors Tracy 0.14 exactly, because the real GUI and server
// must accept what we produce:
//
//   - Client: AppendDXT1 turns RGBA8 into DXT1 with Tracy's own fast
//     algorithm (a bounding box per 4x4 block, endpoints inset by 1/16,
//     indices from each pixel's channel sum), bit for bit what Tracy's
//     CompressImageDxt1 emits, including its private index order
//     (0 = color1 ... 3 = color0). Speed matters here since the client
//     compresses every frame on a background goroutine, so on amd64 the
//     encoder runs in SSE4.1 or AVX2 assembly chosen at run time and on
//     arm64 in NEON assembly (always present there); the purego build
//     tag forces the portable Go code. EncoderPath names the one in use.
//   - Server: Prepare applies FixOrder (Tracy order to standard BC1) and
//     RDO, Tracy's rate-distortion pass that flattens low-contrast blocks
//     so Zstd finds more repetition; a Packer then compresses at Zstd
//     level 3 to keep images small in memory (a 320x180 frame: 28,800
//     DXT1 bytes, about 9.4 KB packed).
//   - Files: a .tracy file stores each image after FixOrder and RDO but
//     decompressed (Unpack output); DecodeDXT1, Image and WritePNG turn
//     such data into pixels.
//
// Errors are the sentinels ErrDimensions, ErrSize, ErrCorrupt and
// ErrNoSamples, wrapped with the offending sizes. Nothing panics on bad
// input.
package texture
