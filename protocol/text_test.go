package protocol

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files in testdata")
	}
}

func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestTextFormGolden pins the text form of every queue type (the form of
// gotracy dump --items) in testdata/every-type.txt; refresh with -update.
func TestTextFormGolden(t *testing.T) {
	var out []byte
	v := uint64(0)
	generatedEncodings(func() uint64 { v = v*6364136223846793005 + 1442695040888963407; return v >> (v % 64) },
		func() string { return "str\"\n\x00" },
		func(typ QueueType, b []byte, err error, _ []uint64, _ uint64, _ string) {
			if err != nil {
				return // the 16-bit string forms need 256+ bytes; covered below
			}
			out = Item{Type: typ, Raw: b}.AppendText(out)
			out = append(out, '\n')
		})
	long := bytes.Repeat([]byte("L"), 300)
	for _, f := range []func([]byte, []byte) ([]byte, error){AppendSingleStringData[[]byte], AppendSecondStringData[[]byte]} {
		b, _ := f(nil, long)
		out = Item{Type: QueueType(b[0]), Raw: b}.AppendText(out)
		out = append(out, '\n')
	}
	b, _ := AppendCallstackPayloadFrames(nil, 9, []uint64{0x7f0000001000, 0xffffffff81000000})
	out = append(Item{Type: CallstackPayload, Raw: b}.AppendText(out), '\n')
	b, _ = AppendAllocSourceLocation(nil, 3, &SourceLocationData{Color: 0xf0a020, Line: 12, Function: "fn", File: "a.cpp", Name: "zone"})
	out = append(Item{Type: SourceLocationPayload, Raw: b}.AppendText(out), '\n')
	path := filepath.Join("testdata", "every-type.txt")
	if updateGolden() {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("text form changed; diff against %s (refresh with -update if intended)\n%s", path, out)
	}
}
