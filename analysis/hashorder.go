package analysis

// tracyMap reproduces the iteration order of the hash map Tracy 0.14.0 keeps
// its per-source-location statistics in (robin_hood::unordered_flat_map with
// its default 80 % load factor). tracy-csvexport prints rows in that order,
// not sorted, so matching its output line for line means replaying the same
// reserve and insert sequence on the same table geometry. Only what changes
// the order is modelled: bucket placement, the info bytes that drive the
// robin-hood displacement, growth, info-bit halving and rehash-with-a-new-
// multiplier. Values are not stored; the caller keeps them beside the keys.
type tracyMap struct {
	keys          []uint64 // slot -> key as hashed (sign-extended for int16 keys)
	info          []uint8  // slot -> 0 empty, else distance/hash bits; sentinel after the last slot
	mask          uint64
	numElements   uint64
	maxAllowed    uint64
	infoInc       uint32
	infoHashShift uint32
	multiplier    uint64
	// overflow is set where robin_hood would throw (only reachable with
	// adversarial keys); the order is then meaningless and callers use the
	// insertion order instead.
	overflow bool
}

const (
	rhInitialNumElements = 8
	rhInitialInfoNumBits = 5
	rhInitialInfoInc     = 1 << rhInitialInfoNumBits
	rhInfoMask           = rhInitialInfoInc - 1
	rhMaxLoadFactor100   = 80
	rhInitialMultiplier  = 0xc4ceb9fe1a85ec53
	rhMultiplierStep     = 0xc4ceb9fe1a85ec54
)

func newTracyMap() *tracyMap {
	return &tracyMap{infoInc: rhInitialInfoInc, multiplier: rhInitialMultiplier}
}

