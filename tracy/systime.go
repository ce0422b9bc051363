//go:build !notracy

package tracy

import (
	"strconv"
	"strings"

	"github.com/gotracy/gotracy/protocol"
)

// The "CPU usage" plot: like Tracy's client, the sender reports the
// system-wide CPU use every 100 ms (SysTimeReport, which the server turns
// into its CPU usage plot), computed from the change of the used and idle
// times since the last report. Linux only (/proc/stat), where Tracy's
// client also sends it; elsewhere nothing is sent.

const sysTimeInterval = 100e6 // ns

// noSysTime turns the reports off; only tests set it (an idle client must
// really be silent to test its keepalives).
var noSysTime bool

type sysTimeState struct {
	used, idle uint64
	last       int64 // nanotime of the last reading; 0 before the first
	off        bool  // the platform gives no times
}

// parseProcStatCPU parses /proc/stat's first line, "cpu user nice system
// idle ...".
func parseProcStatCPU(line string) (used, idle uint64, ok bool) {
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, false
	}
	var v [4]uint64
	for i := range v {
		n, err := strconv.ParseUint(f[i+1], 10, 64)
		if err != nil {
			return 0, 0, false
		}
		v[i] = n
	}
	return v[0] + v[1] + v[2], v[3], true
}

// usage returns the CPU use in percent since the previous reading, ok
// false when there is none or no time passed.
func (st *sysTimeState) usage(used, idle uint64) (float32, bool) {
	du, di := used-st.used, idle-st.idle
	st.used, st.idle = used, idle
	if du+di == 0 {
		return 0, false
	}
	return float32(du) * 100 / float32(du+di), true
}

// reportSysTime appends a SysTimeReport when the interval has passed
// (sender only).
func (p *profiler) reportSysTime(s *session) {
	st := &p.sysTime
	if st.off || noSysTime {
		return
	}
	t := nanotime()
	if st.last != 0 && t-st.last < sysTimeInterval {
		return
	}
	used, idle, ok := sysTimes()
	if !ok {
		st.off = true
		return
	}
	first := st.last == 0
	st.last = t
	pct, ok := st.usage(used, idle)
	if first || !ok {
		return
	}
	s.buf = protocol.AppendSysTimeReport(s.buf, now(), pct)
}
