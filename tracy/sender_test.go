//go:build !notracy

package tracy

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/gotracy/gotracy/protocol"
)

// TestZoneRunMatchesTimeRefs: the sender's inline zone encoding produces
// exactly the items protocol.TimeRefs produces, including where it falls
// back to the general path (32- and 64-bit deltas, a time going backwards,
// an end without an open zone, other records between zones, records of
// an earlier session) and across batch boundaries.
func TestZoneRunMatchesTimeRefs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	le := binary.LittleEndian
	var recs []byte
	put := func(kind byte, fields ...uint64) {
		recs = append(recs, kind)
		for _, f := range fields {
			recs = le.AppendUint64(recs, f)
		}
	}
	// The expected stream, built with TimeRefs record by record.
	var refs protocol.TimeRefs
	want := refs.AppendThreadContext(nil, 7)
	depth := 0
	tm := int64(1000)
	recs = append(recs, rEpoch)
	recs = le.AppendUint32(recs, 5)
	put(rZoneEnd, uint64(tm)) // an end from before the session: dropped
	for i := 0; i < 200000; i++ {
		switch r := rng.IntN(100); {
		case r < 2:
			tm += 70000 + rng.Int64N(1<<20) // 32-bit delta
		case r < 3:
			tm += 1 << 33 // 64-bit delta
		case r < 4:
			tm -= rng.Int64N(100) // backwards: 64-bit
		default:
			tm += rng.Int64N(300)
		}
		switch r := rng.IntN(10); {
		case r < 5 || depth == 0 && r < 8:
			loc := rng.Uint64()
			put(rZoneBegin, uint64(tm), loc)
			want = refs.AppendZoneBegin(want, tm, loc)
			depth++
		case r < 8:
			put(rZoneEnd, uint64(tm))
			want = refs.AppendZoneEnd(want, tm)
			depth--
		default:
			put(rZoneValue, uint64(i))
			if depth > 0 {
				want = protocol.AppendZoneValue(want, uint64(i))
			}
		}
	}
	p := &profiler{cfg: defaultConfig()}
	s := &session{p: p, ep: 5, buf: make([]byte, 0, 16)}
	var sink bytes.Buffer
	s.sw.w = &sink
	s.fw = protocol.NewFrameWriter(&s.sw)
	g := &gstate{tid: 7}
	// Feed in uneven slices, as the sender sees a queue's published prefix.
	for b := recs; len(b) > 0; {
		n := 0
		for n < 1+rng.IntN(4000) && n < len(b) {
			n += recSize(b[n:])
		}
		s.records(g, b[:n])
		b = b[n:]
	}
	s.flush()
	if s.err != nil {
		t.Fatal(s.err)
	}
	var got []byte
	fr := protocol.NewFrameReader(&sink, 0)
	var d protocol.ItemDecoder
	for {
		f, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		d.Reset(f, 0)
		for _, ok := d.Next(); ok; _, ok = d.Next() {
		}
		if d.Err() != nil {
			t.Fatalf("frame does not hold whole items: %v", d.Err())
		}
		got = append(got, f...)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("stream differs at byte %d of %d (want %d bytes)", i, len(got), len(want))
	}
	if g.depth != depth {
		t.Errorf("depth %d, want %d", g.depth, depth)
	}
}
