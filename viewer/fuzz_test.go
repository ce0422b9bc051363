package viewer

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"testing"
)

var fuzzServer = sync.OnceValue(func() *Server {
	s, err := New(gpuTrace(&testing.T{}))
	if err != nil {
		panic(err)
	}
	return s
})

// FuzzAPIQuery: whatever the query string, every endpoint answers 200,
// 400 or 404 (never a panic, never a 500), and a refusal is one JSON
// sentence.
func FuzzAPIQuery(f *testing.F) {
	for _, seed := range [][2]string{
		{"timeline", "t0=0&t1=13000&width=100&format=json"},
		{"timeline", "t0=-9223372036854775808&t1=9223372036854775807&width=1"},
		{"frames", "width=16384&minpx=16384"},
		{"find", "srcloc=2&bins=10000&log=1&self=1&sort=-duration&offset=2147483647"},
		{"zone", "gpu=0:0&index=3&children=0"},
		{"zoneat", "thread=1&t=12000&depth=0"},
		{"messagelist", "filter=%FF%FE&t=1"},
		{"locks", "t0=2000&t1=2001&width=1&minpx=0.5"},
		{"plot", "id=0&width=3"},
		{"frameimage", "image=0"},
		{"source", "file=..%2F..%2Fetc%2Fpasswd"},
		{"statistics", "self=1"},
	} {
		f.Add(seed[0], seed[1])
	}
	h := fuzzServer().Handler()
	f.Fuzz(func(t *testing.T, endpoint, query string) {
		if strings.ContainsAny(endpoint, "/?#% \t\r\n") {
			return
		}
		req := httptest.NewRequest("GET", "http://127.0.0.1/", nil)
		req.URL.Path = "/api/v1/" + endpoint
		req.URL.RawQuery = query
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
			return
		case http.StatusBadRequest, http.StatusNotFound:
		case http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			if path.Clean(req.URL.Path) != req.URL.Path {
				return // the mux sends "/api/v1/." to the clean path
			}
			t.Fatalf("%s?%s: redirect of a clean path", endpoint, query)
		default:
			t.Fatalf("%s?%s: status %d: %s", endpoint, query, rec.Code, rec.Body.Bytes())
		}
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" || strings.Contains(e.Error, "\n") {
			t.Fatalf("%s?%s: refusal %q is not one JSON sentence", endpoint, query, rec.Body.Bytes())
		}
	})
}
