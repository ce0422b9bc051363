//go:build !notracy

package tracy

import "time"

// SetKeepAliveEvery shortens the idle interval after which the sender
// sends a KeepAlive, for tests; it returns the function that restores it.
func SetKeepAliveEvery(d time.Duration) (restore func()) {
	old, oldSys := keepAliveEvery, noSysTime
	keepAliveEvery, noSysTime = d, true // the CPU-usage reports would hide the silence
	return func() { keepAliveEvery, noSysTime = old, oldSys }
}
