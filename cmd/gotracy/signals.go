package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gotracy/gotracy/internal/fileio"
)

// The signals that end a command: Ctrl-C, and what kill, timeout(1),
// systemd and Docker send to stop a process, and a closed terminal.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// interrupted is the cause of env.ctx / env.abort: the signal received.
type interrupted struct {
	sig    os.Signal
	second bool
}

func (i *interrupted) Error() string {
	s := "interrupted by " + signalName(i.sig)
	if i.second {
		s += " (a second time)"
	}
	return s
}

// exitCode is the shell's convention for death by signal: 128 + its number.
func (i *interrupted) exitCode() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// signals is the process's handling of stopSignals (see handleSignals).
type signals struct {
	graceful atomic.Bool
}

func (s *signals) setGraceful(on bool) { s.graceful.Store(on) }

// abortGrace is how long work that does not watch env.abort gets after the
// second signal before the process exits anyway.
const abortGrace = 3 * time.Second

// handleSignals installs the one signal policy of every command:
//
//   - A graceful command (capture, replay, save, ...) sees the first signal
//     as the cancellation of env.ctx: capture stops and saves what it has,
//     the others stop and write nothing. The second signal cancels
//     env.abort: a save in progress stops, its temporary file is removed.
//     If the command has still not returned abortGrace later, or at a
//     third signal, the process removes every temporary file and exits.
//   - Any other command exits at the first signal, after removing the
//     temporary files of outputs it had started.
//
// Exits caused by a signal use status 128+N, as a shell reports a process
// killed by signal N.
func handleSignals(e *env) *signals {
	s := &signals{}
	abortCtx, abort := context.WithCancelCause(context.Background())
	stopCtx, stop := context.WithCancelCause(abortCtx)
	e.ctx, e.abort = stopCtx, abortCtx
	ch := make(chan os.Signal, 3)
	signal.Notify(ch, stopSignals...)
	exit := func(in *interrupted) {
		fileio.AbortAll()
		fmt.Fprintf(e.stderr, "\ngotracy: %s; stopped, nothing more written\n", in)
		os.Exit(in.exitCode())
	}
	go func() {
		first := &interrupted{sig: <-ch}
		if !s.graceful.Load() {
			exit(first)
		}
		stop(first)
		second := &interrupted{sig: <-ch, second: true}
		abort(second)
		select {
		case sig := <-ch:
			exit(&interrupted{sig: sig, second: true})
		case <-time.After(abortGrace):
			exit(second)
		}
	}()
	return s
}

// signalCause is the signal that ended env.ctx, if one did.
func signalCause(e *env) *interrupted {
	var in *interrupted
	if e.ctx != nil && errors.As(context.Cause(e.ctx), &in) {
		return in
	}
	return nil
}
