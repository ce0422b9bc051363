package tracefile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile/container"
)

// FuzzRead feeds whole files (container and payload) to Read: every input
// loads or fails with a typed error, never panics or hangs, and what loads
// is written and read back to the same trace. FuzzReadPayload covers the
// payload alone and container.FuzzReader the framing alone; this target
// covers their seam (errors crossing from one to the other, a payload
// ending before or after its container).
//
// The checked-in corpus (testdata/fuzz/FuzzRead) is fileSeeds, rewritten
// with GOTRACY_GEN_CORPUS=1 go test -run TestGenerateFileCorpus.
func FuzzRead(f *testing.F) {
	f.Fuzz(func(t *testing.T, file []byte) {
		tr, err := Read(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotTrace) &&
				!errors.Is(err, ErrUnsupportedVersion) && !errors.Is(err, ErrLegacyVersion) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, tr, WithLZ4(), WithStreams(1)); err != nil {
			if errors.Is(err, ErrInvalidTrace) {
				return // loads, but cannot be saved as a valid file
			}
			t.Fatalf("rewrite: %v", err)
		}
		back, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatalf("rewritten file does not load: %v", err)
		}
		if d := diffTraces(tr, back); d != "" {
			t.Fatalf("rewritten file loads differently: %s", d)
		}
	})
}

// fileSeeds are small files of every container form with a trace that
// uses every section, plus damaged variants.
func fileSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	write := func(tr *model.Trace, opts ...Option) []byte {
		var b bytes.Buffer
		if err := Write(&b, tr, opts...); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	gen := genTrace(21, 60)
	seeds["zstd-checksummed"] = write(gen, WithStreams(2))
	seeds["lz4"] = write(gen, WithLZ4(), WithStreams(1))
	seeds["minimal"] = write(model.New())
	big := write(genTrace(22, 6000), WithStreams(3)) // several chunks
	seeds["zstd-3-streams"] = big
	cut := bytes.Clone(big[:len(big)*2/3])
	seeds["truncated"] = cut
	flipped := bytes.Clone(big)
	flipped[len(flipped)/2] ^= 0x20
	seeds["byte-changed"] = flipped
	// A well-formed container whose payload has bytes after the trace.
	p := payloadOf(t, gen)
	seeds["payload-then-garbage"] = write(gen)[:6]
	seeds["payload-then-garbage"] = append(seeds["payload-then-garbage"], containerOf(t, append(p, "garbage"...))[6:]...)
	seeds["payload-cut"] = containerOf(t, p[:len(p)-5])
	return seeds
}

func TestGenerateFileCorpus(t *testing.T) {
	seeds := fileSeeds(t)
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	if os.Getenv("GOTRACY_GEN_CORPUS") == "" {
		// Without the variable: the checked-in corpus exists.
		for name := range seeds {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Errorf("corpus entry %s missing (GOTRACY_GEN_CORPUS=1 rewrites it): %v", name, err)
			}
		}
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range seeds {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(s)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("wrote", len(seeds), "seeds")
}

// containerOf wraps a raw payload in a default container.
func containerOf(t testing.TB, payload []byte) []byte {
	var b bytes.Buffer
	w, err := container.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(payload)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
