//go:build (purego || !(amd64 || arm64)) && !notracy

package tracy

import "runtime"

func invariantTSC() bool { return false }

func hasPrefetchW() bool { return false }

func cpuArchInfo() (arch uint8, vendor [12]byte, id uint32) {
	switch runtime.GOARCH {
	case "amd64":
		arch = 2
	case "386":
		arch = 1
	case "arm":
		arch = 3
	case "arm64":
		arch = 4
	}
	return arch, vendor, 0
}

func cpuBrand() string { return "" }
