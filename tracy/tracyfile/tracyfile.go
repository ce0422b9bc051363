// Package tracyfile records a Go program's profile straight into a .tracy
// file, with no viewer or capture process:
//
//	func main() {
//		if err := tracyfile.Start("run.tracy"); err != nil {
//			log.Fatal(err)
//		}
//		defer tracy.Stop() // delivers everything, then writes run.tracy
//		...
//	}
//
// It runs gotracy's capture server inside the program, connected to the
// client over loopback exactly as gotracy capture would connect from
// outside, so the file is the one a separate capture would have written.
// The capture, the trace model and the file writer live here, not in
// package tracy: a program that imports only tracy contains no server code.
package tracyfile

import (
	"context"
	"errors"
	"fmt"
	"github.com/gotracy/gotracy/internal/fileio"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/tracy"
)

// ErrNotRegular: the output path exists and is not a regular file.
var ErrNotRegular = errors.New("tracyfile: output is not a regular file")

// connectTimeout bounds the wait for the in-process capture's handshake.
// It connects over loopback to a port that is already listening, so it
// takes milliseconds; the bound only turns a broken setup into an error.
const connectTimeout = 10 * time.Second

// finishTimeout bounds the wait, after tracy.Stop delivered everything, for
// the capture to finish its last answers.
const finishTimeout = time.Minute

// Start starts the tracy client (tracy.Start with opts) and a capture in
// this process that records everything from now on; tracy.Stop then
// delivers the rest and writes the trace to path, through a temporary file
// in the same directory renamed over path once complete, and returns any
// error of the capture or the write. The client listens on a free loopback
// port without broadcasting (options to the contrary are overridden), so
// the in-process capture is its only server.
//
// Start fails before anything runs when path exists and is not a regular
// file or its directory cannot take a file. In a program built with the
// notracy tag it does nothing and writes no file.
func Start(path string, opts ...tracy.Option) error {
	if err := checkOutput(path); err != nil {
		return err
	}
	type result struct {
		res *capture.Result
		err error
	}
	ch := make(chan result, 1)
	ctx, cancel := context.WithCancel(context.Background())
	finish := func() error {
		var r result
		select {
		case r = <-ch:
		case <-time.After(finishTimeout):
			cancel()
			r = <-ch
		}
		cancel()
		if r.res == nil || r.res.Trace == nil {
			if r.err == nil {
				r.err = errors.New("capture ended without a trace")
			}
			return fmt.Errorf("tracyfile: %s: %w", path, r.err)
		}
		if err := tracefile.WriteFile(path, r.res.Trace); err != nil {
			return fmt.Errorf("tracyfile: writing %s: %w", path, err)
		}
		if r.err != nil {
			return fmt.Errorf("tracyfile: %s written, but the capture ended with: %w", path, r.err)
		}
		return nil
	}
	all := append(append([]tracy.Option(nil), opts...),
		tracy.WithAddress("127.0.0.1"), tracy.WithPort(0), tracy.WithBroadcast(false),
		tracy.WithOnDemand(false), tracy.WithAfterStop(finish))
	if err := tracy.Start(all...); err != nil {
		cancel()
		return err
	}
	if tracy.Port() == 0 {
		// Built with the notracy tag: nothing is recorded, so there is
		// nothing to capture or write, as every tracy call does nothing.
		cancel()
		return nil
	}
	addr := capture.JoinAddr("127.0.0.1", tracy.Port())
	go func() {
		// The port is already listening: the first attempt connects.
		res, err := capture.Connect(ctx, addr, capture.WithRetryInterval(10*time.Millisecond))
		ch <- result{res, err}
	}()
	wctx, wcancel := context.WithTimeout(ctx, connectTimeout)
	defer wcancel()
	if err := tracy.WaitConnected(wctx); err != nil {
		cancel()
		tracy.Stop() // its finish reports the capture's error; Start's is the one that matters
		return fmt.Errorf("tracyfile: the in-process capture did not connect to %s: %w", addr, err)
	}
	return nil
}

// checkOutput refuses a path that is not (or cannot become) a regular
// file, at Start rather than after the whole run.
func checkOutput(path string) error {
	if path == "" {
		return fmt.Errorf("tracyfile: empty output path")
	}
	st, err := os.Lstat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("%w: %s is a %s", ErrNotRegular, path, fileio.Kind(st.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("tracyfile: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("tracyfile: cannot write beside %s: %w", path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
