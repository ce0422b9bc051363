package symbols

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func gnuID(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := readELFInfo(f)
	if err != nil || len(info.gnuID) == 0 {
		t.Fatalf("%s: no GNU build id (%v)", path, err)
	}
	return info.gnuID
}

// splitBinary makes a stripped copy of bin and its --only-keep-debug file.
func splitBinary(t *testing.T, bin, dir string) (stripped, debug string) {
	t.Helper()
	stripped = filepath.Join(dir, "bin", "prog")
	debug = filepath.Join(dir, "prog.debug")
	copyFile(t, bin, stripped)
	runTool(t, "objcopy", "--only-keep-debug", bin, debug)
	runTool(t, "strip", stripped)
	return stripped, debug
}

// resolveAll resolves addrs and returns the frames as comparable values.
func resolveAll(t *testing.T, r *Resolver, img Image, addrs []uint64) [][]Frame {
	t.Helper()
	reqs := make([]Request, len(addrs))
	for i, a := range addrs {
		reqs[i] = Request{Image: img, Addr: a}
	}
	var out [][]Frame
	for i, res := range r.Resolve(context.Background(), reqs) {
		if res.Err != nil {
			t.Fatalf("%#x: %v", addrs[i], res.Err)
		}
		out = append(out, res.Frames)
	}
	return out
}

func TestSplitDebugBuildIDTree(t *testing.T) {
	bin := cBinary(t, "split-O2", "gcc", "inline.c", "-O2")
	dir := t.TempDir()
	stripped, debug := splitBinary(t, bin, dir)
	id := hex.EncodeToString(gnuID(t, bin))
	root := filepath.Join(dir, "debugroot")
	copyFile(t, debug, filepath.Join(root, ".build-id", id[:2], id[2:]+".debug"))

	full, _ := New(WithDebugDirs())
	defer full.Close()
	r, _ := New(WithDebugDirs(root))
	defer r.Close()
	addrs := lineAddrs(t, bin, 0)
	want := resolveAll(t, full, Image{Path: bin}, addrs)
	got := resolveAll(t, r, Image{Path: stripped}, addrs)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stripped+build-id tree differs from the unstripped binary")
	}
	m, err := r.Module(Image{Path: stripped})
	if err != nil || !strings.Contains(m.DebugPath, ".build-id") {
		t.Fatalf("module %+v, %v: want the debug file from the build-id tree", m, err)
	}

	// The image itself gone, only its id known: the build-id tree's debug
	// file is enough.
	gone := Image{Path: "/no/such/dir/prog", ID: ID{Kind: IDGNU, Bytes: gnuID(t, bin)}}
	got = resolveAll(t, r, gone, addrs)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("resolution by build id alone differs")
	}
}

func TestSplitDebugWrongBuildIDRejected(t *testing.T) {
	bin := cBinary(t, "split-O2", "gcc", "inline.c", "-O2")
	other := cBinary(t, "other", "gcc", "other.c", "-O2")
	dir := t.TempDir()
	stripped, _ := splitBinary(t, bin, dir)
	otherDebug := filepath.Join(dir, "other.debug")
	runTool(t, "objcopy", "--only-keep-debug", other, otherDebug)
	// Put the other program's debug file where ours belongs.
	id := hex.EncodeToString(gnuID(t, bin))
	root := filepath.Join(dir, "debugroot")
	copyFile(t, otherDebug, filepath.Join(root, ".build-id", id[:2], id[2:]+".debug"))

	r, _ := New(WithDebugDirs(root))
	defer r.Close()
	addrs := lineAddrs(t, bin, 50)
	for _, a := range addrs {
		res := r.Lookup(Image{Path: stripped}, a)
		if !errors.Is(res.Err, ErrBuildIDMismatch) {
			t.Fatalf("%#x: err %v, want ErrBuildIDMismatch", a, res.Err)
		}
		for _, f := range res.Frames {
			if f.File != "" || f.Line != 0 || f.Function == "other" {
				t.Fatalf("%#x: frame %+v came from the mismatching debug file", a, f)
			}
		}
	}
	var me *MismatchError
	if _, err := r.Module(Image{Path: stripped}); err == nil || !errors.As(err, &me) {
		t.Fatalf("Module: %v, want a MismatchError", err)
	}
	if !strings.Contains(me.Error(), "does not match") {
		t.Errorf("mismatch message %q", me)
	}

	// Asking for an image by an id the file does not have rejects the file.
	res := r.Lookup(Image{Path: bin, ID: ID{Kind: IDGNU, Bytes: gnuID(t, other)}}, addrs[0])
	if !errors.Is(res.Err, ErrBuildIDMismatch) || !errors.Is(res.Err, ErrImageNotFound) || len(res.Frames) != 0 {
		t.Fatalf("wrong image id: frames %v, err %v", res.Frames, res.Err)
	}
}

