package tracefile

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// reusingBlocks is a block source that hands out the payload in blocks of
// the given sizes (cycling) from one buffer it overwrites on every call, as
// the container's decoders reuse a block's memory once the next is asked
// for: a decoder that kept reading a block it had let go reads garbage.
type reusingBlocks struct {
	data  []byte
	sizes []int
	i     int
	buf   []byte
}

func (r *reusingBlocks) NextBlock() ([]byte, error) {
	for j := range r.buf {
		r.buf[j] = 0xA5
	}
	if len(r.data) == 0 {
		return nil, io.EOF
	}
	n := min(r.sizes[r.i%len(r.sizes)], len(r.data))
	r.i++
	r.buf = append(r.buf[:0], r.data[:n]...)
	r.data = r.data[n:]
	return r.buf, nil
}

func (r *reusingBlocks) Read(p []byte) (int, error) {
	b, err := r.NextBlock()
	if err != nil {
		return 0, err
	}
	if len(b) > len(p) {
		return 0, errors.New("test source: Read buffer too small")
	}
	return copy(p, b), nil
}

// TestDecoderBlocks: the payload decoder reading a block source in place
// (records split across blocks of every size, down to one byte, the
// source reusing its memory) loads the same trace as from a plain reader,
// and reports damage at the same offsets.
func TestDecoderBlocks(t *testing.T) {
	tr := genTrace(11, 30000)
	var buf bytes.Buffer
	if err := WritePayload(&buf, tr); err != nil {
		t.Fatal(err)
	}
	payload := buf.Bytes()
	for _, sizes := range [][]int{{65536}, {1}, {7, 1, 26, 3}, {25, 27}, {1 << 20}, {100, 65536, 5, 300000}} {
		got, err := ReadPayload(&reusingBlocks{data: payload, sizes: sizes}, int64(len(payload)))
		if err != nil {
			t.Fatalf("blocks %v: %v", sizes, err)
		}
		if d := diffTraces(tr, got); d != "" {
			t.Fatalf("blocks %v: %s", sizes, d)
		}
		if _, err := ReadPayload(&reusingBlocks{data: payload, sizes: sizes}, -1); err != nil {
			t.Fatalf("blocks %v, no bound: %v", sizes, err)
		}
	}
	// Damage: the same error as from a plain reader, for cuts and for a
	// trailing byte.
	for _, bad := range [][]byte{payload[:len(payload)/2], payload[:len(payload)-3], append(append([]byte(nil), payload...), 0)} {
		_, want := ReadPayload(bytes.NewReader(bad), int64(len(bad)))
		_, got := ReadPayload(&reusingBlocks{data: bad, sizes: []int{13, 4096}}, int64(len(bad)))
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%d bytes: error %v, want %v", len(bad), got, want)
		}
	}
}
