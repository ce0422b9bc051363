//go:build arm64 && !purego

package texture

import "testing"

// asmEncoders returns the assembly encoders this CPU can run, so tests
// compare every one against the Go path. NEON is always present on arm64.
func asmEncoders() map[string]func(out, rgba []byte, w, h int, flip bool) {
	return map[string]func(out, rgba []byte, w, h int, flip bool){
		"neon": func(out, rgba []byte, w, h int, flip bool) { encodeRows(out, rgba, w, h, flip, rowNEON) },
	}
}

func TestEncoderPathNEON(t *testing.T) {
	if p := EncoderPath(); p != "neon" {
		t.Errorf("EncoderPath() = %q on arm64, want neon", p)
	}
	if _, ok := encoders()["neon"]; !ok {
		t.Error("the bit-exact and differential tests do not cover the NEON encoder")
	}
}
