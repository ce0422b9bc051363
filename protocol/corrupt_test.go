package protocol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
)

// decodeStream decodes a whole client-to-server recording (handshake,
// frames, items) and returns a hash of every item it yielded, or the first
// error. A hang fails the test.
func decodeStream(t *testing.T, data []byte, what string) (uint64, error) {
	t.Helper()
	type res struct {
		h   uint64
		err error
	}
	done := make(chan res, 1)
	go func() {
		h := fnv.New64a()
		r := bytes.NewReader(data)
		s, err := ReadSession(r)
		if err != nil {
			done <- res{0, err}
			return
		}
		fr := NewFrameReader(r, s.Size)
		var d ItemDecoder
		for {
			frame, err := fr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				done <- res{0, err}
				return
			}
			d.Reset(frame, fr.DecodedOffset())
			for it, ok := d.Next(); ok; it, ok = d.Next() {
				h.Write(it.Raw)
			}
			if err := d.Err(); err != nil {
				done <- res{0, err}
				return
			}
		}
		done <- res{h.Sum64(), nil}
	}()
	select {
	case r := <-done:
		if r.err != nil && !typedErr(r.err) {
			t.Fatalf("%s: untyped error %v", what, r.err)
		}
		return r.h, r.err
	case <-time.After(time.Minute):
		t.Fatalf("%s: decoding still running after a minute", what)
		return 0, nil
	}
}

// TestCorruptStreams is the stream half of the fault-injection suite:
// seeded single-byte changes and cuts of a real recording (its frames up
// to 256 KiB, which hold the handshake, the string and source-location
// setup and thousands of zones). Every outcome must be a typed
// *StreamError or a decode; the counts are logged. The wire protocol has
// no checksum (LZ4 blocks only), so a change inside a block's literals
// decodes to different items; what this suite proves is the absence of
// panics, hangs and untyped errors.
func TestCorruptStreams(t *testing.T) {
	var base []byte
	if fixtures.Dir() != "" {
		b, err := os.ReadFile(fixtures.Path(t, "demo.c2s.bin"))
		if err != nil {
			t.Fatal(err)
		}
		// Cut at the last frame boundary before 256 KiB.
		r := bytes.NewReader(b)
		if _, err := ReadSession(r); err != nil {
			t.Fatal(err)
		}
		end := len(b) - r.Len()
		for off := end; off+4 <= len(b) && off < 256<<10; {
			off += 4 + int(binary.LittleEndian.Uint32(b[off:]))
			if off <= 256<<10 {
				end = off
			}
		}
		base = b[:end]
	} else {
		t.Skip("shared fixtures absent: no recording to corrupt")
	}
	want, err := decodeStream(t, base, "original")
	if err != nil {
		t.Fatalf("original prefix: %v", err)
	}
	n := 400
	if race.Enabled || testing.Short() {
		n = 40
	}
	rng := rand.New(rand.NewPCG(12, 34))
	var rejected, same, altered int
	for range n {
		b := bytes.Clone(base)
		at := rng.IntN(len(b))
		b[at] ^= byte(1 + rng.IntN(255))
		h, err := decodeStream(t, b, fmt.Sprintf("byte %d changed", at))
		switch {
		case err != nil:
			rejected++
		case h == want:
			same++
		default:
			altered++
		}
	}
	cuts, cutErr := 0, 0
	for range n / 4 {
		at := rng.IntN(len(base))
		if _, err := decodeStream(t, base[:at], fmt.Sprintf("cut at %d", at)); err != nil {
			cutErr++
		}
		cuts++
	}
	t.Logf("demo.c2s.bin first %d bytes: %d single-byte changes: %d rejected, %d decoded unchanged, %d decoded altered; %d cuts: %d rejected, %d ended on a frame boundary",
		len(base), n, rejected, same, altered, cuts, cutErr, cuts-cutErr)
	if rejected == 0 || cutErr == 0 {
		t.Errorf("no change was detected at all: the suite is not reaching the decoder")
	}
}
