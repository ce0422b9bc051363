package tracefile

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
)

var updateSeeds = flag.Bool("update", false, "rewrite the checked-in fuzz seed corpus")

func payloadOf(t testing.TB, tr *model.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePayload(&buf, tr); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestMinimalTrace(t *testing.T) {
	tr := model.New()
	tr.Metadata.LastTime = 1
	p := payloadOf(t, tr)
	got, err := ReadPayload(bytes.NewReader(p), int64(len(p)))
	if err != nil {
		t.Fatal(err)
	}
	if d := diffTraces(tr, got); d != "" {
		t.Fatal(d)
	}
	if s, _ := got.PtrString(0); s != "Frame" {
		t.Fatalf("base frame set name %q", s)
	}
}

func withVersion(p []byte, major, minor, patch byte) []byte {
	q := bytes.Clone(p)
	q[5], q[6], q[7] = major, minor, patch
	return q
}

func TestVersionErrors(t *testing.T) {
	p := payloadOf(t, genTrace(1, 10))
	cases := []struct {
		payload []byte
		want    error
		version uint32
	}{
		{withVersion(p, 0, 14, 1), ErrUnsupportedVersion, ver(0, 14, 1)},
		{withVersion(p, 1, 0, 0), ErrUnsupportedVersion, ver(1, 0, 0)},
		{withVersion(p, 0, 8, 9), ErrLegacyVersion, ver(0, 8, 9)},
		{append([]byte("trace\x00\x0e\x00"), p[8:]...), ErrLegacyVersion, ver(0, 2, 0)},
	}
	for _, c := range cases {
		_, err := ReadPayload(bytes.NewReader(c.payload), int64(len(c.payload)))
		var ve *VersionError
		if !errors.Is(err, c.want) || !errors.As(err, &ve) || ve.Version != c.version {
			t.Errorf("%q: got %v, want %v for version %s", c.payload[:8], err, c.want, VersionString(c.version))
		}
	}
	_, err := ReadPayload(bytes.NewReader(withVersion(p, 0, 8, 0)), int64(len(p)))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("tracy-update")) {
		t.Errorf("legacy error does not name the update tool: %v", err)
	}
}

func TestCorruptErrors(t *testing.T) {
	p := payloadOf(t, genTrace(2, 200))
	// Every truncation is a typed corruption error with an offset inside
	// the payload, never a panic or success.
	cuts := 3000
	if race.Enabled {
		cuts = 400
	}
	step := max(1, len(p)/cuts)
	for n := 8; n < len(p); n += step {
		_, err := ReadPayload(bytes.NewReader(p[:n]), int64(n))
		var ce *CorruptError
		if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated at %d: %v", n, err)
		}
		if ce.Offset < 0 || ce.Offset > int64(n) || ce.Section == "" {
			t.Fatalf("truncated at %d: offset %d section %q", n, ce.Offset, ce.Section)
		}
		// Also with no size bound: the reader runs into the end instead.
		if _, err := ReadPayload(bytes.NewReader(p[:n]), -1); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated at %d, unbounded: %v", n, err)
		}
	}
	// Trailing bytes.
	q := append(bytes.Clone(p), 0)
	if _, err := ReadPayload(bytes.NewReader(q), int64(len(q))); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing byte: %v", err)
	}
	// A huge count: rejected before allocating.
	tr := model.New()
	q = payloadOf(t, tr)
	off := bytes.Index(q, []byte("Frame")) - 24 // string table count, before {ptr, len}
	bad := bytes.Clone(q)
	copy(bad[off:], []byte{0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0})
	_, err := ReadPayload(bytes.NewReader(bad), int64(len(bad)))
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Offset != int64(off) || ce.Section != "string table" {
		t.Fatalf("huge string count: %v", err)
	}
}

