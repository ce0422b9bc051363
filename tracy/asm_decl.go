//go:build (amd64 || arm64) && !purego && !notracy

package tracy

// hasAsm reports that the assembly helpers (counter read, goroutine id read,
// release store) are available.
const hasAsm = true

// rdtsc reads the CPU's cycle counter (RDTSC on amd64, CNTVCT_EL0 on arm64).
func rdtsc() uint64

// loadGoid reads the uint64 at byte offset off of the running goroutine's
// runtime g structure. The offset is discovered and verified at start-up
// (see goid.go); it is never guessed.
func loadGoid(off uintptr) uint64

// storeRel is a release store: a plain MOV on amd64, STLR on arm64. It costs
// about 1 ns against 6 ns for atomic.StoreUint64 (XCHG), which matters on a
// path that runs twice per zone.
func storeRel(addr *uint64, v uint64)

// stampBegin writes a whole zone-begin record at dst (rZoneBegin, the
// counter, key: 17 bytes) and release-stores n to *pub; stampEnd does the
// same for a zone end (rZoneEnd, the counter: 9 bytes). One call per
// record: an assembly function is never inlined, and each call from Go
// costs a couple of nanoseconds, so the record's stores, its time and its
// publication share one.
//
//go:noescape
func stampBegin(dst *byte, key uint64, pub *uint64, n uint64)

//go:noescape
func stampEnd(dst *byte, pub *uint64, n uint64)

// stampEndPF is stampEnd that also prefetches, for writing, the queue line
// 512 bytes ahead (see prefetchW).
//
//go:noescape
func stampEndPF(dst *byte, pub *uint64, n uint64)
