//go:build !purego && !notracy

package tracy

// invariantTSC: the arm64 generic timer's virtual counter runs at the fixed
// frequency CNTFRQ_EL0 by architecture definition.
func invariantTSC() bool { return true }

// hasPrefetchW: PRFM is a hint every arm64 core accepts.
func hasPrefetchW() bool { return true }

func cpuArchInfo() (arch uint8, vendor [12]byte, id uint32) { return 4, vendor, 0 }
func cpuBrand() string                                      { return "" }
