package hugepage

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestMakeIsMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, Min/4 + 3} {
		s := Make[uint32](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Make(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i, v := range s {
			if v != 0 {
				t.Fatalf("Make(%d)[%d] = %d, want 0", n, i, v)
			}
		}
		for i := range s {
			s[i] = uint32(i)
		}
		for i, v := range s {
			if v != uint32(i) {
				t.Fatalf("Make(%d)[%d] = %d after write", n, i, v)
			}
		}
	}
}

// TestAdvised checks, on Linux with THP in madvise mode, that the mapping
// holding a large slice is marked for huge pages (smaps' VmFlags "hg").
func TestAdvised(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge-page advice is Linux only")
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") {
		t.Skipf("transparent huge pages not in madvise mode here (%q)", strings.TrimSpace(string(mode)))
	}
	defer func(was bool) { enabled = was }(enabled)
	enabled = true
	s := Make[uint64](Min) // 16 MiB
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	if !vmFlagsHave(t, string(smaps), p, "hg") {
		t.Fatalf("mapping of a %d MiB slice at %#x is not advised for huge pages", Min*8>>20, p)
	}
	runtime.KeepAlive(s)
}

// vmFlagsHave reports whether the smaps entry covering address p lists flag.
func vmFlagsHave(t *testing.T, smaps string, p uintptr, flag string) bool {
	t.Helper()
	var inside bool
	for _, line := range strings.Split(smaps, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			if lo, hi, err := parseRange(f[0]); err == nil {
				inside = lo <= p && p < hi
			}
			continue
		}
		if inside && strings.HasPrefix(line, "VmFlags:") {
			for _, fl := range strings.Fields(line)[1:] {
				if fl == flag {
					return true
				}
			}
			return false
		}
	}
	t.Fatalf("no mapping covers %#x", p)
	return false
}

// parseRange reads smaps' "lo-hi" address range.
func parseRange(s string) (lo, hi uintptr, err error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, fmt.Errorf("no range in %q", s)
	}
	x, err := strconv.ParseUint(a, 16, 64)
	if err != nil {
		return 0, 0, err
	}
	y, err := strconv.ParseUint(b, 16, 64)
	if err != nil {
		return 0, 0, err
	}
	return uintptr(x), uintptr(y), nil
}
