package main

import (
	"errors"

	"github.com/gotracy/gotracy/tracefile"
)

// Trace-file errors are worded here once, so csv, info, save and every
// other command that loads a .tracy file say the same thing for the same
// failure. The error text (which names the file and, for a corrupt one, the
// payload offset) comes first, then what the user can do about it.
func init() {
	errorDescribers = append(errorDescribers, describeTraceFileError)
}

func describeTraceFileError(err error) string {
	var hint string
	switch {
	case errors.Is(err, tracefile.ErrNotTrace):
		hint = "not a Tracy trace: expected a .tracy file saved by Tracy or gotracy"
	case errors.Is(err, tracefile.ErrUnsupportedVersion):
		hint = "the trace was saved by a newer Tracy than 0.14.0: upgrade gotracy to load it"
	case errors.Is(err, tracefile.ErrLegacyVersion):
		hint = "the trace is older than Tracy 0.14.0 can load: convert it with the tracy-update tool of an older Tracy release, then load the result"
	case errors.Is(err, tracefile.ErrCorrupt):
		hint = "the trace file is damaged or cut short"
	default:
		return ""
	}
	// One line: the error (file, offset) and what it means.
	return err.Error() + " (" + hint + ")"
}
