package symbols

import (
	"bytes"
	"context"
	"debug/dwarf"
	"debug/elf"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// serverFixture compiles inline.c into a symbol directory as "prog" and
// returns a server over it plus the template values for request files.
func serverFixture(t testing.TB) (*Server, map[string]string, string) {
	t.Helper()
	bin := cBinary(t, "server-O2", "gcc", "inline.c", "-O2")
	dir := t.TempDir()
	copyFile(t, bin, filepath.Join(dir, "prog"))
	r, err := New(WithSearchPath(dir), WithConfinement())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	vals := map[string]string{"ID": ID{Kind: IDGNU, Bytes: gnuID(t, bin)}.Breakpad()}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			vals["sym:"+s.Name] = strconv.FormatUint(s.Value, 10)
		}
	}
	d, _ := f.DWARF()
	rd := d.Reader()
	for {
		e, _ := rd.Next()
		if e == nil {
			break
		}
		if lr, _ := d.LineReader(e); lr != nil {
			var le dwarf.LineEntry
			for lr.Next(&le) == nil {
				k := "line:" + strconv.Itoa(le.Line)
				if _, ok := vals[k]; !ok && !le.EndSequence && strings.HasSuffix(le.File.Name, "inline.c") {
					vals[k] = strconv.FormatUint(le.Address, 10)
				}
			}
		}
		rd.SkipChildren()
	}
	return NewServer(r), vals, dir
}

var placeholder = regexp.MustCompile(`\{\{([a-z]+:[A-Za-z_0-9]+|ID)(\+(\d+))?\}\}`)

func expand(t testing.TB, tmpl string, vals map[string]string) string {
	return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		sm := placeholder.FindStringSubmatch(m)
		v, ok := vals[sm[1]]
		if !ok {
			t.Fatalf("template value %s unknown", sm[1])
		}
		if sm[3] != "" {
			n, _ := strconv.ParseUint(v, 10, 64)
			k, _ := strconv.ParseUint(sm[3], 10, 64)
			v = strconv.FormatUint(n+k, 10)
		}
		return v
	})
}

func post(t *testing.T, h http.Handler, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
	return rec
}

func TestServerGolden(t *testing.T) {
	srv, vals, _ := serverFixture(t)
	reqs, _ := filepath.Glob("testdata/server/*.req.json")
	if len(reqs) == 0 {
		t.Fatal("no request files")
	}
	for _, rq := range reqs {
		name := strings.TrimSuffix(filepath.Base(rq), ".req.json")
		t.Run(name, func(t *testing.T) {
			tmpl, err := os.ReadFile(rq)
			if err != nil {
				t.Fatal(err)
			}
			rec := post(t, srv, "/symbolicate/v5", expand(t, string(tmpl), vals))
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			// The server writes compact JSON; the golden files hold it
			// indented as encoding/json's MarshalIndent would, for review.
			var ind bytes.Buffer
			if err := json.Indent(&ind, rec.Body.Bytes(), "", "  "); err != nil {
				t.Fatalf("response is not JSON: %v", err)
			}
			// Ids depend on the compiler; keep the golden file stable.
			got := strings.ReplaceAll(ind.String(), vals["ID"], "{{ID}}") + "\n"
			golden := strings.TrimSuffix(rq, ".req.json") + ".golden.json"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Errorf("response differs from %s (run with -update after checking):\n%s", golden, got)
			}
			var v map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
				t.Fatalf("response is not JSON: %v", err)
			}
		})
	}
}

