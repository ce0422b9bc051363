package tracefile

import (
	"bytes"
	"testing"

	"github.com/gotracy/gotracy/model"
)

// footprintWriter records, at every write, the bytes written so far and
// the zone chunks the trace still holds.
type footprintWriter struct {
	buf   bytes.Buffer
	t     *model.Trace
	marks [][2]int64
}

func (w *footprintWriter) Write(b []byte) (int, error) {
	var fp int64
	for i := range w.t.Threads {
		fp += w.t.Threads[i].Zones.Footprint()
	}
	w.marks = append(w.marks, [2]int64{int64(w.buf.Len()), fp})
	return w.buf.Write(b)
}

// TestWriteReleasesZones: with WithReleaseZones the writer lets go of each
// zone chunk once it has written it, so what the trace holds while it is
// saved shrinks with what is written (at every write: the zones not yet
// written plus one chunk, the room of the last chunks and a flush), and the bytes are those
// of a write that releases nothing.
func TestWriteReleasesZones(t *testing.T) {
	n := 3_000_000 // 1M zones a thread: four chunks each
	if testing.Short() {
		n = 1_200_000
	}
	tr := genTrace(11, n)
	n = tr.ZoneCount()
	var want bytes.Buffer
	if err := WritePayload(&want, tr); err != nil {
		t.Fatal(err)
	}
	const zb, wire = 22, 26 // bytes of a zone in memory and in the payload
	// The written part of the chunk being written, the unused room of
	// every thread's last chunk, and a flush's worth of zones.
	var room int64
	for i := range tr.Threads {
		room += tr.Threads[i].Zones.Footprint() - int64(tr.Threads[i].Zones.Len())*zb
	}
	slack := model.ZoneChunkLen*zb + room + encFlushAt
	w := &footprintWriter{t: tr}
	if err := WritePayload(w, tr, WithReleaseZones()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.buf.Bytes(), want.Bytes()) {
		t.Fatal("the payload written releasing zones differs from the one written without")
	}
	if tr.ZoneCount() != n {
		t.Fatalf("zone count %d after the write, want %d", tr.ZoneCount(), n)
	}
	total := int64(w.buf.Len())
	other := total - int64(n)*wire // everything but the zones
	for _, m := range w.marks {
		written := max(0, m[0]-other) / wire // zones written at least
		if bound := (int64(n)-written)*zb + slack; m[1] > bound {
			t.Fatalf("at byte %d of %d the trace still held %d MB of zone chunks, want at most %d MB (zones not yet written + a chunk + room)",
				m[0], total, m[1]>>20, bound>>20)
		}
	}
	for i := range tr.Threads {
		if fp := tr.Threads[i].Zones.Footprint(); fp != 0 {
			t.Fatalf("thread %d holds %d bytes of zone chunks after the write", i, fp)
		}
	}
}
