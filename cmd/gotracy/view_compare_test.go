package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// `gotracy view A B` serves the compare page, its API, and each trace's
// own viewer at a/ and b/.
func TestViewCompare(t *testing.T) {
	a, b := syntheticPair(t)
	url, _ := startView(t, a, b, "--http", "127.0.0.1:0")
	if code, body := httpGet(t, url); code != 200 || !strings.Contains(string(body), "js/compare.js") {
		t.Errorf("GET /: %d, not the compare page", code)
	}
	code, body := httpGet(t, url+"api/v1/compare")
	if code != 200 {
		t.Fatalf("compare: %d %s", code, body)
	}
	var ans struct {
		A    struct{ Name string } `json:"a"`
		B    struct{ Name string } `json:"b"`
		Rows []json.RawMessage     `json:"rows"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		t.Fatal(err)
	}
	// The table gotracy diff prints for the same files, row for row.
	out, _, dcode := runCLI(t, "diff", "--json", "--sort", "name", a, b)
	var diff struct {
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &diff); dcode != 0 || err != nil {
		t.Fatalf("diff --json: exit %d, %v", dcode, err)
	}
	_, sorted := httpGet(t, url+"api/v1/compare?sort=name")
	var ansSorted struct {
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(sorted, &ansSorted); err != nil {
		t.Fatal(err)
	}
	if ans.A.Name != "before.tracy" || ans.B.Name != "after.tracy" || len(ans.Rows) != 8 || len(ansSorted.Rows) != len(diff.Rows) {
		t.Fatalf("compare: %s vs %s, %d rows; diff %d", ans.A.Name, ans.B.Name, len(ans.Rows), len(diff.Rows))
	}
	for i := range diff.Rows {
		jsonEqual(t, "compare row against diff --json", ansSorted.Rows[i], diff.Rows[i])
	}
	for _, p := range []string{"a/", "b/", "a/api/v1/statistics", "b/api/v1/lanes"} {
		if code, body := httpGet(t, url+p); code != 200 {
			t.Errorf("GET %s: %d %s", p, code, body)
		}
	}
	if _, body := httpGet(t, url+"b/api/v1/trace"); !strings.Contains(string(body), `"after.tracy"`) {
		t.Errorf("b/api/v1/trace names %s", body)
	}
	// The DNS-rebinding guard covers the comparison and both traces.
	for _, p := range []string{"api/v1/compare", "a/api/v1/trace", "b/"} {
		req, _ := http.NewRequest("GET", url+p, nil)
		req.Host = "evil.example"
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host evil.example, %s: %d, want 421", p, resp.StatusCode)
		}
	}
}
