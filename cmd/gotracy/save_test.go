package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/tracefile/container"
)

func TestSaveRecompresses(t *testing.T) {
	in := fixtures.Path(t, "demo.tracy")
	orig, err := tracefile.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		args    []string
		comp    container.Compression
		streams int
	}{
		{[]string{"--lz4", "--streams", "1"}, container.LZ4, 1},
		{[]string{"--zstd", "7", "--streams", "16"}, container.Zstd, 16},
		{nil, container.Zstd, 4},
	} {
		out := filepath.Join(dir, "out.tracy")
		var stdout, stderr bytes.Buffer
		// The same output each time: overwriting it needs -f.
		args := append([]string{"save", in, "-o", out, "-f"}, c.args...)
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		r, err := container.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		h := r.Header()
		r.Close()
		if h.Compression != c.comp || h.Streams != c.streams {
			t.Errorf("%v: wrote %v with %d streams", c.args, h.Compression, h.Streams)
		}
		got, err := tracefile.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got.ZoneCount() != orig.ZoneCount() || len(got.Messages) != len(orig.Messages) || len(got.FrameImages) != len(orig.FrameImages) {
			t.Errorf("%v: contents changed", c.args)
		}
		if !strings.Contains(stdout.String(), "streams") {
			t.Errorf("no summary: %q", stdout.String())
		}
	}
}

func TestSaveErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tracy")
	os.WriteFile(bad, []byte("hello, world"), 0o644)
	out := filepath.Join(dir, "out.tracy")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"save", bad}, 2, "-o"},
		{[]string{"save", bad, "-o", out, "--lz4", "--zstd", "3"}, 2, "exclude"},
		{[]string{"save", bad, "-o", out, "--streams", "0"}, 2, "streams"},
		{[]string{"save", bad, "-o", out}, 1, "not a Tracy trace"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed save left %s behind", out)
	}
}
