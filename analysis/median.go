package analysis

import "github.com/gotracy/gotracy/model"

// NthElement returns the element that would stand at position i if d were
// sorted (d is reordered): quickselect with a median-of-three pivot, so a
// median costs one linear pass on average instead of a sort.
func NthElement(d []int64, i int) int64 {
	lo, hi := 0, len(d)-1
	for lo < hi {
		m := lo + (hi-lo)/2
		// median of three to d[m]
		if d[m] < d[lo] {
			d[m], d[lo] = d[lo], d[m]
		}
		if d[hi] < d[lo] {
			d[hi], d[lo] = d[lo], d[hi]
		}
		if d[hi] < d[m] {
			d[hi], d[m] = d[m], d[hi]
		}
		p := d[m]
		a, b := lo, hi
		for a <= b {
			for d[a] < p {
				a++
			}
			for d[b] > p {
				b--
			}
			if a <= b {
				d[a], d[b] = d[b], d[a]
				a++
				b--
			}
		}
		switch {
		case i <= b:
			hi = b
		case i >= a:
			lo = a
		default:
			return d[i]
		}
	}
	return d[i]
}

// Medians returns, by position in st.Locations, the median duration of
// each location's counted zones: the element at n/2 of the sorted
// durations, as Tracy's statistics and compare windows show it (0 for a
// location without zones). One scan of t gathers every location's
// durations at once (8 bytes a counted zone, dropped on return).
func Medians(t *model.Trace, st *ZoneStats) []int64 {
	n := len(st.Locations)
	out := make([]int64, n)
	var slot [65536]int32
	for i := range slot {
		slot[i] = -1
	}
	d := make([][]int64, n)
	for k := range st.Locations {
		slot[srclocSlot(st.Locations[k].SrcLoc)] = int32(k)
		d[k] = make([]int64, 0, st.Locations[k].Count)
	}
	for ti := range t.Threads {
		for _, z := range t.Threads[ti].Zones.All() {
			e := z.End()
			span := e - z.Start()
			if e < 0 || span <= 0 {
				continue
			}
			if k := slot[srclocSlot(z.SrcLoc)]; k >= 0 {
				d[k] = append(d[k], span)
			}
		}
	}
	for k := range d {
		if len(d[k]) > 0 {
			out[k] = NthElement(d[k], len(d[k])/2)
		}
	}
	return out
}
