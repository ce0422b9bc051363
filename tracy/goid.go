//go:build !notracy

package tracy

import (
	"runtime"
	"strconv"
	"sync"
)

// Goroutine identity. The runtime does not export goroutine ids, but the id is
// a field of the runtime's g structure, and the assembly helper can read a
// word of the running goroutine's g in about 1 ns. The field's offset differs
// between Go versions, so it is never hard-coded: at start-up we compare the
// words of g with the id printed by runtime.Stack in several goroutines and
// accept the offset only if exactly one candidate matches in all of them.
// Without assembly (purego, other architectures) or if discovery fails, the
// id is parsed from runtime.Stack, which is correct but costs about 1 us.

var goidOff = discoverGoidOffset()

const goidScan = 512 // bytes of g scanned; the id lives well inside this

func discoverGoidOffset() uintptr {
	if !hasAsm {
		return 0
	}
	// Collect, for several goroutines, the set of offsets whose word equals
	// the goroutine id; an offset must match in all of them.
	var cands map[uintptr]int
	const trials = 4
	for t := 0; t < trials; t++ {
		var wg sync.WaitGroup
		var found []uintptr
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := slowGoid()
			for off := uintptr(8); off < goidScan; off += 8 {
				if loadGoid(off) == id {
					found = append(found, off)
				}
			}
		}()
		wg.Wait()
		if cands == nil {
			cands = map[uintptr]int{}
		}
		for _, o := range found {
			cands[o]++
		}
	}
	var off uintptr
	n := 0
	for o, c := range cands {
		if c == trials {
			off = o
			n++
		}
	}
	if n != 1 {
		return 0
	}
	return off
}

// goid returns the running goroutine's id.
func goid() uint64 {
	if goidOff != 0 {
		return loadGoid(goidOff)
	}
	return slowGoid()
}

// slowGoid parses "goroutine N [" from runtime.Stack.
func slowGoid() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := buf[:n]
	const p = "goroutine "
	if len(b) < len(p) {
		return 0
	}
	b = b[len(p):]
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	id, _ := strconv.ParseUint(string(b[:i]), 10, 64)
	return id
}