// rhHashInt is robin_hood's hash_int (murmur3 finaliser without its last step).
func rhHashInt(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

func rhMaxElementsAllowed(n uint64) uint64 {
	if n <= ^uint64(0)/100 {
		return n * rhMaxLoadFactor100 / 100
	}
	return (n / 100) * rhMaxLoadFactor100
}

func rhElementsWithBuffer(n uint64) uint64 {
	return n + min(rhMaxElementsAllowed(n), 0xFF)
}

// infoAt reads an info byte; the unallocated map reads as zeros, like the
// real one whose info pointer aliases its zero mask field.
func (m *tracyMap) infoAt(i uint64) uint32 {
	if i >= uint64(len(m.info)) {
		return 0
	}
	return uint32(m.info[i])
}

func (m *tracyMap) keyToIdx(key uint64) (idx uint64, info uint32) {
	h := rhHashInt(key)
	h *= m.multiplier
	h ^= h >> 33
	info = m.infoInc + uint32((h&rhInfoMask)>>m.infoHashShift)
	idx = (h >> rhInitialInfoNumBits) & m.mask
	return idx, info
}

func (m *tracyMap) initData(maxElements uint64) {
	m.numElements = 0
	m.mask = maxElements - 1
	m.maxAllowed = rhMaxElementsAllowed(maxElements)
	n := rhElementsWithBuffer(maxElements)
	m.keys = make([]uint64, n)
	m.info = make([]uint8, n+8)
	m.info[n] = 1 // sentinel
	m.infoInc = rhInitialInfoInc
	m.infoHashShift = 0
}

// reserve is robin_hood's reserve(c): grow (never shrink) to the smallest
// power-of-two table that holds c elements under the load factor.
func (m *tracyMap) reserve(c uint64) {
	want := max(c, m.numElements)
	size := uint64(rhInitialNumElements)
	for rhMaxElementsAllowed(size) < want && size != 0 {
		size *= 2
	}
	if size > m.mask+1 {
		m.rehash(size)
	}
}

func (m *tracyMap) rehash(buckets uint64) {
	oldKeys, oldInfo := m.keys, m.info
	oldWithBuffer := rhElementsWithBuffer(m.mask + 1)
	m.initData(buckets)
	if oldWithBuffer > 1 {
		for i := uint64(0); i < oldWithBuffer; i++ {
			if oldInfo[i] != 0 {
				m.insertMove(oldKeys[i])
			}
		}
	}
}

func (m *tracyMap) shiftUp(start, insertion uint64) {
	for idx := start; idx != insertion; idx-- {
		m.keys[idx] = m.keys[idx-1]
	}
	for idx := start; idx != insertion; idx-- {
		m.info[idx] = uint8(uint32(m.info[idx-1]) + m.infoInc)
		if uint32(m.info[idx])+m.infoInc > 0xFF {
			m.maxAllowed = 0
		}
	}
}

// insertMove places a key known to be absent (used while rehashing).
func (m *tracyMap) insertMove(key uint64) {
	if m.maxAllowed == 0 && !m.tryIncreaseInfo() {
		m.overflow = true // robin_hood throws here; callers fall back to insertion order
		return
	}
	idx, info := m.keyToIdx(key)
	for info <= m.infoAt(idx) {
		idx++
		info += m.infoInc
	}
	insIdx, insInfo := idx, uint8(info)
	if uint32(insInfo)+m.infoInc > 0xFF {
		m.maxAllowed = 0
	}
	for m.info[idx] != 0 {
		idx++
		info += m.infoInc
	}
	if idx != insIdx {
		m.shiftUp(idx, insIdx)
	}
	m.keys[insIdx] = key
	m.info[insIdx] = insInfo
	m.numElements++
}

func (m *tracyMap) tryIncreaseInfo() bool {
	if m.infoInc <= 2 {
		return false
	}
	m.infoInc >>= 1
	m.infoHashShift++
	n := rhElementsWithBuffer(m.mask + 1)
	for i := uint64(0); i < n; i++ {
		m.info[i] = (m.info[i] >> 1) & 0x7f
	}
	m.info[n] = 1
	m.maxAllowed = rhMaxElementsAllowed(m.mask + 1)
	return true
}

func (m *tracyMap) increaseSize() {
	if m.mask == 0 {
		m.initData(rhInitialNumElements)
		return
	}
	maxAllowed := rhMaxElementsAllowed(m.mask + 1)
	if m.numElements < maxAllowed && m.tryIncreaseInfo() {
		return
	}
	if m.numElements*2 < rhMaxElementsAllowed(m.mask+1) {
		m.multiplier += rhMultiplierStep
		m.rehash(m.mask + 1)
	} else {
		m.rehash((m.mask + 1) * 2)
	}
}

// emplace inserts key if absent and reports whether it was new.
func (m *tracyMap) emplace(key uint64) bool {
	if m.overflow {
		return false
	}
	for range 256 {
		idx, info := m.keyToIdx(key)
		for info < m.infoAt(idx) {
			idx++
			info += m.infoInc
		}
		for info == m.infoAt(idx) {
			if m.keys[idx] == key {
				return false
			}
			idx++
			info += m.infoInc
		}
		if m.numElements >= m.maxAllowed {
			m.increaseSize()
			continue
		}
		insIdx, insInfo := idx, info
		if insInfo+m.infoInc > 0xFF {
			m.maxAllowed = 0
		}
		for m.info[idx] != 0 {
			idx++
			info += m.infoInc
		}
		if idx != insIdx {
			m.shiftUp(idx, insIdx)
		}
		m.info[insIdx] = uint8(insInfo)
		m.keys[insIdx] = key
		m.numElements++
		return true
	}
	m.overflow = true
	return false
}

// order returns the keys in the map's iteration order.
func (m *tracyMap) order() []uint64 {
	out := make([]uint64, 0, m.numElements)
	if m.numElements == 0 {
		return out
	}
	n := rhElementsWithBuffer(m.mask + 1)
	for i := uint64(0); i < n; i++ {
		if m.info[i] != 0 {
			out = append(out, m.keys[i])
		}
	}
	return out
}
