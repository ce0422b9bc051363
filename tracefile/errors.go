package tracefile

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error a load returns for bad input matches exactly
// one of ErrNotTrace, ErrUnsupportedVersion, ErrLegacyVersion or ErrCorrupt
// under errors.Is, so callers (and the CLI's error wording) branch on these.
var (
	// ErrNotTrace: the input is not a Tracy trace (no container magic, or an
	// unknown compression type). Tracy says NotTracyDump.
	ErrNotTrace = errors.New("not a Tracy trace file")

	// ErrUnsupportedVersion: the trace was written by a newer Tracy than
	// 0.14.0; a newer gotracy is needed. Tracy says UnsupportedVersion.
	ErrUnsupportedVersion = errors.New("trace file from a newer Tracy version")

	// ErrLegacyVersion: the trace is older than the 0.14.0 loader accepts
	// (before 0.9.0); convert it with an older Tracy update tool first.
	// Tracy says LegacyVersion.
	ErrLegacyVersion = errors.New("trace file from a Tracy version too old to load")

	// ErrCorrupt: the payload is malformed or truncated. The concrete error
	// is a *CorruptError with the payload offset.
	ErrCorrupt = errors.New("corrupt Tracy trace file")

	// ErrInvalidTrace: a model handed to the writer cannot be written as a
	// valid file (for example an index out of range).
	ErrInvalidTrace = errors.New("trace cannot be written")
)

// CorruptError locates a malformed payload. Offset is the byte offset in the
// decompressed payload (0 = the 't' of "tracy") where the bad field starts.
type CorruptError struct {
	Offset  int64
	Section string // payload section being read, e.g. "zones"
	Err     error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt Tracy trace payload at offset %d (%s): %v", e.Offset, e.Section, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Is makes every CorruptError match ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// VersionError reports a payload version the 0.14.0 loader does not load.
// It matches ErrUnsupportedVersion or ErrLegacyVersion.
type VersionError struct {
	Version uint32 // MAJOR<<16 | MINOR<<8 | PATCH
	Err     error  // ErrUnsupportedVersion or ErrLegacyVersion
}

func (e *VersionError) Error() string {
	v := VersionString(e.Version)
	if e.Err == ErrUnsupportedVersion {
		return fmt.Sprintf("trace file version %s is newer than 0.14.0: use a gotracy built for Tracy %s or newer", v, v)
	}
	return fmt.Sprintf("trace file version %s is older than 0.9.0, the oldest Tracy 0.14.0 loads: convert it with the tracy-update tool of an older Tracy release first", v)
}

func (e *VersionError) Unwrap() error { return e.Err }

// VersionString formats a packed version as MAJOR.MINOR.PATCH.
func VersionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>16&0xFF, v>>8&0xFF, v&0xFF)
}

// Version numbers (MAJOR<<16 | MINOR<<8 | PATCH).
const (
	// Version is what this package writes and the newest it reads.
	Version uint32 = 0<<16 | 14<<8 | 0
	// MinVersion is the oldest payload Tracy 0.14.0 loads.
	MinVersion uint32 = 0<<16 | 9<<8 | 0
)

func ver(major, minor, patch uint32) uint32 { return major<<16 | minor<<8 | patch }
