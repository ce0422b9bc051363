package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gotracy/gotracy/formats/chrome"
	"github.com/gotracy/gotracy/formats/fuchsia"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	register(&command{
		name:    "import",
		summary: "convert a Chrome JSON (.json) or Fuchsia (.fxt) trace, optionally .zst, into a .tracy file, as Tracy's importers",
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
		if read == nil {
			return usagef("cannot tell the input format of %q: expected a name ending in .json or .fxt (optionally .zst)", in)
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
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
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
		return nil
	}
}

// loadForExport loads a .tracy file for an exporter.
func loadForExport(path string) (*model.Trace, error) {
	return tracefile.ReadFile(path)
}