func TestWriterRejectsInvalid(t *testing.T) {
	for name, mut := range map[string]func(*model.Trace){
		"no frame set":      func(tr *model.Trace) { tr.FrameSets = nil },
		"bad srcloc":        func(tr *model.Trace) { tr.Threads[0].Zones.At(0).SrcLoc = 300 },
		"bad extra":         func(tr *model.Trace) { tr.Threads[0].Zones.At(0).SetExtra(1 << 20) },
		"bad next":          func(tr *model.Trace) { tr.Threads[0].Zones.At(0).SetNext(0) },
		"next past the end": func(tr *model.Trace) { zs := &tr.Threads[0].Zones; zs.At(0).SetNext(uint32(zs.Len() + 1)) },
		// The last zone in pre-order is a leaf: a bad source location after
		// good ones in the same run of leaves.
		"bad srcloc last":   func(tr *model.Trace) { zs := &tr.Threads[0].Zones; zs.At(zs.Len() - 1).SrcLoc = 300 },
		"bad call stack":    func(tr *model.Trace) { tr.Messages[0].CallStack = 99 },
		"bad string":        func(tr *model.Trace) { tr.ZoneExtras[0].Text = 1 << 20 },
		"bad image":         func(tr *model.Trace) { tr.FrameImages[0].Data = tr.FrameImages[0].Data[:3] },
		"bad packed image":  func(tr *model.Trace) { tr.FrameImages[0].Packed = true },
		"long capture name": func(tr *model.Trace) { tr.Metadata.CaptureName = string(make([]byte, 1024)) },
	} {
		tr := genTrace(3, 100)
		mut(tr)
		var buf bytes.Buffer
		if err := WritePayload(&buf, tr); !errors.Is(err, ErrInvalidTrace) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestContainerErrors(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("tr"), []byte("hello world"), []byte("tr\xfdP\x07\x01")} {
		if _, err := Read(bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrNotTrace) {
			t.Errorf("%q: %v", data, err)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, genTrace(4, 5000), WithLZ4(), WithStreams(2)); err != nil {
		t.Fatal(err)
	}
	f := buf.Bytes()
	for _, n := range []int{7, 20, len(f) / 2, len(f) - 1} {
		if _, err := Read(bytes.NewReader(f[:n]), int64(n)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("file cut at %d: %v", n, err)
		}
	}
	p := filepath.Join(t.TempDir(), "x.tracy")
	if err := os.WriteFile(p, []byte("not a trace at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); !errors.Is(err, ErrNotTrace) {
		t.Errorf("ReadFile: %v", err)
	}
}

// checkLoad is the fuzz property: the payload loads, or is rejected with
// one of the documented errors; and the reader allocates no more than a
// fixed multiple of the input plus a constant.
func checkLoad(t *testing.T, data []byte) {
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	tr, err := ReadPayload(bytes.NewReader(data), int64(len(data)))
	runtime.ReadMemStats(&ms1)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrLegacyVersion) && !errors.Is(err, ErrUnsupportedVersion) {
			t.Fatalf("untyped error: %v", err)
		}
	} else {
		// A loaded trace must be writable again.
		var buf bytes.Buffer
		if werr := WritePayload(&buf, tr); werr != nil && !errors.Is(werr, ErrInvalidTrace) {
			t.Fatalf("rewrite: %v", werr)
		}
	}
	if alloc := ms1.TotalAlloc - ms0.TotalAlloc; alloc > uint64(64*len(data))+4<<20 {
		t.Fatalf("%d-byte payload made the reader allocate %d bytes", len(data), alloc)
	}
}

func FuzzReadPayload(f *testing.F) {
	// The seed corpus lives in testdata/fuzz/FuzzReadPayload (regenerate
	// with -update); these add the generated traces directly.
	f.Add(payloadOf(f, genTrace(5, 50)))
	f.Fuzz(checkLoad)
}

// TestWriteSeedCorpus regenerates the checked-in seeds with -update; without
// it, it checks that they are present and each one passes the property.
func TestWriteSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReadPayload")
	seeds := map[string][]byte{}
	minimal := model.New()
	seeds["minimal"] = payloadOf(t, minimal)
	full := payloadOf(t, genTrace(6, 40))
	seeds["all-sections"] = full
	seeds["truncated"] = full[:len(full)/2]
	var old bytes.Buffer
	if err := WritePayload(&old, genTrace(6, 40), withWriteVersion(ver(0, 11, 0))); err != nil {
		t.Fatal(err)
	}
	seeds["old-version"] = old.Bytes()
	if *updateSeeds {
		// The opening of a real capture: metadata, frames, strings, cut
		// short.
		seeds["demo-prefix"] = fixturePayload(t, "demo.tracy")[:12<<10]
	}
	if *updateSeeds {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range seeds {
			content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name := range seeds {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("seed %s missing (run go test -run TestWriteSeedCorpus -update): %v", name, err)
		}
	}
	for name, b := range seeds {
		t.Run(name, func(t *testing.T) { checkLoad(t, b) })
	}
	_ = fmt.Sprint
}

// TestZoneCountClaims: many threads that each claim the whole remaining
// payload as their zone count must not each get that much memory.
func TestZoneCountClaims(t *testing.T) {
	tr := model.New()
	for i := range 2000 {
		tr.Threads = append(tr.Threads, model.Thread{ID: 0x7EAD0000 + uint64(i)})
	}
	tr.SourceCache = []model.SourceFile{{Name: "pad", Data: make([]byte, 1<<20)}}
	p := payloadOf(t, tr)
	// Patch every thread's zone count to the most the size check allows.
	var patched int
	for i := range tr.Threads {
		tid := 0x7EAD0000 + uint64(i)
		rec := []byte{byte(tid), byte(tid >> 8), byte(tid >> 16), byte(tid >> 24), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
		off := bytes.Index(p, rec)
		if off < 0 {
			continue
		}
		claim := uint64(len(p)-off-16) / 26 // what remains after tid and count
		for k := range 8 {
			p[off+8+k] = byte(claim >> (8 * k))
		}
		patched++
	}
	if patched < 1000 {
		t.Fatalf("patched only %d threads", patched)
	}
	checkLoad(t, p)
}