func TestDebuglinkCRC(t *testing.T) {
	bin := cBinary(t, "nobuildid", "gcc", "inline.c", "-O2", "-Wl,--build-id=none")
	dir := t.TempDir()
	stripped, debug := splitBinary(t, bin, dir)
	// --add-gnu-debuglink records the base name and CRC of the file.
	runTool(t, "objcopy", "--add-gnu-debuglink="+debug, stripped)
	addrs := lineAddrs(t, bin, 100)
	full, _ := New(WithDebugDirs())
	defer full.Close()
	want := resolveAll(t, full, Image{Path: bin}, addrs)

	for _, where := range []string{"bin/prog.debug", "bin/.debug/prog.debug"} {
		t.Run(where, func(t *testing.T) {
			p := filepath.Join(dir, where)
			copyFile(t, debug, p)
			defer os.Remove(p)
			r, _ := New(WithDebugDirs())
			defer r.Close()
			if got := resolveAll(t, r, Image{Path: stripped}, addrs); !reflect.DeepEqual(got, want) {
				t.Fatalf("debuglink resolution differs")
			}
		})
	}
	t.Run("bad CRC", func(t *testing.T) {
		p := filepath.Join(dir, "bin", "prog.debug")
		copyFile(t, debug, p)
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.Write([]byte{0})
		f.Close()
		r, _ := New(WithDebugDirs())
		defer r.Close()
		res := r.Lookup(Image{Path: stripped}, addrs[0])
		if !errors.Is(res.Err, ErrBuildIDMismatch) {
			t.Fatalf("err %v, want ErrBuildIDMismatch for a debuglink CRC mismatch", res.Err)
		}
	})
}

func TestSearchPathAndSubstitution(t *testing.T) {
	bin := cBinary(t, "split-O2", "gcc", "inline.c", "-O2")
	dir := t.TempDir()
	copyFile(t, bin, filepath.Join(dir, "lib", "prog"))
	addr := lineAddrs(t, bin, 10)[5]
	full, _ := New(WithDebugDirs())
	want := full.Lookup(Image{Path: bin}, addr)
	full.Close()

	cases := []struct {
		name string
		opts []Option
		path string
	}{
		{"search dir by base name", []Option{WithSearchPath(filepath.Join(dir, "lib"))}, "/build/machine/prog"},
		{"substitution", []Option{WithSubstitution(`^/build/(\w+)/`, dir+"/lib/")}, "/build/machine/prog"},
		{"recorded path", nil, filepath.Join(dir, "lib", "prog")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := New(append(c.opts, WithDebugDirs())...)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got := r.Lookup(Image{Path: c.path}, addr)
			if got.Err != nil || !reflect.DeepEqual(got.Frames, want.Frames) {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
	}
	r, _ := New(WithDebugDirs())
	defer r.Close()
	res := r.Lookup(Image{Path: "/build/machine/prog"}, addr)
	var nf *NotFoundError
	if !errors.As(res.Err, &nf) || !errors.Is(res.Err, ErrImageNotFound) || len(nf.Searched) == 0 {
		t.Fatalf("missing image: %v", res.Err)
	}
	if _, err := ParseSubstitution("no-separator"); err == nil {
		t.Error("ParseSubstitution accepted a string without ';'")
	}
	if _, err := ParseSubstitution("([;x"); err == nil {
		t.Error("ParseSubstitution accepted a bad regexp")
	}
}

func TestDebuginfod(t *testing.T) {
	bin := cBinary(t, "split-O2", "gcc", "inline.c", "-O2")
	other := cBinary(t, "other", "gcc", "other.c", "-O2")
	dir := t.TempDir()
	stripped, debug := splitBinary(t, bin, dir)
	otherDebug := filepath.Join(dir, "other.debug")
	runTool(t, "objcopy", "--only-keep-debug", other, otherDebug)
	id := hex.EncodeToString(gnuID(t, bin))

	var serve atomic.Value
	serve.Store(debug)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		hits.Add(1)
		if req.URL.Path != "/buildid/"+id+"/debuginfo" {
			http.NotFound(w, req)
			return
		}
		http.ServeFile(w, req, serve.Load().(string))
	}))
	defer srv.Close()

	addrs := lineAddrs(t, bin, 100)
	full, _ := New(WithDebugDirs())
	defer full.Close()
	want := resolveAll(t, full, Image{Path: bin}, addrs)

	r, _ := New(WithDebugDirs(), WithDebuginfod(srv.URL, srv.Client(), filepath.Join(dir, "cache")))
	got := resolveAll(t, r, Image{Path: stripped}, addrs)
	r.Close()
	if !reflect.DeepEqual(got, want) {
		t.Fatal("debuginfod resolution differs")
	}
	if hits.Load() != 1 {
		t.Errorf("%d requests to debuginfod, want 1", hits.Load())
	}
	// Cached: a new resolver does not ask again.
	r, _ = New(WithDebugDirs(), WithDebuginfod(srv.URL, srv.Client(), filepath.Join(dir, "cache")))
	resolveAll(t, r, Image{Path: stripped}, addrs[:1])
	r.Close()
	if hits.Load() != 1 {
		t.Errorf("cache not used: %d requests", hits.Load())
	}

	// A server answering with a different build is not believed.
	serve.Store(otherDebug)
	r, _ = New(WithDebugDirs(), WithDebuginfod(srv.URL, srv.Client(), filepath.Join(dir, "cache2")))
	defer r.Close()
	res := r.Lookup(Image{Path: stripped}, addrs[0])
	if !errors.Is(res.Err, ErrBuildIDMismatch) {
		t.Fatalf("wrong debuginfod answer: err %v", res.Err)
	}
}
