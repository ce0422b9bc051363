package main

import (
	"flag"
	"fmt"

	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	register(&command{
		name:     "save",
		summary:  "re-save a .tracy file with another compression or stream count (like tracy-update -z/-j)",
		usage:    "save IN -o OUT [-f] [--lz4 | --zstd LEVEL] [--streams N]",
		graceful: true,
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			out := fs.String("o", "", "output `file` (required; written atomically)")
			force := fs.Bool("f", false, "overwrite the output file if it exists")
			lz4 := fs.Bool("lz4", false, "compress with LZ4 (fast) instead of Zstd")
			zstd := fs.Int("zstd", 3, "Zstd compression `level`, 1..22")
			streams := fs.Int("streams", 4, "number of compression streams, 1..64 (Tracy's save dialog range)")
			return func(e *env, args []string) error {
				if len(args) != 1 {
					return usagef("save needs exactly one input trace file")
				}
				if *out == "" {
					return usagef("save needs an output file: -o OUT")
				}
				zstdSet := false
				fs.Visit(func(f *flag.Flag) {
					if f.Name == "zstd" {
						zstdSet = true
					}
				})
				if *lz4 && zstdSet {
					return usagef("--lz4 and --zstd exclude each other")
				}
				if !*lz4 && (*zstd < 1 || *zstd > 22) {
					return usagef("--zstd level %d outside 1..22", *zstd)
				}
				if *streams < 1 || *streams > 64 {
					return usagef("--streams %d outside 1..64", *streams)
				}
				if err := fileio.CheckOutput(*out, *force); err != nil {
					return err
				}
				t, _, err := loadTraceReport(e, args[0])
				if err != nil {
					return err
				}
				opts := []tracefile.Option{tracefile.WithStreams(*streams)}
				if *lz4 {
					opts = append(opts, tracefile.WithLZ4())
				} else {
					opts = append(opts, tracefile.WithZstd(*zstd))
				}
				var rep tracefile.Report
				line, update := progressLine(e, "saving "+*out)
				opts = append(opts, tracefile.WithReport(&rep), tracefile.WithProgress(update))
				err = saveTrace(e.context(), *out, *force, t, opts...)
				line.Done()
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "%s: %s, %d streams, %d bytes (payload %d bytes, %.1f%%) in %.2f s\n",
					*out, rep.Compression, rep.Streams, rep.FileBytes, rep.PayloadBytes,
					100*float64(rep.FileBytes)/float64(max(rep.PayloadBytes, 1)), rep.Duration.Seconds())
				return nil
			}
		},
	})
}
