//go:build race && !notracy

package tracy

// Under the race detector records are written in Go and published with
// sync/atomic, so the detector sees every write and its publication.
const raceEnabled = true
