package main

import (
	"context"

	"github.com/gotracy/gotracy/capture"
)

// The demo's in-process capture (demo -o): a capture server in this process
// connects to the demo's client over loopback, exactly as gotracy capture
// would from outside, and the trace is written like gotracy capture writes
// it.
func init() {
	demoCapture = func(ctx context.Context, e *env, addr string, port int, out string, force bool) (func() error, error) {
		type result struct {
			res *capture.Result
			err error
		}
		ch := make(chan result, 1)
		go func() {
			res, err := capture.Connect(ctx, capture.JoinAddr(addr, port))
			ch <- result{res, err}
		}()
		return func() error {
			r := <-ch
			if r.res == nil || r.res.Trace == nil {
				return r.err
			}
			if err := saveCapture(e, e.abortContext(), r.res, out, force); err != nil {
				return err
			}
			return r.err
		}, nil
	}
}
