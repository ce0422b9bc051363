//go:build !notracy

package tracy

import (
	"os"
	"strconv"
	"strings"
)

func osLine() string {
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "Linux"
	}
	return "Linux " + strings.TrimSpace(string(rel))
}

func cpuModelFromOS() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	return cpuModelFromProc(string(b))
}

// ramMB is MemTotal, the total RAM sysinfo(2) reports, in MiB.
func ramMB() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseUint(f[0], 10, 64)
				if err == nil {
					return kb / 1024
				}
			}
		}
	}
	return 0
}

// sysTimes reads the system-wide CPU times of /proc/stat's "cpu" line, as
// Tracy's client does for its "CPU usage" plot: used = user + nice +
// system, and idle.
func sysTimes() (used, idle uint64, ok bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	var buf [256]byte
	n, _ := f.Read(buf[:])
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return parseProcStatCPU(line)
}
