//go:build !notracy && !linux && !darwin && !windows

package tracy

import "runtime"

func osLine() string {
	switch runtime.GOOS {
	case "freebsd":
		return "BSD (FreeBSD)"
	case "netbsd":
		return "BSD (NetBSD)"
	case "openbsd":
		return "BSD (OpenBSD)"
	case "dragonfly":
		return "BSD (DragonFly)"
	}
	return "unknown"
}

func cpuModelFromOS() string { return "" }

func ramMB() uint64 { return 0 }

func sysTimes() (used, idle uint64, ok bool) { return 0, 0, false }
