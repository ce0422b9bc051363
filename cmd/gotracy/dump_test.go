package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/protocol"
)

func init() {
	// Several test files of this package refresh golden files with -update;
	// whichever initializes first registers the flag.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files in testdata")
	}
}

func dumpUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// synthStream builds a small client-to-server recording covering the kinds
// of items (fixed, compact times, strings, payloads) in two frames.
func synthStream(t *testing.T, onDemand bool) []byte {
	t.Helper()
	w := protocol.Welcome{TimerMul: 1, InitBegin: 1000, InitEnd: 2000, Resolution: 10, Epoch: 1750000000,
		PID: 42, CPUArch: protocol.CPUArchX64, ProgramName: "synthetic", HostInfo: "OS: test\n",
		Flags: protocol.FlagCodeTransfer}
	if onDemand {
		w.Flags |= protocol.FlagOnDemand
	}
	stream := []byte{byte(protocol.HandshakeWelcome)}
	stream, _ = w.AppendBinary(stream)
	if onDemand {
		od := protocol.OnDemandPayload{Frames: 5, CurrentTime: 123456}
		stream, _ = od.AppendBinary(stream)
	}
	var wire bytes.Buffer
	fw := protocol.NewFrameWriter(&wire)
	var refs protocol.TimeRefs
	var b []byte
	b = refs.AppendThreadContext(b, 0x1234)
	b = refs.AppendZoneBegin(b, 1002000000, 0x555500001000)
	b, _ = protocol.AppendSingleString(b, "zone \"text\"\n")
	b = protocol.AppendZoneText(b)
	b = protocol.AppendZoneColor(b, 0xf0, 0x80, 0x20)
	b = protocol.AppendZoneValue(b, 31)
	b = refs.AppendZoneEnd(b, 1002000500)
	b = protocol.AppendPlotDataDouble(b, 0x77, refs.Delta(protocol.TimeThread, 1002000600), 0.5)
	b = protocol.AppendFrameMarkMsg(b, 1003000000, 0)
	if err := fw.WriteItems(b); err != nil {
		t.Fatal(err)
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	b = b[:0]
	b, _ = protocol.AppendCallstackPayloadFrames(b, 1, []uint64{0x401000, 0x402000})
	b = protocol.AppendCallstackSerial(b)
	b = protocol.AppendMemAllocCallstack(b, refs.Delta(protocol.TimeSerial, 1002000700), 0x1234, 0xdead0, 4096)
	b, _ = protocol.AppendAllocSourceLocation(b, 7, &protocol.SourceLocationData{Color: 0x2080f0, Line: 1000, Function: "capi_named_fn", File: "demo.cpp", Name: "capi_zone"})
	b = protocol.AppendZoneBeginAllocSrcLoc(b, refs.Delta(protocol.TimeThread, 1002000800))
	b = refs.AppendZoneEnd(b, 1002000900+5000000000)
	b = protocol.AppendSourceLocation(b, 0x2000, 0x2010, 0x2020, 42, 0, 0, 0)
	b, _ = protocol.AppendThreadName(b, 0x1234, "Main thread")
	b, _ = protocol.AppendStringData(b, 0x2000, "DemoZone")
	b = protocol.AppendMessageLiteral(b, 1003000100, 0x2000<<8|0x20)
	b, _ = protocol.AppendSymbolCode(b, 0x401000, []byte{0x55, 0x48, 0x89, 0xe5, 0xc3})
	b = protocol.AppendPlotDataFloat(b, 0x78, refs.Delta(protocol.TimeThread, 1002001000), -1.25)
	b = protocol.AppendAckServerQueryNoop(b)
	if err := fw.WriteItems(b); err != nil {
		t.Fatal(err)
	}
	_ = fw.Flush()
	_ = fw.WriteItems(protocol.AppendTerminate(nil))
	_ = fw.Flush()
	return append(stream, wire.Bytes()...)
}

// txtar reads and writes the minimal archive form of golang.org/x/tools/txtar
// ("-- name --" lines), which is all the golden files need.
func parseTxtar(data string) map[string]string {
	files := map[string]string{}
	var name string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(data, "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --\n") {
			if name != "" {
				files[name] = cur.String()
			}
			name = strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --\n")
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	if name != "" {
		files[name] = cur.String()
	}
	return files
}

func formatTxtar(comment string, names []string, files map[string]string) string {
	var b strings.Builder
	b.WriteString(comment)
	for _, n := range names {
		b.WriteString("-- " + n + " --\n")
		b.WriteString(files[n])
	}
	return b.String()
}

// TestDumpGolden checks the three output forms of dump on synthetic streams
// against testdata/dump*.txtar (refresh with go test -run Golden -update).
func TestDumpGolden(t *testing.T) {
	for _, c := range []struct {
		golden   string
		onDemand bool
	}{{"dump.txtar", false}, {"dump-ondemand.txtar", true}} {
		dir := t.TempDir()
		raw := filepath.Join(dir, "synthetic.c2s.bin")
		if err := os.WriteFile(raw, synthStream(t, c.onDemand), 0o644); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, mode := range []struct{ name, flag string }{{"items", "--items"}, {"json", "--json"}, {"summary", ""}} {
			args := []string{"dump", raw}
			if mode.flag != "" {
				args = append(args, mode.flag)
			}
			out, errOut, code := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", c.golden, mode.name, code, errOut)
			}
			got[mode.name] = out
		}
		path := filepath.Join("testdata", c.golden)
		names := []string{"items", "json", "summary"}
		if dumpUpdate() {
			comment := "gotracy dump of a synthetic stream built by synthStream in dump_test.go.\n"
			if err := os.WriteFile(path, []byte(formatTxtar(comment, names, got)), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		want := parseTxtar(string(data))
		for _, n := range names {
			if got[n] != want[n] {
				t.Errorf("%s: %s output differs\n got:\n%s\nwant:\n%s", c.golden, n, got[n], want[n])
			}
		}
	}
}

// TestDumpMalformed: a corrupt stream ends with exit 1 and an error naming
// the offset and item type; items before it are printed.
func TestDumpMalformed(t *testing.T) {
	good := synthStream(t, false)
	dir := t.TempDir()
	// Replace the first frame with one holding a ZoneEnd16 then tag 66.
	bad := append([]byte{}, good[:1+protocol.WelcomeSize]...)
	bad = append(bad, 5, 0, 0, 0, 0x40, byte(protocol.ZoneEnd16), 1, 0, 66)
	raw := filepath.Join(dir, "bad.bin")
	os.WriteFile(raw, bad, 0o644)
	out, errOut, code := runCLI(t, "dump", "--items", raw)
	if code != 1 || !strings.Contains(errOut, "decoded offset 3") || !strings.Contains(errOut, "SymbolCodeMetadata") ||
		!strings.Contains(errOut, "stream offset 1171") || !strings.Contains(errOut, "unknown item") {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
	if out != "ZoneEnd16 time=1\n" {
		t.Errorf("items before the error: %q", out)
	}
	// A truncated frame.
	os.WriteFile(raw, good[:len(good)-3], 0o644)
	if _, errOut, code := runCLI(t, "dump", raw); code != 1 || !strings.Contains(errOut, "truncated") || !strings.Contains(errOut, "stream offset") {
		t.Errorf("truncated: code %d, stderr %q", code, errOut)
	}
	// Not a stream at all.
	os.WriteFile(raw, []byte("TracyPrf"), 0o644)
	if _, errOut, code := runCLI(t, "dump", raw); code != 1 || !strings.Contains(errOut, "bad handshake") {
		t.Errorf("garbage: code %d, stderr %q", code, errOut)
	}
	if _, _, code := runCLI(t, "dump"); code != 2 {
		t.Errorf("no argument: code %d", code)
	}
	if _, _, code := runCLI(t, "dump", filepath.Join(dir, "missing")); code != 1 {
		t.Errorf("missing file: code %d", code)
	}
}

// TestDumpFixtures: the JSON counts of real recordings agree with the
// recording's size and with --items (one line per item).
func TestDumpFixtures(t *testing.T) {
	names := []string{"demo", "demo-ondemand", "heavy1m"}
	if race.Enabled {
		names = names[:1] // the others take tens of seconds under -race
	}
	for _, name := range names {
		p := fixtures.Path(t, name+".c2s.bin")
		out, errOut, code := runCLI(t, "dump", "--json", p)
		if code != 0 {
			t.Fatalf("%s: %s", name, errOut)
		}
		var got struct {
			Program string           `json:"program"`
			Bytes   int64            `json:"bytes"`
			Frames  int              `json:"frames"`
			Items   map[string]int64 `json:"items"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(p)
		if got.Bytes != st.Size() || got.Frames == 0 || !strings.HasPrefix(got.Program, "tracy-client-demo") && !strings.HasPrefix(got.Program, "tracy") {
			t.Errorf("%s: %+v", name, got)
		}
		var total int64
		for _, n := range got.Items {
			total += n
		}
		if name == "heavy1m" {
			if got.Items["ZoneBegin16"]+got.Items["ZoneBegin32"]+got.Items["ZoneBegin"] != 1000000 || got.Items["FrameMarkMsg"] != 10 {
				t.Errorf("heavy1m counts %v", got.Items)
			}
			continue
		}
		items, _, code := runCLI(t, "dump", "--items", p)
		if code != 0 || int64(strings.Count(items, "\n")) != total {
			t.Errorf("%s: --items has %d lines, JSON counts %d items", name, strings.Count(items, "\n"), total)
		}
	}
}
