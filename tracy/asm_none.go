//go:build (purego || !(amd64 || arm64)) && !notracy

package tracy

import "sync/atomic"

const hasAsm = false

func rdtsc() uint64 { return 0 }

func loadGoid(off uintptr) uint64 { return 0 }

func storeRel(addr *uint64, v uint64) { atomic.StoreUint64(addr, v) }

func stampBegin(dst *byte, key uint64, pub *uint64, n uint64) { panic("tracy: no assembly") }

func stampEnd(dst *byte, pub *uint64, n uint64) { panic("tracy: no assembly") }

func stampEndPF(dst *byte, pub *uint64, n uint64) { panic("tracy: no assembly") }
