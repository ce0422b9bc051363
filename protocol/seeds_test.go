package protocol

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
)

// TestWriteFuzzSeeds regenerates the checked-in seed corpus under
// testdata/fuzz from the worked example of Tracy's protocol, the real recordings and
// synthetic streams. It runs only with GOTRACY_WRITE_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("GOTRACY_WRITE_SEEDS") != "1" {
		t.Skip("set GOTRACY_WRITE_SEEDS=1 to regenerate testdata/fuzz")
	}
	write := func(target, name string, data []byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The worked example's frames, whole and decoded.
	example := unhex(t, `28000000 f017 4b34120000 14804eb83b 0010000055550000 1bf401 53c090c83b00000000 0000000000000000
		02000000 1049`)
	write("FuzzFrameReader", "worked-example", example)
	fr := NewFrameReader(bytes.NewReader(example), 0)
	f1, _ := fr.Next()
	write("FuzzItemDecoder", "worked-example", f1)

	// Synthetic streams from our writer, with and without dictionary.
	rng := rand.New(rand.NewPCG(11, 12))
	var refs TimeRefs
	now := int64(1e9)
	var items []byte
	for len(items) < 3000 {
		items = synthItems(rng, items, 100, &refs, &now)
	}
	items = items[:cutAtItem(items, 3000)]
	write("FuzzItemDecoder", "synthetic-mix", items)
	for _, indep := range []bool{false, true} {
		var wire bytes.Buffer
		var opts []FrameWriterOption
		if indep {
			opts = append(opts, WithIndependentFrames())
		}
		fw := NewFrameWriter(&wire, opts...)
		// A few frames of whole items (at least one item each).
		for i := 0; i < len(items); {
			n := cutAtItem(items[i:], 500)
			if n == 0 {
				n, _ = ItemSize(items[i:])
			}
			fw.WriteItems(items[i : i+n])
			fw.Flush()
			i += n
		}
		write("FuzzFrameReader", fmt.Sprintf("synthetic-indep-%v", indep), wire.Bytes())
	}
	// Every encodable type once, with short strings.
	var every []byte
	v := uint64(0)
	generatedEncodings(func() uint64 { v += 0x0123456789; return v }, func() string { return "s" },
		func(_ QueueType, b []byte, err error, _ []uint64, _ uint64, _ string) {
			if err == nil {
				every = append(every, b...)
			}
		})
	write("FuzzItemDecoder", "every-type", every)

	// Real recordings: the first frames, and the first decoded bytes.
	for _, name := range []string{"demo", "heavy1m"} {
		data, err := os.ReadFile(fixtures.Path(t, name+".c2s.bin"))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := ReadSession(bytes.NewReader(data))
		r := NewFrameReader(bytes.NewReader(data[s.Size:]), 0)
		f, _ := r.Next()
		end := r.Offset()
		if end > 8000 {
			end = 8000 // a truncated first frame
		}
		write("FuzzFrameReader", name+"-head", data[s.Size:s.Size+end])
		write("FuzzItemDecoder", name+"-head", f[:cutAtItem(f, 4000)])
	}
	// Corruptions of the example.
	bad := append([]byte{}, example...)
	bad[6] = 0xff
	write("FuzzFrameReader", "corrupt-token", bad)
	write("FuzzFrameReader", "truncated", example[:30])
	write("FuzzFrameReader", "zero-offset", frameBytes([]byte{0x14, 'a', 0, 0, 0x00}))
}

// cutAtItem returns the largest item boundary <= max.
func cutAtItem(b []byte, max int) int {
	off := 0
	for off < len(b) {
		n, err := ItemSize(b[off:])
		if err != nil || off+n > max {
			break
		}
		off += n
	}
	return off
}
