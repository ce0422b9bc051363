package tracefile

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/tracefile/container"
)

// fixturePayload returns the decompressed payload of a real capture.
func fixturePayload(t testing.TB, name string) []byte {
	t.Helper()
	cr, err := container.Open(fixtures.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Close()
	p, err := io.ReadAll(cr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMutatedPayloads is a deterministic slice of the fuzz property over
// the real demo capture and a generated trace: random byte changes, cuts
// and deletions load or fail with a typed error, within the allocation
// bound.
func TestMutatedPayloads(t *testing.T) {
	n := 150
	if race.Enabled || testing.Short() {
		n = 15
	}
	bases := [][]byte{payloadOf(t, genTrace(5, 50))}
	if fixtures.Dir() != "" {
		bases = append(bases, fixturePayload(t, "demo.tracy"))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for bi, base := range bases {
		for i := 0; i < n; i++ {
			d := bytes.Clone(base)
			switch r.IntN(3) {
			case 0:
				for k := 0; k < 1+r.IntN(4); k++ {
					d[r.IntN(len(d))] = byte(r.Uint32())
				}
			case 1:
				d = d[:r.IntN(len(d))]
			case 2:
				a := r.IntN(len(d))
				d = append(d[:a:a], d[a+r.IntN(min(100, len(d)-a)):]...)
			}
			checkLoad(t, d)
			if t.Failed() {
				t.Fatalf("base %d mutation %d", bi, i)
			}
		}
	}
}