func TestServerBadRequests(t *testing.T) {
	srv, vals, _ := serverFixture(t)
	id := vals["ID"]
	cases := []struct{ name, body, reason string }{
		{"not json", `{"memoryMap": [`, "invalid JSON"},
		{"empty object", `{}`, "want"},
		{"module index beyond memoryMap", `{"memoryMap": [["prog", "` + id + `"]], "stacks": [[[1, 10]]]}`, "beyond the memoryMap"},
		{"negative address", `{"memoryMap": [["prog", "` + id + `"]], "stacks": [[[0, -1]]]}`, "32-bit"},
		{"address too large", `{"memoryMap": [["prog", "` + id + `"]], "stacks": [[[0, 4294967296]]]}`, "32-bit"},
		{"path traversal", `{"memoryMap": [["../../etc/passwd", "` + id + `"]], "stacks": []}`, "plain file name"},
		{"bad breakpad id", `{"memoryMap": [["prog", "xyz"]], "stacks": []}`, "breakpad id"},
		{"frame not a pair", `{"memoryMap": [["prog", "` + id + `"]], "stacks": [[[0]]]}`, ""},
		{"memoryMap entry not a pair", `{"memoryMap": [["prog"]], "stacks": []}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := post(t, srv, "/symbolicate/v5", c.body)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", rec.Code, rec.Body)
			}
			if !strings.Contains(rec.Body.String(), c.reason) || len(strings.TrimSpace(rec.Body.String())) == 0 {
				t.Errorf("reason %q does not mention %q", rec.Body, c.reason)
			}
		})
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/symbolicate/v5", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET symbolicate: %d", rec.Code)
	}
}

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

func TestServerSymbolTable(t *testing.T) {
	srv, vals, dir := serverFixture(t)
	rec := get(t, srv, "/symbol-table/v1/prog/"+vals["ID"])
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var tab struct {
		Addr   []uint32 `json:"addr"`
		Index  []uint32 `json:"index"`
		Buffer string   `json:"buffer"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Index) != len(tab.Addr)+1 || int(tab.Index[len(tab.Addr)]) != len(tab.Buffer) {
		t.Fatalf("%d addresses, %d indices, buffer %d", len(tab.Addr), len(tab.Index), len(tab.Buffer))
	}
	if !sort.SliceIsSorted(tab.Addr, func(i, j int) bool { return tab.Addr[i] < tab.Addr[j] }) {
		t.Fatal("addresses not sorted")
	}
	ct := &CompactSymbolTable{Addr: tab.Addr, Index: tab.Index, Buffer: []byte(tab.Buffer)}
	for _, name := range []string{"main", "sum"} {
		a, _ := strconv.ParseUint(vals["sym:"+name], 10, 32)
		if got, ok := ct.Lookup(uint32(a) + 1); !ok || got != name {
			t.Errorf("lookup %s+1 = %q, %v", name, got, ok)
		}
	}
	// The binary form carries the same table.
	rec = get(t, srv, "/symbol-table/v1/prog/"+vals["ID"]+"?format=binary")
	want, _ := ct.AppendBinary(nil)
	if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), want) {
		t.Fatalf("binary table: status %d, %d bytes, want %d", rec.Code, rec.Body.Len(), len(want))
	}

	for path, code := range map[string]int{
		"/symbol-table/v1/prog/FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF0": http.StatusNotFound,
		"/symbol-table/v1/..%2fprog/" + vals["ID"]:                http.StatusBadRequest,
		"/symbol-table/v1/prog":                                   http.StatusBadRequest,
		"/symbol-table/v1/prog/" + vals["ID"] + "?format=xml":     http.StatusBadRequest,
		"/nothing-here": http.StatusNotFound,
	} {
		if rec := get(t, srv, path); rec.Code != code {
			t.Errorf("GET %s: %d, want %d (%s)", path, rec.Code, code, rec.Body)
		}
	}

	// Confinement: a symlink in the symbol directory pointing outside it
	// is not followed.
	outside := t.TempDir()
	copyFile(t, filepath.Join(dir, "prog"), filepath.Join(outside, "secret"))
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "secret")); err != nil {
		t.Skip(err)
	}
	if rec := get(t, srv, "/symbol-table/v1/secret/"+vals["ID"]); rec.Code == http.StatusOK {
		t.Errorf("served a file outside the symbol path through a symlink")
	}
}

func TestServerOverHTTP(t *testing.T) {
	srv, vals, _ := serverFixture(t)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	body := `{"memoryMap": [["prog", "` + vals["ID"] + `"]], "stacks": [[[0, ` + vals["sym:main"] + `]]]}`
	resp, err := http.Post(ts.URL+"/symbolicate/v5", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"function":"main"`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	_ = context.Background
}
