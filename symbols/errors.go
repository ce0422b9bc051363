package symbols

import (
	"errors"
	"fmt"
)

// Sentinel errors. A Result's Err wraps exactly one of these, so callers (the
// capture server, `gotracy symbolize`, the symbol server) can branch with
// errors.Is and still print the wrapped context for the user.
var (
	// ErrImageNotFound: no file for the image was found at the recorded
	// path, in the search directories, the build-id tree or debuginfod.
	ErrImageNotFound = errors.New("symbols: image not found")
	// ErrBuildIDMismatch: a candidate file was found but its id differs from
	// the image's; it was rejected and never used for resolution.
	ErrBuildIDMismatch = errors.New("symbols: build id mismatch")
	// ErrNoDebugInfo: the image was found but neither it nor any matching
	// debug file has debug information or a symbol table.
	ErrNoDebugInfo = errors.New("symbols: no debug information")
	// ErrAddressNotFound: the file is usable but no function covers the
	// address (outside .text, or in padding between symbols).
	ErrAddressNotFound = errors.New("symbols: address not covered by any symbol")
	// ErrUnsupportedFormat: the file is not ELF, Mach-O, PE or a Go binary
	// we can read, or needs a format we do not implement (PDB).
	ErrUnsupportedFormat = errors.New("symbols: unsupported file format")
	// ErrMalformed: the file claims a known format but its contents are
	// inconsistent (truncated sections, bad DWARF).
	ErrMalformed = errors.New("symbols: malformed debug information")
	// ErrClosed: the Resolver was closed before the batch ran.
	ErrClosed = errors.New("symbols: resolver closed")
)

// MismatchError is returned (wrapping ErrBuildIDMismatch) when a file was
// found but rejected; it names the file and both ids so the user can tell a
// stale rebuild from a wrong search path.
type MismatchError struct {
	Path string
	Want ID
	Got  ID
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s: build id %s does not match image id %s", e.Path, e.Got, e.Want)
}

func (e *MismatchError) Unwrap() error { return ErrBuildIDMismatch }

// NotFoundError lists the places searched, wrapping ErrImageNotFound; when a
// candidate was rejected for its id, Rejected holds why, so the result says
// "found but mismatched" rather than just "not found".
type NotFoundError struct {
	Image    string
	Searched []string
	Rejected []error
}

func (e *NotFoundError) Error() string {
	s := fmt.Sprintf("%s: not found (searched %d places)", e.Image, len(e.Searched))
	for _, r := range e.Rejected {
		s += "; rejected " + r.Error()
	}
	return s
}

func (e *NotFoundError) Unwrap() []error {
	return append([]error{ErrImageNotFound}, e.Rejected...)
}
