package goruntime

import "io"

// WithStage cuts the live path short for the overhead decomposition: 1
// parses the trace and drops it, 2 also translates it into a sink that
// drops everything.
func WithStage(n int) Option { return func(c *config) { c.stage = n } }

// ReadTrace runs the live path's reader over a recorded trace (stage as
// in WithStage), sending into the running tracy session, and returns
// its counts.
func ReadTrace(r io.Reader, stage int) Stats {
	done := make(chan struct{})
	read(r, done, stage)
	return ReadStats()
}
