package texture_test

import (
	"fmt"

	"github.com/gotracy/gotracy/texture"
)

// A client encodes a screenshot for the wire; the server packs it as Tracy
// does; a viewer unpacks and decodes it.
func Example() {
	const w, h = 64, 32
	rgba := make([]byte, w*h*4)
	for i := 0; i < len(rgba); i += 4 {
		rgba[i], rgba[i+1], rgba[i+2], rgba[i+3] = byte(i/4%w*4), 128, 200, 255
	}

	wire, err := texture.AppendDXT1(nil, rgba, w, h, false) // what a Tracy client sends
	if err != nil {
		panic(err)
	}
	packed, err := texture.Pack(nil, wire, w, h) // FixOrder + RDO + Zstd 3, as Tracy's server keeps it
	if err != nil {
		panic(err)
	}
	bc1, err := texture.Unpack(nil, packed, w, h) // standard BC1, as a .tracy file stores it
	if err != nil {
		panic(err)
	}
	img, err := texture.Image(bc1, w, h, false)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(wire), len(bc1), img.Bounds().Size())
	// Output: 1024 1024 (64,32)
}
