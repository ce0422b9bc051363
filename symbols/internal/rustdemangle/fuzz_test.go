package rustdemangle

import (
	"bytes"
	"testing"
)

// FuzzAppend: Append never panics, stays within its bounds, agrees with
// IsRust, leaves dst untouched on failure, and only accepts names with
// the prefixes binutils accepts.
func FuzzAppend(f *testing.F) {
	for _, c := range tableCases {
		if len(c.name) < 400 {
			f.Add(c.name)
		}
	}
	f.Fuzz(func(t *testing.T, name string) {
		dst := []byte("x")
		out, ok := Append(dst, name)
		if ok != IsRust(name) {
			t.Fatalf("Append ok=%v, IsRust=%v", ok, !ok)
		}
		if !ok {
			if string(out) != "x" {
				t.Fatalf("failed Append changed dst: %q", out)
			}
			return
		}
		if !bytes.HasPrefix(out, []byte("x")) {
			t.Fatalf("dst prefix lost: %q", out)
		}
		if len(out)-1 > MaxOutput {
			t.Fatalf("%d bytes of output", len(out)-1)
		}
		if len(name) < 3 || name[0] != '_' || (name[1] != 'R' && name[:3] != "_ZN") {
			t.Fatalf("accepted a name that is neither _R nor _ZN")
		}
		// Demangling is a function of the name alone.
		again, _ := Append(nil, name)
		if !bytes.Equal(again, out[1:]) {
			t.Fatalf("second call differs: %q vs %q", again, out[1:])
		}
	})
}
