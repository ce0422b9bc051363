package fileio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func temps(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a.tracy")
	if err := WriteFile(context.Background(), out, false, func(w io.Writer) error {
		_, err := io.WriteString(w, "one")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// Without force the existing file is kept and the error says so.
	err := WriteFile(context.Background(), out, false, func(w io.Writer) error { return nil })
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "use -f") {
		t.Fatalf("second write without force: %v", err)
	}
	// A failing writer (disk full) leaves the old content and no temp.
	enospc := &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
	err = WriteFile(context.Background(), out, true, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return enospc
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("failing writer: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "one" {
		t.Fatalf("a failed write changed the output to %q", b)
	}
	if tt := temps(t, dir); len(tt) != 0 {
		t.Fatalf("temp files left: %v", tt)
	}
	// With force the content is replaced and the mode is an ordinary file's.
	if err := WriteFile(context.Background(), out, true, func(w io.Writer) error {
		_, err := io.WriteString(w, "two")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(out)
	if b, _ := os.ReadFile(out); string(b) != "two" || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o644) {
		t.Fatalf("forced write: %q, mode %v", b, st.Mode())
	}
}

// A failing writer on a new output leaves nothing at all.
func TestWriteFileFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "new.tracy")
	err := WriteFile(context.Background(), out, false, func(w io.Writer) error {
		fw := &faultWriter{w: w, n: 10}
		return fw.write(100)
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("output exists after a failed write: %v", err)
	}
	if tt := temps(t, dir); len(tt) != 0 {
		t.Fatalf("temp files left: %v", tt)
	}
}

// faultWriter accepts n bytes, then fails as a full disk does.
type faultWriter struct {
	w io.Writer
	n int
}

func (f *faultWriter) write(total int) error {
	buf := make([]byte, 1)
	for range total {
		if f.n == 0 {
			return &os.PathError{Op: "write", Path: "disk", Err: syscall.ENOSPC}
		}
		f.n--
		if _, err := f.w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

func TestCancelStopsWritesAndRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c.tracy")
	cause := errors.New("interrupted by a second signal")
	ctx, cancel := context.WithCancelCause(context.Background())
	o, err := Create(ctx, out, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	cancel(cause)
	if _, err := o.Write([]byte("d")); !errors.Is(err, cause) {
		t.Fatalf("write after cancel: %v", err)
	}
	if err := o.Commit(); !errors.Is(err, cause) {
		t.Fatalf("commit after cancel: %v", err)
	}
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("cancelled output exists")
	}
	if tt := temps(t, dir); len(tt) != 0 {
		t.Fatalf("temp files left: %v", tt)
	}
}

func TestAbortAll(t *testing.T) {
	dir := t.TempDir()
	a, err := Create(context.Background(), filepath.Join(dir, "a"), false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Create(context.Background(), filepath.Join(dir, "b"), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(temps(t, dir)) != 2 {
		t.Fatal("want two temp files while writing")
	}
	AbortAll()
	if tt := temps(t, dir); len(tt) != 0 {
		t.Fatalf("AbortAll left %v", tt)
	}
	if err := a.Commit(); err == nil {
		t.Fatal("commit after AbortAll succeeded")
	}
	b.Abort() // idempotent
}

func TestOutputsOnlyOverRegularFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	cases := map[string]string{"symbolic link": link, "directory": dir}
	if runtime.GOOS != "windows" {
		fifo := filepath.Join(dir, "fifo")
		mkfifo(t, fifo)
		cases["named pipe (FIFO)"] = fifo
		cases["character device"] = os.DevNull
	}
	for kind, p := range cases {
		for _, force := range []bool{false, true} {
			err := WriteFile(context.Background(), p, force, func(w io.Writer) error {
				_, err := io.WriteString(w, "new")
				return err
			})
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Kind != kind || !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s (force %v): %v", kind, force, err)
			}
			if err := CheckOutput(p, force); !errors.Is(err, ErrNotRegular) {
				t.Errorf("CheckOutput %s: %v", kind, err)
			}
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symbolic link was replaced")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target changed to %q", b)
	}
	if tt := temps(t, dir); len(tt) != 0 {
		t.Fatalf("temp files left: %v", tt)
	}
}

// Something other than a regular file appearing at the output while it is
// written is not replaced by the commit.
func TestCommitRechecksTarget(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	o, err := Create(context.Background(), out, false)
	if err != nil {
		t.Fatal(err)
	}
	o.Write([]byte("x"))
	os.Mkdir(out, 0o755)
	if err := o.Commit(); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("commit over a directory that appeared: %v", err)
	}
	if tt := temps(t, dir); len(tt) != 0 {
		t.Fatalf("temp files left: %v", tt)
	}
}

func TestInputsMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "r")
	os.WriteFile(reg, []byte("data"), 0o644)
	link := filepath.Join(dir, "l")
	os.Symlink(reg, link)
	for _, p := range []string{reg, link} {
		f, err := OpenInput(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "data" {
			t.Fatalf("%s read %q", p, b)
		}
	}
	if _, err := OpenInput(dir); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory input: %v", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	done := make(chan error, 1)
	go func() {
		_, err := OpenInput(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe (FIFO)") {
			t.Errorf("FIFO input: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OpenInput blocked on a FIFO")
	}
	if _, err := CheckInput(os.DevNull); !errors.Is(err, ErrNotRegular) {
		t.Errorf("device input: %v", err)
	}
}

// A temp file of a dead process (kill -9 during a save) is removed by the
// next write of the same output; one of a live process is kept.
func TestCleanStale(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process liveness is not checked on windows")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "s.tracy")
	// A PID that existed and is gone: a finished child.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	dead := cmd.Process.Pid
	stale := filepath.Join(dir, ".s.tracy.gotracy-"+strconv.Itoa(dead)+"-123.tmp")
	live := filepath.Join(dir, ".s.tracy.gotracy-1-456.tmp") // init always runs
	other := filepath.Join(dir, ".t.tracy.gotracy-"+strconv.Itoa(dead)+"-789.tmp")
	for _, p := range []string{stale, live, other} {
		os.WriteFile(p, []byte("partial"), 0o600)
	}
	if err := WriteFile(context.Background(), out, false, func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Error("the dead process's temp file was not removed")
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// TestWriteBehind: a large output is handed to the write-behind goroutine
// as it grows (on Linux), its bytes are intact after Commit, and Abort
// while writing, from another goroutine too (run with -race), stops the
// goroutine before the file is closed.
func TestWriteBehind(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.out")
	o, err := Create(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 1<<20)
	for i := range block {
		block[i] = byte(i * 7)
	}
	const blocks = 40
	for range blocks {
		if _, err := o.Write(block); err != nil {
			t.Fatal(err)
		}
	}
	o.wb.mu.Lock()
	issued, written := o.wb.issued, o.wb.written
	o.wb.mu.Unlock()
	if written != blocks<<20 || (haveWriteback && issued < writeBehindFrom) || (!haveWriteback && issued != 0) {
		t.Errorf("written %d, handed to write-behind %d", written, issued)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || len(got) != blocks<<20 || !bytes.Equal(got[len(got)-len(block):], block) {
		t.Fatalf("committed file: %d bytes, %v", len(got), err)
	}

	o, err = Create(context.Background(), filepath.Join(dir, "aborted.out"), false)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range blocks {
			if _, err := o.Write(block); err != nil {
				return // closed by Abort
			}
		}
	}()
	for {
		o.wb.mu.Lock()
		w := o.wb.written
		o.wb.mu.Unlock()
		if w >= writeBehindFrom+writeBehindStep {
			break
		}
		runtime.Gosched()
	}
	o.Abort()
	<-done
	if _, err := os.Stat(o.TempName()); !os.IsNotExist(err) {
		t.Errorf("aborted output's temporary file: %v", err)
	}
}
