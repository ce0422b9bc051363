//go:build !purego && !notracy

package tracy

import "bytes"

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// invariantTSC reports CPUID leaf 0x80000007 EDX bit 8: the TSC runs at a
// constant rate in all power states, so ticks convert to time with one
// multiplier, as Tracy assumes.
func invariantTSC() bool {
	maxExt, _, _, _ := cpuid(0x80000000, 0)
	if maxExt < 0x80000007 {
		return false
	}
	_, _, _, d := cpuid(0x80000007, 0)
	return d&(1<<8) != 0
}

// hasPrefetchW reports CPUID leaf 0x80000001 ECX bit 8 (PRFCHW), which the
// zone-end assembly needs for its PREFETCHW.
func hasPrefetchW() bool {
	maxExt, _, _, _ := cpuid(0x80000000, 0)
	if maxExt < 0x80000001 {
		return false
	}
	_, _, c, _ := cpuid(0x80000001, 0)
	return c&(1<<8) != 0
}

func cpuArchInfo() (arch uint8, vendor [12]byte, id uint32) {
	_, b, c, d := cpuid(0, 0)
	put := func(o int, v uint32) {
		vendor[o], vendor[o+1], vendor[o+2], vendor[o+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	put(0, b)
	put(4, d)
	put(8, c)
	a, _, _, _ := cpuid(1, 0)
	id = (a & 0xFFF) | ((a & 0x0FFF0000) >> 4)
	return 2, vendor, id
}

// cpuBrand is the processor brand string of CPUID leaves 0x80000002-4,
// the "CPU:" line of Tracy's host information.
func cpuBrand() string {
	maxExt, _, _, _ := cpuid(0x80000000, 0)
	if maxExt < 0x80000004 {
		return ""
	}
	var b []byte
	for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
		a, bb, c, d := cpuid(leaf, 0)
		for _, v := range [4]uint32{a, bb, c, d} {
			b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
