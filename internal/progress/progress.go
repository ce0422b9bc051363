// Package progress draws a one-line progress indicator on a terminal for
// long loads and saves. It stays silent for operations that finish within
// a second, so quick commands and scripts see no noise, and it draws
// nothing when the output is not a terminal (a pipe or a file), where
// carriage-return redraws would garble logs.
//
// A Line's Update method has the signature of a container.ProgressFunc, so
// it plugs straight into the .tracy reader and writer:
//
//	pl := progress.New(os.Stderr, "loading trace.tracy")
//	r, err := container.Open(path, container.WithProgress(pl.Update))
//	...
//	pl.Done()
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

const (
	// Delay is how long an operation runs before the line appears.
	Delay = time.Second
	// redraw limits how often the line is redrawn.
	redraw = 100 * time.Millisecond
)

// Line is a progress line. Its methods are safe for concurrent use.
type Line struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	enabled bool
	now     func() time.Time
	start   time.Time
	last    time.Time
	shown   bool
}

// New returns a Line that draws on w when w is a terminal.
func New(w io.Writer, label string) *Line {
	return newLine(w, label, IsTerminal(w), time.Now)
}

func newLine(w io.Writer, label string, enabled bool, now func() time.Time) *Line {
	return &Line{w: w, label: label, enabled: enabled, now: now, start: now()}
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Update records progress: done of total units (bytes); total <= 0 means
// unknown. The line appears once the operation has run for Delay.
func (l *Line) Update(done, total int64) {
	if l == nil || !l.enabled {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now()
	el := t.Sub(l.start)
	if el < Delay || (l.shown && t.Sub(l.last) < redraw) {
		return
	}
	l.last, l.shown = t, true
	fmt.Fprintf(l.w, "\r\x1b[K%s", format(l.label, done, total, el))
}

// Done clears the line if it was drawn. Call it when the operation ends,
// successfully or not.
func (l *Line) Done() {
	if l == nil || !l.enabled {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		fmt.Fprint(l.w, "\r\x1b[K")
		l.shown = false
	}
}

// format renders "label: 45% 12.3/27.4 MB, 35.0 MB/s".
func format(label string, done, total int64, el time.Duration) string {
	rate := float64(done) / 1e6 / max(el.Seconds(), 1e-9)
	if total > 0 {
		pct := min(100*float64(done)/float64(total), 100)
		return fmt.Sprintf("%s: %3.0f%% %.1f/%.1f MB, %.1f MB/s", label, pct, float64(done)/1e6, float64(total)/1e6, rate)
	}
	return fmt.Sprintf("%s: %.1f MB, %.1f MB/s", label, float64(done)/1e6, rate)
}
