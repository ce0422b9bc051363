//go:build (!amd64 && !arm64) || purego

package texture

// EncoderPath names the DXT1 encoder implementation this process uses:
// "avx2" or "sse4.1" on amd64, "neon" on arm64, or "go" (the portable code;
// forced by the purego build tag). All produce identical bytes.
func EncoderPath() string { return path }

var path = "go"

func encode(out, rgba []byte, w, h int, flip bool) { encodeGeneric(out, rgba, w, h, flip) }
