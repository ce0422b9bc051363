// Package fileio is how gotracy's commands touch the file system, so that
// every command keeps the same two promises:
//
//   - An output is either complete or absent. It is written to a temporary
//     file in the destination's directory and renamed over the destination
//     only once fully written and synced; every failure, cancellation or
//     signal removes the temporary file. Outputs replace only regular files:
//     a symbolic link, named pipe, device, socket or directory at the output
//     path is refused, because "replacing" it would silently turn a link into
//     a copy, or a pipe a reader waits on into a file nobody reads.
//   - An input that is not a regular file (a FIFO, a device, a directory) is
//     refused at once with a clear error, instead of blocking forever on a
//     pipe nobody writes or reading a device without end. Symbolic links to
//     regular files are followed.
//
// Temporary files are named ".NAME.gotracy-PID-RANDOM.tmp". A process
// killed with SIGKILL cannot remove its own; since the name is random it
// never blocks a later run, and Create removes the ones of NAME whose PID
// no longer runs (see CleanStale), so they do not pile up either.
package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

var (
	// ErrNotRegular: the path names something other than a regular file
	// (see NotRegularError).
	ErrNotRegular = errors.New("not a regular file")
	// ErrExists: the output exists and overwriting was not asked for.
	ErrExists = errors.New("output file already exists")
)

// NotRegularError is an input or output path that is not a regular file.
type NotRegularError struct {
	Path   string
	Kind   string // "named pipe (FIFO)", "symbolic link", "directory", ...
	Output bool
}

func (e *NotRegularError) Error() string {
	if e.Output {
		return fmt.Sprintf("output %s is a %s, not a regular file: gotracy writes outputs only as new files or over regular files (give another path, or remove it first)", e.Path, e.Kind)
	}
	return fmt.Sprintf("input %s is a %s, not a regular file: gotracy reads only regular files", e.Path, e.Kind)
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// missingError words a missing input plainly; it still unwraps to the
// *fs.PathError (and so to fs.ErrNotExist).
type missingError struct {
	path string
	err  error
}

func (e *missingError) Error() string { return "input " + e.path + " does not exist" }
func (e *missingError) Unwrap() error { return e.err }

// tempError words a failure to create the temporary file after the output
// it is for, not after its own name, which the user never chose.
func tempError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot write output %s: cannot create a file in %s: %w", path, filepath.Dir(path), err)
}

// ExistsError is an output that exists while overwriting was not asked for.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("output file %s already exists; use -f to overwrite it", e.Path)
}

func (e *ExistsError) Unwrap() error { return ErrExists }

// Kind words a file mode's type for an error message.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file"
}

// CheckInput refuses a path that is not (a link to) a regular file. It only
// stats, so it never blocks; use it before handing the path to a library
// that opens it itself. OpenInput closes the window between check and open.
func CheckInput(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &missingError{path: path, err: err}
		}
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	return st, nil
}

// OpenInput opens a regular file for reading. The open itself cannot block
// on a FIFO (it is non-blocking where the system allows), and what was
// opened is checked, not what the path named a moment before.
func OpenInput(path string) (*os.File, error) {
	if _, err := CheckInput(path); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	return f, nil
}

