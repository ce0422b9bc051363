package container

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzReader feeds arbitrary files to the reader. Every input must either
// decode or fail with a typed error; it must never panic or hang, and what
// decodes must fit the framing and survive a rewrite.
//
// The seed corpus in testdata/fuzz/FuzzReader is generated from small
// written files (GOTRACY_GEN_CORPUS=1 go test -run TestGenerateFuzzCorpus).
func FuzzReader(f *testing.F) {
	for _, s := range corpusSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		r, err := NewReaderBytes(file, WithReadAhead(1))
		if err != nil {
			if !errors.Is(err, ErrNotTrace) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("untyped error from NewReader: %v", err)
			}
			return
		}
		defer r.Close()
		if r.PayloadSizeBound() > 8<<20 {
			// Tiny RLE chunks expand 6000-fold; keep each run fast.
			if _, err := io.Copy(io.Discard, r); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("untyped error from Read: %v", err)
			}
			return
		}
		var out bytes.Buffer
		_, err = io.Copy(&out, r)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("untyped error from Read: %v", err)
			}
			return
		}
		if c := int64(r.Chunks()); int64(out.Len()) > c*BlockSize || (c > 0 && int64(out.Len()) <= (c-1)*BlockSize) {
			t.Fatalf("%d payload bytes from %d chunks", out.Len(), c)
		}
		var re bytes.Buffer
		w, _ := NewWriter(&re, WithLZ4(), WithStreams(2))
		w.Write(out.Bytes())
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r2, err := NewReaderBytes(re.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		defer r2.Close()
		got, err := io.ReadAll(r2)
		if err != nil || !bytes.Equal(got, out.Bytes()) {
			t.Fatalf("rewrite of a decoded payload reads back differently: %v", err)
		}
	})
}

// corpusSeeds are small valid and invalid containers of every form.
func corpusSeeds() [][]byte {
	var seeds [][]byte
	add := func(payload []byte, opts ...WriteOption) []byte {
		var b bytes.Buffer
		w, err := NewWriter(&b, opts...)
		if err != nil {
			panic(err)
		}
		w.Write(payload)
		if err := w.Close(); err != nil {
			panic(err)
		}
		seeds = append(seeds, b.Bytes())
		return b.Bytes()
	}
	text := func(n int) []byte {
		var b []byte
		for i := 0; len(b) < n; i++ {
			b = fmt.Appendf(b, "zone %d;", i%7)
		}
		return append([]byte("tracy\x00\x0e\x00"), b[:n]...)[:n]
	}
	for _, n := range []int{1, 100, 65536, 65537, 2*65536 + 11} {
		add(text(n), WithLZ4(), WithStreams(1+n%3))
		add(text(n), WithZstd(3), WithStreams(1+n%3))
		add(text(n), tracyZstd(3), WithStreams(1+n%3)) // no checksum
	}
	// A checksummed file whose first chunk's checksum is wrong.
	bad := bytes.Clone(add(text(100), WithZstd(3), WithStreams(1)))
	bad[len(bad)-1] ^= 1
	seeds = append(seeds, bad)
	one := add(text(70000), WithLZ4(), WithStreams(1))
	seeds = append(seeds, legacy(one, "tlZ\x04"))
	one = add(text(70000), WithZstd(1), WithStreams(1))
	seeds = append(seeds, legacy(one, "tZst"))
	seeds = append(seeds, hostileWindows(3))
	seeds = append(seeds, []byte("tr\xFDP\x01\x00"), []byte("tr\xFDP\x00\x01"), []byte("tr\xFDP\x00\x01\x05\x00\x00"))
	return seeds
}

func TestGenerateFuzzCorpus(t *testing.T) {
	if os.Getenv("GOTRACY_GEN_CORPUS") == "" {
		t.Skip("set GOTRACY_GEN_CORPUS=1 to rewrite testdata/fuzz/FuzzReader")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range corpusSeeds() {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(s)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
