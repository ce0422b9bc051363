package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/internal/fileio"
)

func init() {
	register(&command{
		name:     "replay",
		summary:  "run the capture pipeline over a recorded client stream and save a .tracy file",
		usage:    "replay RAW -o FILE.tracy [-f] [--symbols client|server|none] [--symbol-path DIRS]   (RAW may be - for standard input)",
		graceful: true,
		help: "A recording that ends after the client's Terminate but before the answers to the\n" +
			"server's queries (names, call-stack frames, source locations) is saved, with a warning\n" +
			"on stderr that counts what is missing, and the exit status is 1: such a trace looks\n" +
			"complete but is not. A failed replay writes nothing.",
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			out := fs.String("o", "", "output `file` (required)")
			force := fs.Bool("f", false, "overwrite the output file if it exists")
			sym := addSymbolFlags(fs)
			return func(e *env, args []string) error {
				if len(args) != 1 {
					return usagef("replay needs exactly one recorded stream (NAME.c2s.bin or a capture --record file), got %d arguments", len(args))
				}
				if *out == "" {
					return usagef("replay needs an output file: -o FILE.tracy")
				}
				symOpt, closeSym, err := sym.option()
				if err != nil {
					return err
				}
				defer closeSym()
				if err := fileio.CheckOutput(*out, *force); err != nil {
					return err
				}
				f, err := openInput(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				if args[0] != "-" && sniff(args[0]) == kindTrace {
					return &wrongKindError{path: args[0], is: "a .tracy trace file", want: "a recorded client stream",
						hint: "replay turns recordings (NAME.c2s.bin, capture --record) into traces; this one is a trace already"}
				}
				res, err := capture.Replay(e.context(), bufio.NewReaderSize(f, 1<<20), symOpt)
				if res == nil || res.Trace == nil {
					return err
				}
				if in := signalCause(e); in != nil && res.Stop == capture.StopCancelled {
					// A replay can simply be run again: a signal stops it
					// without writing a partial trace that looks complete.
					return in
				}
				if err != nil {
					var ue *capture.UnansweredError
					if errors.As(err, &ue) {
						fmt.Fprintf(e.stderr, "gotracy replay: warning: %s\n", strings.TrimPrefix(describeError(err), "replay: "))
					} else {
						fmt.Fprintf(e.stderr, "gotracy replay: %s\n", strings.TrimPrefix(describeError(err), "replay: "))
					}
				}
				fmt.Fprintf(e.stdout, "Replayed %s: %s received, %s events", args[0], memSize(res.Stats.BytesIn), commas(uint64(res.Stats.Events)))
				if res.Symbols != nil {
					fmt.Fprintln(e.stdout)
					printSymbolizeReport(e, res.Symbols, false)
				}
				// A replay can be run again: the first signal abandons
				// its save too.
				if serr := saveCapture(e, e.context(), res, *out, *force); serr != nil {
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
