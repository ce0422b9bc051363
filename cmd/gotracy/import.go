package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gotracy/gotracy/formats/chrome"
	"github.com/gotracy/gotracy/formats/fuchsia"
	"github.com/gotracy/gotracy/formats/gotrace"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	register(&command{
		name:    "import",
		summary: "convert a Go execution trace (go test -trace, runtime/trace), a Chrome JSON (.json) or a Fuchsia (.fxt) trace, optionally .zst, into a .tracy file",
		usage:   "import IN -o OUT.tracy [-f]",
		setup:   setupImport,
	})
}

// importers maps an input's extension to its reader; the Fuchsia importer
// registers itself from its own file.
var importers = map[string]func(r io.Reader, in, out string) (*model.Trace, error){
	".json": importChrome,
	".fxt":  importFuchsia,
}

func importFuchsia(r io.Reader, in, out string) (*model.Trace, error) {
	return fuchsia.Import(r, fuchsia.ImportOptions{CaptureName: out, CaptureProgram: in})
}

func importChrome(r io.Reader, in, out string) (*model.Trace, error) {
	return chrome.Import(r, chrome.ImportOptions{CaptureName: out, CaptureProgram: in})
}

func importGoTrace(r io.Reader, in, out string) (*model.Trace, error) {
	return gotrace.Import(r, gotrace.ImportOptions{CaptureName: out, CaptureProgram: in})
}

// sniffGoTrace reports whether the input starts with a Go execution
// trace's header.
func sniffGoTrace(in string) (bool, error) {
	r, closeIn, err := openFormatInput(in)
	if err != nil {
		return false, err
	}
	defer closeIn()
	var h [16]byte
	n, _ := io.ReadFull(r, h[:])
	return gotrace.Header(h[:n]), nil
}

func setupImport(fs *flag.FlagSet) func(*env, []string) error {
	out := fs.String("o", "", "output .tracy `file` (required; written atomically)")
	force := fs.Bool("f", false, "overwrite the output file if it exists")
	alias(fs, "f", "force")
	return func(e *env, args []string) error {
		if len(args) != 1 {
			return usagef("import needs exactly one input file")
		}
		if *out == "" {
			return usagef("import needs an output file: -o OUT.tracy")
		}
		in := args[0]
		ext := strings.TrimSuffix(in, ".zst")
		var read func(io.Reader, string, string) (*model.Trace, error)
		for k, f := range importers {
			if strings.HasSuffix(ext, k) {
				read = f
			}
		}
		// A Go execution trace is recognised by its header, whatever its name.
		goTrace, err := sniffGoTrace(in)
		if err != nil {
			return err
		}
		if goTrace {
			read = importGoTrace
		}
		if read == nil {
			return usagef("cannot tell the input format of %q: expected a Go execution trace (header \"go 1.NN trace\") or a name ending in .json or .fxt (optionally .zst)", in)
		}
		if err := checkFormatOutput(*out, *force); err != nil {
			return err
		}
		r, closeIn, err := openFormatInput(in)
		if err != nil {
			return err
		}
		t, err := read(r, in, *out)
		closeIn()
		var partial error
		if err != nil {
			var ge *gotrace.Error
			if t == nil || !errors.As(err, &ge) {
				return fmt.Errorf("%s: %w", in, err)
			}
			partial = fmt.Errorf("%s: %w", in, err) // saved below, then reported
		}
		// LZ4 in 2 streams, as Tracy's importers save (FileCompression::Fast);
		// `gotracy save` recompresses.
		err = writeFormatOutput(e.context(), *out, *force, func(w io.Writer) error {
			return tracefile.Write(w, t, tracefile.WithLZ4(), tracefile.WithStreams(2))
		})
		if err != nil {
			return fmt.Errorf("saving %s: %w", *out, err)
		}
		fmt.Fprintf(e.stdout, "%s: %d zones, %d messages, %d plots, %d threads\n", *out, t.ZoneCount(), len(t.Messages), len(t.Plots), len(t.Threads))
		return partial
	}
}

// loadForExport loads a .tracy file for an exporter.
func loadForExport(path string) (*model.Trace, error) {
	return tracefile.ReadFile(path)
}
