package tracyimport

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// The radix sort must give exactly the stable (time, input order) order.
func TestRadixSortByTime(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 100, 5000} {
		for _, span := range []uint64{3, 1 << 20, 1 << 50, 1<<64 - 1} {
			z := make([]Zone, n)
			for i := range z {
				z[i] = Zone{Ts: r.Uint64N(span), Loc: uint32(i)} // Loc marks input order
			}
			want := slices.Clone(z)
			slices.SortStableFunc(want, func(a, b Zone) int { return cmp.Compare(a.Ts, b.Ts) })
			if got := radixSortByTime(z); !slices.Equal(got, want) {
				t.Fatalf("n=%d span=%d: radix order differs from the stable sort", n, span)
			}
		}
	}
}
