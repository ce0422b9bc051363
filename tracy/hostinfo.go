//go:build !notracy

package tracy

import (
	"fmt"
	"os"
	"os/user"
	"runtime"
	"strings"
)

// hostInfo describes the machine in the lines and words of Tracy's client
// (GetHostInfo), which the viewer shows in the trace information window:
//
//	OS: Linux 6.1.0-18-amd64
//	Compiler: Go 1.26.0 (gc)
//	User: ann@build1 (Ann Example)
//	Arch: x64
//	CPU: AMD EPYC 7B13 64-Core Processor
//	CPU cores: 2
//	RAM: 7941 MB
//
// Values the platform does not give are "unknown", as in Tracy.
func hostInfo() string {
	var b strings.Builder
	fmt.Fprintf(&b, "OS: %s\n", osLine())
	v := strings.TrimPrefix(runtime.Version(), "go")
	fmt.Fprintf(&b, "Compiler: Go %s (%s)\n", v, runtime.Compiler)
	login, full := "(?)", ""
	if u, err := user.Current(); err == nil {
		login = u.Username
		if i := strings.LastIndexByte(login, '\\'); i >= 0 { // DOMAIN\user on Windows
			login = login[i+1:]
		}
		full = u.Name
	}
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "User: %s@%s", login, host)
	if full != "" && full != login {
		fmt.Fprintf(&b, " (%s)", full)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Arch: %s\n", archName(runtime.GOARCH))
	cpu := strings.TrimSpace(cpuBrand())
	if cpu == "" {
		cpu = cpuModelFromOS()
	}
	if cpu == "" {
		cpu = "unknown"
	}
	fmt.Fprintf(&b, "CPU: %s\n", cpu)
	fmt.Fprintf(&b, "CPU cores: %d\n", runtime.NumCPU())
	if mb := ramMB(); mb > 0 {
		fmt.Fprintf(&b, "RAM: %d MB\n", mb)
	} else {
		b.WriteString("RAM: unknown\n")
	}
	return b.String()
}

// archName is Tracy's name for the architecture.
func archName(goarch string) string {
	switch goarch {
	case "amd64":
		return "x64"
	case "386":
		return "x86"
	case "arm64":
		return "ARM64"
	case "arm":
		return "ARM"
	}
	return "unknown"
}

// cpuModelFromProc reads the first "model name" of a /proc/cpuinfo text.
func cpuModelFromProc(text string) string {
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
