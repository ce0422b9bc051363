package tracefile

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
)

// flipOutcome counts what single-byte changes of a file do to a load.
type flipOutcome struct {
	tried, rejected, same, altered int
}

func (o flipOutcome) String() string {
	return fmt.Sprintf("%d tried: %d rejected, %d loaded unchanged, %d loaded altered data (%.1f%% silent corruption)",
		o.tried, o.rejected, o.same, o.altered, 100*float64(o.altered)/float64(max(o.tried, 1)))
}

// loadBounded loads file and fails the test if the load takes longer
// than a minute (a hang) or returns an error outside the sentinels.
func loadBounded(t *testing.T, file []byte, what string) (*model.Trace, error) {
	t.Helper()
	type res struct {
		tr  *model.Trace
		err error
	}
	done := make(chan res, 1)
	go func() {
		tr, err := Read(bytes.NewReader(file), int64(len(file)))
		done <- res{tr, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && !errors.Is(r.err, ErrCorrupt) && !errors.Is(r.err, ErrNotTrace) &&
			!errors.Is(r.err, ErrUnsupportedVersion) && !errors.Is(r.err, ErrLegacyVersion) {
			t.Fatalf("%s: untyped error: %v", what, r.err)
		}
		return r.tr, r.err
	case <-time.After(time.Minute):
		t.Fatalf("%s: load still running after a minute", what)
		return nil, nil
	}
}

// flipBytes changes n seeded random bytes of file, one at a time, and
// loads each variant.
func flipBytes(t *testing.T, file []byte, want *model.Trace, n int, seed uint64) flipOutcome {
	rng := rand.New(rand.NewPCG(seed, 99))
	var o flipOutcome
	for range n {
		at := rng.IntN(len(file))
		b := bytes.Clone(file)
		b[at] ^= byte(1 + rng.IntN(255))
		tr, err := loadBounded(t, b, fmt.Sprintf("byte %d changed", at))
		o.tried++
		switch {
		case err != nil:
			o.rejected++
		case diffTraces(want, tr) == "":
			o.same++
		default:
			o.altered++
		}
	}
	return o
}

// cutFile truncates file at n seeded random lengths.
func cutFile(t *testing.T, file []byte, n int, seed uint64) flipOutcome {
	rng := rand.New(rand.NewPCG(seed, 98))
	var o flipOutcome
	for range n {
		at := rng.IntN(len(file))
		_, err := loadBounded(t, file[:at], fmt.Sprintf("cut at %d", at))
		o.tried++
		if err != nil {
			o.rejected++
		} else {
			o.altered++ // a prefix that loads has lost data
		}
	}
	return o
}

// TestCorruptFiles is the file half of the fault-injection suite: seeded
// single-byte changes and truncations of real and written files. Every
// outcome must be a typed error or a load; a file we wrote (Zstd with one
// checksummed frame per chunk) must never load altered data, which Tracy's
// own unchecksummed files do for about a third of the changes.
func TestCorruptFiles(t *testing.T) {
	flips, cuts := 120, 40
	if race.Enabled || testing.Short() {
		flips, cuts = 15, 5
	}
	// GOTRACY_FLIPS=N runs a deeper, still seeded, measurement.
	if n, err := strconv.Atoi(os.Getenv("GOTRACY_FLIPS")); err == nil && n > 0 {
		flips, cuts = n, n/3
	}
	type base struct {
		name  string
		file  []byte
		ours  bool
		trace *model.Trace
	}
	var bases []base
	gen := genTrace(11, 3000)
	for _, c := range []struct {
		name string
		opts []Option
	}{{"generated zstd3", nil}, {"generated lz4", []Option{WithLZ4()}}} {
		var buf bytes.Buffer
		if err := Write(&buf, gen, c.opts...); err != nil {
			t.Fatal(err)
		}
		bases = append(bases, base{c.name, buf.Bytes(), c.opts == nil, gen})
	}
	if fixtures.Dir() != "" {
		real, err := os.ReadFile(fixtures.Path(t, "demo.tracy"))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Read(bytes.NewReader(real), int64(len(real)))
		if err != nil {
			t.Fatal(err)
		}
		var ours bytes.Buffer
		if err := Write(&ours, tr); err != nil {
			t.Fatal(err)
		}
		bases = append(bases, base{"demo.tracy (Tracy's)", real, false, tr}, base{"demo.tracy rewritten", ours.Bytes(), true, tr})
	}
	for i, b := range bases {
		f := flipBytes(t, b.file, b.trace, flips, uint64(i))
		c := cutFile(t, b.file, cuts, uint64(i))
		t.Logf("%s, %d bytes: flips %v; cuts %v", b.name, len(b.file), f, c)
		if b.ours && b.name != "generated lz4" && f.altered != 0 {
			t.Errorf("%s: %d of %d single-byte changes loaded altered data despite the checksums", b.name, f.altered, f.tried)
		}
		if c.altered != 0 {
			t.Errorf("%s: %d of %d truncations loaded", b.name, c.altered, c.tried)
		}
	}
}
