//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// notifySnapshotSignal delivers SIGUSR1, the flight recorder's "save a
// snapshot now".
func notifySnapshotSignal() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	return ch, func() { signal.Stop(ch) }
}
