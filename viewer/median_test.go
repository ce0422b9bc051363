package viewer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// nthElement agrees with sorting, on random data and on the shapes that
// break naive quickselects (sorted, reversed, all equal, few values).
func TestNthElement(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for trial := range 300 {
		n := 1 + r.IntN(2000)
		d := make([]int64, n)
		for i := range d {
			switch trial % 5 {
			case 0:
				d[i] = r.Int64N(1 << 40)
			case 1:
				d[i] = int64(i)
			case 2:
				d[i] = int64(n - i)
			case 3:
				d[i] = 7
			case 4:
				d[i] = r.Int64N(3)
			}
		}
		want := slices.Clone(d)
		slices.Sort(want)
		i := r.IntN(n)
		if got := nthElement(d, i); got != want[i] {
			t.Fatalf("trial %d (n %d): element %d = %d, want %d", trial, n, i, got, want[i])
		}
	}
}
