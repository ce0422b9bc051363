package symbols

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzSymbolicateRequest feeds arbitrary bodies to the v5 handler. The
// request parser is hand-written (see serverjson.go), so encoding/json is
// the reference: a body the handler answers 200 must be valid JSON of the
// API's shape with the same number of jobs, stacks and frames as
// encoding/json reads from it, and the answer must be valid JSON. Nothing
// may panic. The symbol path is empty, so every module is "not found" and
// each input runs in microseconds.
func FuzzSymbolicateRequest(f *testing.F) {
	r, err := New(WithSearchPath(f.TempDir()), WithConfinement())
	if err != nil {
		f.Fatal(err)
	}
	defer r.Close()
	srv := NewServer(r)
	srv.MaxAddresses = 1000
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/symbolicate/v5", strings.NewReader(body)))
		switch rec.Code {
		case http.StatusOK:
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			if strings.TrimSpace(rec.Body.String()) == "" {
				t.Fatalf("status %d without a reason", rec.Code)
			}
			return
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("answer is not JSON: %s", rec.Body)
		}
		var ref struct {
			Jobs      []refJob `json:"jobs"`
			MemoryMap [][2]string
			Stacks    [][][2]json.Number
		}
		if err := json.Unmarshal([]byte(body), &ref); err != nil {
			t.Fatalf("accepted a body encoding/json rejects (%v): %q", err, body)
		}
		jobs := ref.Jobs
		if jobs == nil {
			jobs = []refJob{{ref.MemoryMap, ref.Stacks}}
		}
		var resp struct {
			Results []struct {
				Stacks [][]json.RawMessage `json:"stacks"`
			} `json:"results"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || len(resp.Results) != len(jobs) {
			t.Fatalf("%d results for %d jobs (%v): %s", len(resp.Results), len(jobs), err, rec.Body)
		}
		for i, j := range jobs {
			got := resp.Results[i].Stacks
			if len(got) != len(j.Stacks) {
				t.Fatalf("job %d: %d stacks, encoding/json reads %d", i, len(got), len(j.Stacks))
			}
			for k := range got {
				if len(got[k]) != len(j.Stacks[k]) {
					t.Fatalf("job %d stack %d: %d frames, encoding/json reads %d", i, k, len(got[k]), len(j.Stacks[k]))
				}
			}
		}
	})
}

type refJob struct {
	MemoryMap [][2]string        `json:"memoryMap"`
	Stacks    [][][2]json.Number `json:"stacks"`
}
