package texture

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestFixOrderMapping checks each 2-bit index against the meaning of the
// two orders: Tracy 0=c1, 1=2/3 c1+1/3 c0, 2=1/3 c1+2/3 c0, 3=c0; BC1
// 0=c0, 1=c1, 2=2/3 c0+1/3 c1, 3=1/3 c0+2/3 c1.
func TestFixOrderMapping(t *testing.T) {
	want := map[uint32]uint32{0: 1, 1: 3, 2: 2, 3: 0}
	for pos := 0; pos < 16; pos++ {
		for tr, std := range want {
			var b [8]byte
			// Fill the other positions with index 3 (c0 in Tracy order),
			// which FixOrder maps to 0.
			bits := uint32(0xFFFFFFFF) &^ (3 << (2 * pos))
			bits |= tr << (2 * pos)
			binary.LittleEndian.PutUint32(b[4:], bits)
			FixOrder(b[:])
			got := binary.LittleEndian.Uint32(b[4:])
			if got != std<<(2*pos) {
				t.Errorf("pos %d: Tracy index %d -> %08x, want standard %d alone", pos, tr, got, std)
			}
		}
	}
}

func TestFixOrderRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 8*1000+5) // trailing partial block stays untouched
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	orig := bytes.Clone(data)
	FixOrder(data)
	if bytes.Equal(data, orig) {
		t.Fatal("FixOrder changed nothing")
	}
	if !bytes.Equal(data[len(data)-5:], orig[len(orig)-5:]) {
		t.Error("FixOrder touched the partial block")
	}
	for i := 0; i+8 <= len(data); i += 8 {
		if !bytes.Equal(data[i:i+4], orig[i:i+4]) {
			t.Fatalf("block %d: endpoints changed", i/8)
		}
	}
	UnfixOrder(data)
	if !bytes.Equal(data, orig) {
		t.Error("UnfixOrder(FixOrder(x)) != x")
	}
	UnfixOrder(data)
	FixOrder(data)
	if !bytes.Equal(data, orig) {
		t.Error("FixOrder(UnfixOrder(x)) != x")
	}
}
