//go:build race && !notracy

package tracy

import "sync/atomic"

// publish makes a record visible to the sender. Under the race detector it is
// a sync/atomic store so the detector sees the happens-before edge.
func publish(addr *uint64, v uint64) { atomic.StoreUint64(addr, v) }
