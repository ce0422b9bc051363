package model

import "slices"

// Share returns a list of l's first Len zones for a reader on another
// goroutine while the owner goes on appending to l. It shares every full
// chunk with l (chunks never move once full, and zones past Len are written
// into memory the copy never reads) and copies the partly filled last chunk,
// which the owner may still reallocate. The chunks numbered in private (zone
// index / ZoneChunkLen) are copied too: the owner names the chunks of zones
// it will still change (a capture's open zones, whose end is not known
// yet), so the reader's copy never races with those writes. The copy costs
// one chunk header per chunk plus the copied zones.
func (l *ZoneList) Share(private ...int) ZoneList {
	n := l.Len()
	if n == 0 {
		return ZoneList{}
	}
	chunks := slices.Clone(l.chunks)
	k := len(chunks) - 1
	if l.used < ZoneChunkLen || slices.Contains(private, k) {
		chunks[k] = slices.Clone(l.last[:l.used])
	}
	for _, c := range private {
		if c >= 0 && c < k && &chunks[c][0] == &l.chunks[c][0] {
			chunks[c] = slices.Clone(l.chunks[c])
		}
	}
	last := chunks[k]
	return ZoneList{chunks: chunks, last: last, base: l.base, used: len(last), want: n}
}
