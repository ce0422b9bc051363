package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTracyMapOrderOfRealTool pins the emulation to an order the real
// tracy-csvexport printed: demo.tracy has 10 source-location index entries
// and 10 dynamic locations, and Tracy 0.14.0 iterated their ids in this
// order (demo.csv rows, plus id 1, the lock's location, which has no zones).
func TestTracyMapOrderOfRealTool(t *testing.T) {
	m := newTracyMap()
	m.reserve(20)
	for i := int64(1); i < 10; i++ {
		m.emplace(uint64(i))
	}
	for i := int64(1); i <= 10; i++ {
		m.emplace(uint64(-i))
	}
	var got []int16
	for _, k := range m.order() {
		got = append(got, int16(k))
	}
	want := []int16{-2, -9, 4, 3, 5, 6, -10, 7, 9, -8, 8, -3, -7, 1, -1, -5, -6, 2, -4}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v\nwant    %v", got, want)
	}
}

// TestTracyMapInvariants checks the robin-hood invariants the real table
// keeps, over growth, info-bit halving and rehashes: every key is present
// once; each occupied slot's info byte encodes its distance from its home
// bucket; and along the table, info never increases by more than one step
// (a key is never placed behind a poorer one).
func TestTracyMapInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		m := newTracyMap()
		if trial%2 == 0 {
			m.reserve(uint64(r.IntN(100)))
		}
		n := 1 + r.IntN(3000)
		keys := map[uint64]bool{}
		for range n {
			k := uint64(int64(int16(r.Uint32())))
			if trial%3 == 0 {
				k = r.Uint64()
			}
			if fresh := m.emplace(k); fresh == keys[k] {
				t.Fatalf("trial %d: emplace(%d) fresh=%v, already present=%v", trial, k, fresh, keys[k])
			}
			keys[k] = true
		}
		if m.overflow {
			t.Fatalf("trial %d: overflow with %d keys", trial, len(keys))
		}
		order := m.order()
		if len(order) != len(keys) {
			t.Fatalf("trial %d: %d keys iterated, %d inserted", trial, len(order), len(keys))
		}
		for _, k := range order {
			if !keys[k] {
				t.Fatalf("trial %d: unknown key %d", trial, k)
			}
			delete(keys, k)
		}
		nb := rhElementsWithBuffer(m.mask + 1)
		for i := uint64(0); i < nb; i++ {
			if m.info[i] == 0 {
				continue
			}
			home, info := m.keyToIdx(m.keys[i])
			dist := uint32(m.info[i])/m.infoInc - 1
			if home+uint64(dist) != i || uint32(m.info[i])%m.infoInc != info%m.infoInc {
				t.Fatalf("trial %d: slot %d info %d (inc %d) but home %d", trial, i, m.info[i], m.infoInc, home)
			}
			if i+1 < nb && m.info[i+1] != 0 && uint32(m.info[i+1]) > uint32(m.info[i])+m.infoInc {
				t.Fatalf("trial %d: slot %d info jumps %d -> %d", trial, i, m.info[i], m.info[i+1])
			}
		}
	}
}
