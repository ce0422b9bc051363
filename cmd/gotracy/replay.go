package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/gotracy/gotracy/capture"
)

func init() {
	register(&command{
		name:    "replay",
		summary: "run the capture pipeline over a recorded client stream and save a .tracy file",
		usage:   "replay RAW -o FILE.tracy [-f] [--symbols client|server|none] [--symbol-path DIRS]",
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			out := fs.String("o", "", "output `file` (required)")
			force := fs.Bool("f", false, "overwrite the output file if it exists")
			sym := addSymbolFlags(fs)
			return func(e *env, args []string) error {
				if len(args) != 1 {
					return usagef("replay needs exactly one recorded stream (NAME.c2s.bin or a --record file)")
				}
				if *out == "" {
					return usagef("replay needs an output file: -o FILE.tracy")
				}
				symOpt, closeSym, err := sym.option()
				if err != nil {
					return err
				}
				defer closeSym()
				if err := checkOutput(*out, *force); err != nil {
					return err
				}
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
				defer stop()
				res, err := capture.Replay(ctx, bufio.NewReaderSize(f, 1<<20), symOpt)
				if res == nil || res.Trace == nil {
					return err
				}
				if err != nil {
					fmt.Fprintf(e.stderr, "gotracy replay: %s\n", describeError(err))
				}
				fmt.Fprintf(e.stdout, "Replayed %s: %s received, %s events", args[0], memSize(res.Stats.BytesIn), commas(uint64(res.Stats.Events)))
				if res.Symbols != nil {
					fmt.Fprintln(e.stdout)
					printSymbolizeReport(e, res.Symbols, false)
				}
				if serr := saveCapture(e, res, *out); serr != nil {
					return serr
				}
				if err != nil {
					return &reportedError{err}
				}
				return nil
			}
		},
	})
}
