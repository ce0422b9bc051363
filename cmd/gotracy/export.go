package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gotracy/gotracy/formats/chrome"
	"github.com/gotracy/gotracy/formats/perfetto"
	"github.com/gotracy/gotracy/formats/pprof"
)

// exportFormats maps --format names to writers; perfetto and pprof register
// themselves from their own files.
var exportFormats = map[string]func(w io.Writer, path string, o exportOpts) error{}

type exportOpts struct {
	filter        string
	caseSensitive bool
}

func init() {
	register(&command{
		name:    "export",
		summary: "export a trace as Chrome JSON, Perfetto protobuf or pprof profile",
		usage:   "export FILE.tracy -o OUT [--format chrome|perfetto|pprof] [-f FILTER] [-c] [--force]",
		setup:   setupExport,
	})
	exportFormats["chrome"] = exportChrome
	exportFormats["pprof"] = exportPprof
	exportFormats["perfetto"] = exportPerfetto
}

func exportPerfetto(w io.Writer, path string, o exportOpts) error {
	t, err := loadForExport(path)
	if err != nil {
		return err
	}
	if err := perfetto.Export(w, t, perfetto.Options{Filter: o.filter, CaseSensitive: o.caseSensitive}); err != nil {
		return fmt.Errorf("exporting %s: %w", path, err)
	}
	return nil
}

func exportPprof(w io.Writer, path string, o exportOpts) error {
	t, err := loadForExport(path)
	if err != nil {
		return err
	}
	if err := pprof.Export(w, t, pprof.Options{Filter: o.filter, CaseSensitive: o.caseSensitive}); err != nil {
		return fmt.Errorf("exporting %s: %w", path, err)
	}
	return nil
}

// formatFromName picks the export format from the output's extension.
func formatFromName(out string) string {
	switch {
	case strings.HasSuffix(out, ".json"), strings.HasSuffix(out, ".json.zst"):
		return "chrome"
	case strings.HasSuffix(out, ".perfetto-trace"), strings.HasSuffix(out, ".pftrace"):
		return "perfetto"
	case strings.HasSuffix(out, ".pb.gz"), strings.HasSuffix(out, ".pprof"):
		return "pprof"
	}
	return ""
}

func setupExport(fs *flag.FlagSet) func(*env, []string) error {
	out := fs.String("o", "", "output `file` (required; written atomically)")
	format := fs.String("format", "", "output `format`: chrome, perfetto or pprof (default: from the -o extension: .json/.json.zst, .perfetto-trace/.pftrace, .pb.gz/.pprof)")
	var o exportOpts
	fs.StringVar(&o.filter, "f", "", "export only zones whose name contains `FILTER`")
	alias(fs, "f", "filter")
	fs.BoolVar(&o.caseSensitive, "c", false, "case-sensitive filter")
	alias(fs, "c", "case")
	force := fs.Bool("force", false, "overwrite the output file if it exists")
	return func(e *env, args []string) error {
		if len(args) != 1 {
			return usagef("export needs exactly one trace file")
		}
		if *out == "" {
			return usagef("export needs an output file: -o OUT")
		}
		f := *format
		if f == "" {
			if f = formatFromName(*out); f == "" {
				return usagef("cannot tell the format from %q: give --format chrome, perfetto or pprof", *out)
			}
		}
		write, ok := exportFormats[f]
		if !ok {
			return usagef("unknown --format %q (chrome, perfetto or pprof)", f)
		}
		if err := checkFormatInput(args[0]); err != nil {
			return err
		}
		if err := checkFormatOutput(*out, *force); err != nil {
			return err
		}
		return writeFormatOutput(e.context(), *out, *force, func(w io.Writer) error {
			return write(w, args[0], o)
		})
	}
}

func exportChrome(w io.Writer, path string, o exportOpts) error {
	t, err := loadForExport(path)
	if err != nil {
		return err
	}
	if err := chrome.Export(w, t, chrome.ExportOptions{Filter: o.filter, CaseSensitive: o.caseSensitive}); err != nil {
		return fmt.Errorf("exporting %s: %w", path, err)
	}
	return nil
}
