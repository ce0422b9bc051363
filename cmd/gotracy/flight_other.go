//go:build !unix

package main

import "os"

// notifySnapshotSignal: there is no SIGUSR1 here; snapshots come from the
// daemon's "s" line only.
func notifySnapshotSignal() (<-chan os.Signal, func()) { return nil, func() {} }
