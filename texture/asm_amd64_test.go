//go:build amd64 && !purego

package texture

import "golang.org/x/sys/cpu"

// asmEncoders returns the assembly encoders this CPU can run, whatever EncoderPath
// chose, so tests compare every one against the Go path.
func asmEncoders() map[string]func(out, rgba []byte, w, h int, flip bool) {
	m := map[string]func(out, rgba []byte, w, h int, flip bool){}
	if cpu.X86.HasSSE41 && cpu.X86.HasSSSE3 {
		m["sse4.1"] = func(out, rgba []byte, w, h int, flip bool) { encodeRows(out, rgba, w, h, flip, dxt1RowSSE41) }
	}
	if cpu.X86.HasAVX2 {
		m["avx2"] = func(out, rgba []byte, w, h int, flip bool) { encodeRows(out, rgba, w, h, flip, dxt1RowAVX2) }
	}
	return m
}
