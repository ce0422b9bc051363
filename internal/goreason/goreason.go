// Package goreason names the wait reasons and states that gotracy stores in
// Tracy's context-switch events for Go goroutines. Tracy's ContextSwitch
// carries a reason byte and a state byte whose meaning depends on the OS
// that produced them; for goroutines (a live capture with tracy/goruntime or
// an imported Go execution trace) gotracy uses the codes below, so the
// client, the importer and the viewer agree on one table.
package goreason

// States of a goroutine that stopped running (the state byte).
const (
	StateUnknown  = 0
	StateRunnable = 1 // preempted or yielded: ready to run again
	StateWaiting  = 2 // blocked on something
	StateSyscall  = 3 // in a system call, off its P
	StateExited   = 4 // the goroutine ended
)

// StateNames are the names of the state codes.
var StateNames = [...]string{"unknown", "runnable", "waiting", "syscall", "exited"}

// Reasons are the execution tracer's block and stop reasons, in code order
// (the reason byte is the index; 0 = another or no reason).
var Reasons = [...]string{
	"",
	"unspecified",
	"forever",
	"network",
	"select",
	"sync.(*Cond).Wait",
	"sync",
	"chan send",
	"chan receive",
	"GC mark assist wait for work",
	"GC background sweeper wait",
	"system goroutine wait",
	"preempted",
	"wait for debug call",
	"wait until GC ends",
	"sleep",
	"GC weak to strong wait",
	"synctest",
	"runtime.Gosched",
	"syscall",
	"exited",
}

var codes = func() map[string]uint8 {
	m := make(map[string]uint8, len(Reasons))
	for i, r := range Reasons {
		if i > 0 {
			m[r] = uint8(i)
		}
	}
	return m
}()

// Code returns the code of a reason string, 0 for an unknown one.
func Code(reason string) uint8 { return codes[reason] }

// Name returns the name of a reason code, "" for 0 or an unknown code.
func Name(code uint8) string {
	if int(code) < len(Reasons) {
		return Reasons[code]
	}
	return ""
}

// StateName returns the name of a state code.
func StateName(code uint8) string {
	if int(code) < len(StateNames) {
		return StateNames[code]
	}
	return "unknown"
}