// CheckOutput reports whether path may be written as an output: it is
// absent, or a regular file and force is set; and its directory accepts a
// new file. It creates nothing at path, so a run that fails later leaves
// nothing behind that would block the next one.
func CheckOutput(path string, force bool) error {
	if err := checkTarget(path, force); err != nil {
		return err
	}
	f, err := createTemp(path)
	if err != nil {
		return tempError(path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

func checkTarget(path string, force bool) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot write output %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return &NotRegularError{Path: path, Kind: Kind(st.Mode()), Output: true}
	}
	if !force {
		return &ExistsError{Path: path}
	}
	return nil
}

// File is an output being written: a temporary file that becomes path on
// Commit and disappears on Abort (or on AbortAll, from a signal handler).
type File struct {
	f     *os.File
	path  string
	ctx   context.Context
	mu    sync.Mutex
	ended bool
	wb    writeBehind
}

// Write-behind: once an output has grown past writeBehindFrom, each
// further writeBehindStep written is handed to a goroutine that asks the
// kernel to start writing it back (sync_file_range), so that the fsync
// before the rename finds most of the file on disk already instead of
// writing all of it then (a 190 MB output: 0.33-0.53 s fsync without,
// 0.10-0.20 s with, on the shared VM's disk). Small outputs are left
// alone: there the fsync is the journal commit, which this cannot shorten.
const (
	writeBehindFrom = 16 << 20
	writeBehindStep = 8 << 20
)

type writeBehind struct {
	mu      sync.Mutex
	written int64 // bytes written to the file
	issued  int64 // bytes handed to the goroutine
	ch      chan [2]int64
	done    chan struct{}
	stopped bool
}

// wrote notes n more bytes written to f and hands a range on when due.
func (w *writeBehind) wrote(f *os.File, n int) {
	if !haveWriteback {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.written += int64(n)
	if w.stopped || w.written < writeBehindFrom || w.written-w.issued < writeBehindStep {
		return
	}
	if w.ch == nil {
		w.ch = make(chan [2]int64, 4)
		w.done = make(chan struct{})
		go func() {
			defer close(w.done)
			for r := range w.ch {
				startWriteback(f, r[0], r[1])
			}
		}()
	}
	select {
	case w.ch <- [2]int64{w.issued, w.written - w.issued}:
		w.issued = w.written
	default: // busy: the next range will cover this one too
	}
}

// stop ends the goroutine and waits for it, before the file is synced or
// closed (it must not use a closed descriptor).
func (w *writeBehind) stop() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	w.stopped = true
	ch, done := w.ch, w.done
	w.mu.Unlock()
	if ch != nil {
		close(ch)
		<-done
	}
}

// open files, for AbortAll.
var (
	openMu sync.Mutex
	open   = map[*File]struct{}{}
)

// Create starts writing the output path (see CheckOutput for what it
// refuses). Writes fail with ctx's cause once ctx ends, so a cancelled run
// stops writing at once and its caller's Abort removes the temporary file.
func Create(ctx context.Context, path string, force bool) (*File, error) {
	if err := checkTarget(path, force); err != nil {
		return nil, err
	}
	CleanStale(path)
	f, err := createTemp(path)
	if err != nil {
		return nil, tempError(path, err)
	}
	o := &File{f: f, path: path, ctx: ctx}
	openMu.Lock()
	open[o] = struct{}{}
	openMu.Unlock()
	return o, nil
}

// Name is the final path.
func (o *File) Name() string { return o.path }

// TempName is where the data goes until Commit.
func (o *File) TempName() string { return o.f.Name() }

func (o *File) Write(p []byte) (int, error) {
	if o.ctx != nil {
		if err := o.ctx.Err(); err != nil {
			return 0, context.Cause(o.ctx)
		}
	}
	n, err := o.f.Write(p)
	o.wb.wrote(o.f, n)
	return n, err
}

// Commit makes the output visible under its name. The target is checked
// again just before the rename: if something other than a regular file
// appeared there meanwhile, it is left alone and the output is dropped.
func (o *File) Commit() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return fmt.Errorf("output %s: already committed or aborted", o.path)
	}
	o.wb.stop()
	err := o.ctxErr()
	if err == nil {
		err = o.f.Sync()
	}
	if err == nil {
		// CreateTemp makes the file private; an output is an ordinary file.
		err = o.f.Chmod(0o644)
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = checkTarget(o.path, true)
	}
	if err == nil {
		err = os.Rename(o.f.Name(), o.path)
	}
	if err != nil {
		os.Remove(o.f.Name())
	}
	o.end()
	if err != nil {
		var nr *NotRegularError
		if errors.As(err, &nr) {
			return err
		}
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

func (o *File) ctxErr() error {
	if o.ctx != nil && o.ctx.Err() != nil {
		return context.Cause(o.ctx)
	}
	return nil
}

// Abort removes the temporary file. It may be called any number of times,
// also after Commit (then it does nothing), so `defer o.Abort()` is the
// usual way to cover every failure path.
func (o *File) Abort() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	o.wb.stop()
	o.f.Close()
	os.Remove(o.f.Name())
	o.end()
}

func (o *File) end() {
	o.ended = true
	openMu.Lock()
	delete(open, o)
	openMu.Unlock()
}

// AbortAll removes the temporary file of every output not yet committed or
// aborted. A signal handler calls it before exiting the process.
func AbortAll() {
	openMu.Lock()
	files := make([]*File, 0, len(open))
	for o := range open {
		files = append(files, o)
	}
	openMu.Unlock()
	for _, o := range files {
		o.Abort()
	}
}

// WriteFile writes an output in one go: write receives the temporary file,
// and the output appears only if write and the commit succeed.
func WriteFile(ctx context.Context, path string, force bool, write func(io.Writer) error) error {
	o, err := Create(ctx, path, force)
	if err != nil {
		return err
	}
	defer o.Abort()
	if err := write(o); err != nil {
		if cerr := o.ctxErr(); cerr != nil {
			return cerr
		}
		return err
	}
	return o.Commit()
}

const tempMarker = ".gotracy-"

func tempPattern(path string) (dir, pattern string) {
	return filepath.Dir(path), "." + filepath.Base(path) + tempMarker + strconv.Itoa(os.Getpid()) + "-*.tmp"
}

func createTemp(path string) (*os.File, error) {
	dir, pat := tempPattern(path)
	return os.CreateTemp(dir, pat)
}

// CleanStale removes the temporary files a killed gotracy left for path:
// those named after path whose writing process is gone. It returns what it
// removed. A file whose process still runs (or cannot be checked) is kept,
// so two runs writing the same output never delete each other's data.
func CleanStale(path string) []string {
	dir := filepath.Dir(path)
	prefix := "." + filepath.Base(path) + tempMarker
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".tmp") || !e.Type().IsRegular() {
			continue
		}
		pidStr, _, ok := strings.Cut(name[len(prefix):], "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		p := filepath.Join(dir, name)
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
