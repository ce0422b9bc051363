package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/symbolize"
	"github.com/gotracy/gotracy/symbols"
)

func init() {
	register(&command{
		name:     "symbolize",
		summary:  "resolve the call-stack frames of a saved trace offline (like tracy-update -r/-R/-p)",
		usage:    "symbolize FILE.tracy -o OUT [-f] [-v] [--symbol-path DIRS] [--substitute 'REGEX;REPL'] [--reset] [--image-id PATH=ID] [--debuginfod URL]",
		setup:    setupSymbolize,
		graceful: true,
	})
}

func setupSymbolize(fs *flag.FlagSet) func(*env, []string) error {
	out := fs.String("o", "", "output `file` (required; written atomically, may be the input with -f)")
	force := fs.Bool("f", false, "overwrite the output file if it exists")
	symPath := fs.String("symbol-path", "", "`directories` to search for images and debug files, separated by '"+string(filepath.ListSeparator)+"'")
	var subst, ids multiFlag
	fs.Var(&subst, "substitute", "rewrite recorded image paths: 'REGEX;REPLACEMENT' (repeatable; Tracy's update -p)")
	fs.Var(&ids, "image-id", "expect build id `PATH=ID` for an image (hex GNU id, go:ID; repeatable): other files are rejected")
	reset := fs.Bool("reset", false, "re-resolve every frame whose address is known, also frames resolved before (Tracy's update -R)")
	debuginfod := fs.String("debuginfod", "", "fetch debug files by build id from this debuginfod `URL`")
	verbose := fs.Bool("v", false, "print an example error for every reason a frame stayed unresolved")
	return func(e *env, args []string) error {
		if len(args) != 1 {
			return usagef("symbolize needs exactly one input trace file")
		}
		if *out == "" {
			return usagef("symbolize needs an output file: -o OUT")
		}
		opts := []symbols.Option{symbols.WithSearchPath(splitList(*symPath)...)}
		for _, s := range subst {
			o, err := symbols.ParseSubstitution(s)
			if err != nil {
				return usagef("--substitute: %v", err)
			}
			opts = append(opts, o)
		}
		if *debuginfod != "" {
			opts = append(opts, symbols.WithDebuginfod(*debuginfod, nil, ""))
		}
		sopt := symbolize.Options{Reset: *reset, IDs: map[string]symbols.ID{}}
		for _, s := range ids {
			p, v, ok := strings.Cut(s, "=")
			if !ok || p == "" {
				return usagef("--image-id %q: want PATH=ID", s)
			}
			id, err := symbols.ParseID(v)
			if err != nil {
				return usagef("--image-id %q: %v", s, err)
			}
			sopt.IDs[p] = id
		}
		if err := fileio.CheckOutput(*out, *force); err != nil {
			return err
		}
		r, err := symbols.New(opts...)
		if err != nil {
			return usagef("%v", err)
		}
		defer r.Close()

		t, _, err := loadTraceReport(e, args[0])
		if err != nil {
			return err
		}
		rep, err := symbolize.Trace(e.context(), t, r, sopt)
		if in := signalCause(e); in != nil {
			return in
		}
		if err != nil {
			return err
		}
		printSymbolizeReport(e, rep, *verbose)
		if err := saveTrace(e.context(), *out, *force, t); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Saved %s\n", *out)
		return nil
	}
}

// printSymbolizeReport prints what was resolved, per image, and why the
// rest was not: a rejected debug file must be visible, not silent.
func printSymbolizeReport(e *env, rep *symbolize.Report, verbose bool) {
	fmt.Fprintf(e.stdout, "Call-stack frames: %s; asked: %s; resolved: %s; unresolved: %s\n",
		commas(uint64(rep.Frames)), commas(uint64(rep.Candidates)), commas(uint64(rep.Resolved)), commas(uint64(rep.Unresolved)))
	if rep.Unaddressable > 0 {
		fmt.Fprintf(e.stdout, "Kept as they were: %s frames resolved by the client in images whose load address the trace does not record\n",
			commas(uint64(rep.Unaddressable)))
	}
	for _, im := range rep.Images {
		if im.Asked == 0 {
			continue
		}
		id := ""
		if !im.ID.IsZero() {
			id = " (id " + im.ID.String() + ")"
		}
		fmt.Fprintf(e.stdout, "  %s%s: %d of %d resolved\n", im.Path, id, im.Resolved, im.Asked)
		for _, why := range im.Reasons {
			fmt.Fprintf(e.stdout, "    %d unresolved: %s\n", why.Count, reasonText(why, verbose))
		}
	}
}

func reasonText(r symbolize.Reason, verbose bool) string {
	var s string
	switch r.Kind {
	case symbols.ErrBuildIDMismatch:
		s = "a file was found but its build id differs from the recorded one (not used)"
	case symbols.ErrImageNotFound:
		s = "image not found (try --symbol-path or --substitute)"
	case symbols.ErrNoDebugInfo:
		s = "no debug information or symbols in the image"
	case symbols.ErrAddressNotFound, symbolize.ErrNoFunction:
		s = "no function at the address"
	default:
		s = r.Kind.Error()
	}
	// The mismatch names the rejected file and both ids: always worth
	// showing. Other examples only on request.
	if r.Example != nil && (verbose || r.Kind == symbols.ErrBuildIDMismatch) {
		s += ": " + r.Example.Error()
	}
	return s
}
