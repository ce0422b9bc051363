//go:build !notracy

package tracy

import (
	"encoding/binary"
	"syscall"
)

func osLine() string { return "Darwin (OSX)" }

func cpuModelFromOS() string {
	s, _ := syscall.Sysctl("machdep.cpu.brand_string")
	return s
}

func ramMB() uint64 {
	s, err := syscall.Sysctl("hw.memsize")
	if err != nil {
		return 0
	}
	// Sysctl returns the 8 bytes as a string, its trailing NUL cut off.
	b := append([]byte(s), make([]byte, 8)...)[:8]
	return binary.LittleEndian.Uint64(b) / (1 << 20)
}

func sysTimes() (used, idle uint64, ok bool) { return 0, 0, false }
