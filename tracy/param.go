//go:build !notracy

package tracy

import "sync/atomic"

var paramHook atomic.Pointer[func(idx uint32, value int32)]

// OnParameter sets the function called when the viewer changes a parameter
// (Tracy's TracyParameterRegister callback); nil removes it.
func OnParameter(f func(idx uint32, value int32)) {
	if f == nil {
		paramHook.Store(nil)
		return
	}
	paramHook.Store(&f)
}

// Parameter declares a parameter the viewer can change while the program
// runs (Tracy's TracyParameterSetup): an integer, or a boolean when isBool.
// Changes arrive through the function set with OnParameter. The declaration
// is kept and sent to every server that connects.
func Parameter(idx uint32, name string, isBool bool, value int32) {
	if !running.Load() {
		return
	}
	var typ uint64
	if isBool {
		typ = 1
	}
	pushDeferred(serialEv{kind: sParamSetup, id: idx, ptr: strKey(name), size: typ, key: uint64(uint32(value))})
}
