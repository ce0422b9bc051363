package analysis

import (
	"testing"

	"github.com/gotracy/gotracy/internal/synthtrace"
)

// PrepareOrders leaves nothing for a request to build: every pool has every
// sort order, each a permutation of its events.
func TestPrepareOrdersBuildsEveryOrder(t *testing.T) {
	tr := synthtrace.Make(synthtrace.Spec{Zones: 100, Threads: 1, MaxDepth: 2, Seed: 3})
	tr = synthtrace.AddDeep(tr, synthtrace.MemSpec{Allocs: 3000, Pools: 2, Stacks: 20, Seed: 3})
	mi := NewMemIndex(tr)
	mi.PrepareOrders()
	if len(mi.Pools) == 0 {
		t.Fatal("no pools indexed")
	}
	for p, x := range mi.Pools {
		for k := MemBySize; k < memSortKeys; k++ {
			got := x.sorted[k]
			if len(got) != x.n {
				t.Fatalf("pool %d order %s: %d entries, want %d", p, memSortNames[k], len(got), x.n)
			}
			seen := make([]bool, x.n)
			for _, i := range got {
				if seen[i] {
					t.Fatalf("pool %d order %s: event %d twice", p, memSortNames[k], i)
				}
				seen[i] = true
			}
		}
	}
}
