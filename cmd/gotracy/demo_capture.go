package main

import (
	"context"
	"fmt"

	"github.com/gotracy/gotracy/capture"
)

// The demo's in-process capture (demo -o): a capture server in this process
// connects to the demo's client over loopback, exactly as gotracy capture
// would from outside, and the trace is written like gotracy capture writes
// it.
func init() {
	demoCapture = func(ctx context.Context, e *env, addr string, port int, out string, force bool, view *demoView) (func() error, func(), error) {
		type result struct {
			res *capture.Result
			err error
		}
		var lv *liveViewer
		var opts []capture.Option
		if view != nil {
			var err error
			if lv, err = startLiveViewer(view.http, out, force); err != nil {
				return nil, nil, err
			}
			lv.warnPublic(e, "demo")
			fmt.Fprintf(e.stderr, "gotracy demo: live at %s\n", lv.url)
			if view.open {
				openBrowser(e, lv.url)
			}
			opts = append(opts, capture.WithPublisher(lv.pub))
		}
		ch := make(chan result, 1)
		go func() {
			res, err := capture.Connect(ctx, capture.JoinAddr(addr, port), opts...)
			ch <- result{res, err}
		}()
		wait := func() error {
			r := <-ch
			if r.res == nil || r.res.Trace == nil || out == "" {
				return r.err
			}
			save := func() error { return saveCapture(e, e.abortContext(), r.res, out, force) }
			if lv != nil {
				save = func() error { return lv.finalSave(e, e.abortContext(), r.res) }
			}
			if err := save(); err != nil {
				return err
			}
			return r.err
		}
		var hold func()
		if lv != nil {
			hold = func() {
				fmt.Fprintf(e.stderr, "gotracy demo: finished; the page stays up at %s (Ctrl-C to stop)\n", lv.url)
				<-e.context().Done()
				lv.close()
			}
		}
		return wait, hold, nil
	}
}
