package fuchsia

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/tracefile"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.fxt and the golden csv files")

// TestImportGolden imports testdata/golden.fxt (built by golden() from the
// specification's record layouts) and compares csv outputs with goldens
// checked by hand against Tracy 0.14's import-fuchsia rules and the
// specification where they differ: 2e9 ticks per second halve every
// timestamp (Tracy would not), string 6 is "Job::Load" (Tracy:
// "Job::Loade"), the shift is the first zone event (1000 ns), a double
// prints as %.5f, the counter's string argument is not plotted.
func TestImportGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden.fxt")
	if *update {
		os.WriteFile(path, golden(), 0o644)
	}
	in, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in, golden()) {
		t.Fatal("testdata/golden.fxt differs from golden(): run with -update")
	}
	tr, err := Import(bytes.NewReader(in), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := tracefile.Write(&file, tr); err != nil {
		t.Fatal(err)
	}
	if tr, err = tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len())); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		o    analysis.CSVOptions
	}{
		{"golden.csv", analysis.CSVOptions{}},
		{"golden.unwrap.csv", analysis.CSVOptions{Unwrap: true, Plots: true}},
		{"golden.messages.csv", analysis.CSVOptions{Messages: true}},
	} {
		c.o.Separator = ","
		var got bytes.Buffer
		if err := analysis.WriteCSV(&got, tr, c.o); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join("testdata", c.file)
		if *update {
			os.WriteFile(p, got.Bytes(), 0o644)
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs:\n got:\n%s\nwant:\n%s", c.file, got.Bytes(), want)
		}
	}
	names := map[string]bool{}
	for _, th := range tr.Threads {
		names[tr.ThreadName(th.ID)] = true
	}
	for _, n := range []string{"(PID 100 TID 1) main", "PID 100 TID 3", "PID 100 TID 2"} {
		if !names[n] {
			t.Errorf("no thread named %q (have %v)", n, names)
		}
	}
	if len(tr.FrameSets) != 1 || len(tr.FrameSets[0].Frames) != 1 {
		t.Errorf("frame sets %+v, want the one \"Frame\" set", tr.FrameSets)
	}
	if tr.Metadata.LastTime != 9000 {
		t.Errorf("LastTime %d, want 9000", tr.Metadata.LastTime)
	}
}

func TestImportErrors(t *testing.T) {
	var ok fxt
	ok.magic()
	cases := map[string][]byte{
		"empty":     nil,
		"not fxt":   []byte("{\"traceEvents\":[]}"),
		"cut":       append(append([]byte{}, ok.b...), 0x24, 0, 0),
		"zero size": append(append([]byte{}, ok.b...), make([]byte, 8)...),
	}
	var short fxt
	short.magic()
	short.word(recEvent | 5<<4) // says 5 words, has 1
	cases["truncated record"] = short.b
	var undef fxt
	undef.magic()
	undef.event(evBegin, thr{idx: 9}, ref{}, ref{inline: "x"}, 1, nil)
	cases["undefined thread"] = undef.b
	for name, in := range cases {
		_, err := Import(bytes.NewReader(in), ImportOptions{})
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want a *FormatError", name, err)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
}

// FuzzImport: arbitrary bytes give a trace the .tracy writer accepts or a
// *FormatError with an offset inside the input, never a panic.
func FuzzImport(f *testing.F) {
	f.Add(golden())
	var m fxt
	m.magic()
	f.Add(m.b)
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Import(bytes.NewReader(data), ImportOptions{})
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *FormatError", err, err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(data)) {
				t.Fatalf("offset %d outside the %d-byte input", fe.Offset, len(data))
			}
			return
		}
		if err := tracefile.WritePayload(io.Discard, tr); err != nil {
			t.Fatalf("imported trace is not writable: %v", err)
		}
	})
}
