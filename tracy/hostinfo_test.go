//go:build !notracy

package tracy

import (
	"runtime"
	"strings"
	"testing"
)

// TestHostInfoLines: the host description has Tracy's lines, in Tracy's
// order and words, and fits the welcome's 1024 bytes.
func TestHostInfoLines(t *testing.T) {
	hi := hostInfo()
	lines := strings.Split(strings.TrimSuffix(hi, "\n"), "\n")
	want := []string{"OS: ", "Compiler: Go ", "User: ", "Arch: ", "CPU: ", "CPU cores: ", "RAM: "}
	if len(lines) != len(want) {
		t.Fatalf("host info has %d lines, want %d:\n%s", len(lines), len(want), hi)
	}
	for i, p := range want {
		if !strings.HasPrefix(lines[i], p) {
			t.Errorf("line %d %q, want prefix %q", i, lines[i], p)
		}
	}
	if runtime.GOOS == "linux" && !strings.HasPrefix(lines[0], "OS: Linux ") {
		t.Errorf("OS line %q lacks the kernel release", lines[0])
	}
	if !strings.Contains(lines[2], "@") {
		t.Errorf("user line %q is not user@host", lines[2])
	}
	if len(hi) > 1023 {
		t.Errorf("host info %d bytes, more than the welcome holds", len(hi))
	}
	t.Logf("\n%s", hi)
}

func TestArchNames(t *testing.T) {
	for goarch, want := range map[string]string{"amd64": "x64", "arm64": "ARM64", "386": "x86", "arm": "ARM", "riscv64": "unknown"} {
		if got := archName(goarch); got != want {
			t.Errorf("archName(%s) = %s, want %s", goarch, got, want)
		}
	}
}

func TestProcParsers(t *testing.T) {
	used, idle, ok := parseProcStatCPU("cpu  4705 356 584 3699176 23060 0 277 0 0 0")
	if !ok || used != 4705+356+584 || idle != 3699176 {
		t.Errorf("parseProcStatCPU: %d %d %v", used, idle, ok)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4", "cpu 1 2 x 4", "cpu 1 2"} {
		if _, _, ok := parseProcStatCPU(bad); ok {
			t.Errorf("parseProcStatCPU(%q) accepted", bad)
		}
	}
	st := sysTimeState{used: 100, idle: 300}
	if pct, ok := st.usage(150, 450); !ok || pct != 25 {
		t.Errorf("usage = %v %v, want 25%%", pct, ok)
	}
	if _, ok := st.usage(150, 450); ok {
		t.Errorf("usage with no time passed reported a value")
	}
	model := cpuModelFromProc("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13 64-Core Processor\n")
	if model != "AMD EPYC 7B13 64-Core Processor" {
		t.Errorf("cpuModelFromProc = %q", model)
	}
}

// TestResolutionMeasured: Tracy's measure gives a positive number of ticks.
func TestResolutionMeasured(t *testing.T) {
	old := resolutionPairs
	resolutionPairs = 10_000
	defer func() { resolutionPairs = old }()
	if r := resolution(); r == 0 || r > 1<<20 {
		t.Errorf("resolution %d ticks", r)
	}
}
