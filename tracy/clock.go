//go:build !notracy

package tracy

import (
	_ "unsafe" // for go:linkname
)

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// useTSC selects the hardware counter. It is decided once at package
// initialisation and never changes, so the branch in now() is perfectly
// predicted.
var useTSC = hasAsm && invariantTSC()

// fastStamp: zone records are written, timed and published by one
// assembly call (stampBegin, stampEnd).
var fastStamp = useTSC && !raceEnabled

// prefetchW selects stampEndPF. In a connected capture the sender's core has
// read every queue line the producer writes next (chunks are recycled), and
// fetching such a line for writing stalls the producer; requesting it a few
// zones early measured 37-46 ns against 41-61 ns per connected zone here
// (eight interleaved pairs).
var prefetchW = fastStamp && hasPrefetchW()

// now returns the current time in client ticks: TSC (or CNTVCT) ticks when
// useTSC, otherwise runtime nanoseconds. Ticks only ever go to the server,
// which scales them by Welcome.timerMul.
func now() int64 {
	if useTSC {
		return int64(rdtsc())
	}
	return slowNow()
}

// slowNow keeps now small enough to inline.
//
//go:noinline
func slowNow() int64 { return nanotime() }

// calibration holds the start-time pair of readings; the multiplier is
// computed when a server connects, so the baseline is as long as possible.
type calibration struct {
	tick0 int64
	ns0   int64
}

func newCalibration() calibration {
	return calibration{tick0: now(), ns0: nanotime()}
}

// timerMul returns nanoseconds per tick. It waits until at least minSpan of
// wall time separates the two readings, so the error of the two clock reads
// (tens of ns) stays below 1e-6 of the span.
func (c calibration) timerMul() float64 {
	if !useTSC {
		return 1.0
	}
	const minSpan = 50e6 // 50 ms
	for {
		t1, n1 := now(), nanotime()
		if dn := n1 - c.ns0; dn >= minSpan && t1 > c.tick0 {
			return float64(dn) / float64(t1-c.tick0)
		}
		sleepNs(minSpan / 10)
	}
}

// resolutionPairs is how many back-to-back pairs of clock reads resolution
// takes, as many as Tracy's client (a variable for tests).
var resolutionPairs = 500_000

// resolution measures the timer resolution as Tracy's client does: the
// smallest positive difference between two consecutive clock reads over
// 500,000 pairs, in ticks. It is what the viewer shows as "Timer
// resolution" (scaled by the multiplier): the cost of reading the clock,
// not its tick.
func resolution() uint64 {
	best := int64(1 << 62)
	for i := 0; i < resolutionPairs; i++ {
		a := now()
		b := now()
		if d := b - a; d > 0 && d < best {
			best = d
		}
	}
	if best == 1<<62 {
		return 0
	}
	return uint64(best)
}
