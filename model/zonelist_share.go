package model

import (
	"math"
	"slices"
)

// Share returns a list of l's first Len zones for a reader on another
// goroutine while the owner goes on appending to l. It shares the chunks
// with l: zones are appended past Len, into memory the shared list never
// reads, and when the owner grows its partly filled last chunk it copies
// it to a new array and never writes the old one again. The chunks
// numbered in private (ChunkOf of a zone index) are copied: the owner
// names the chunks of zones it will still change (a capture's open zones,
// whose end is not known yet), so the reader never races with those
// writes. The cost is one chunk header per chunk plus the copied chunks.
func (l *ZoneList) Share(private ...int) ZoneList {
	n := l.Len()
	if n == 0 {
		return ZoneList{}
	}
	chunks := slices.Clone(l.chunks)
	k := len(chunks) - 1
	// Every chunk the copy holds is never reused by l (see DropFront).
	l.shared = max(l.shared, l.first+len(l.chunks))
	if slices.Contains(private, k) {
		chunks[k] = slices.Clone(l.last[:l.used])
	} else {
		chunks[k] = l.last[:l.used:l.used]
	}
	for _, c := range private {
		if c >= 0 && c < k && &chunks[c][0] == &l.chunks[c][0] {
			chunks[c] = slices.Clone(l.chunks[c])
		}
	}
	last := chunks[k]
	// The copy never reuses a chunk it drops: l may still hold it.
	return ZoneList{chunks: chunks, last: last, base: l.base, used: len(last), want: n, off: l.off, org: l.org, shared: math.MaxInt}
}

// Release lets go of the chunks numbered below k (ChunkOf's numbering),
// for a reader that is done with the zones they hold: a writer saving a
// snapshot once frees each chunk as it has written it, so a chunk the
// capture has meanwhile dropped from its window is garbage at once
// instead of when the whole snapshot is saved. Only a list whose chunk
// table is its own may release (a Share copy: the owner's table is
// another); the released zones can no longer be read (At panics), Len is
// unchanged.
func (l *ZoneList) Release(k int) {
	k = min(k, len(l.chunks))
	for j := range k {
		l.chunks[j] = nil
	}
	if k == len(l.chunks) {
		l.last = nil
	}
}
