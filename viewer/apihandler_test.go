package viewer

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAPIHandlerErrors: an error before the answer becomes the JSON error
// answer; one after the answer began (an aborted or failed write) adds
// nothing to it.
func TestAPIHandlerErrors(t *testing.T) {
	fail := errors.New("the disk is on fire")
	before := apiHandler(func(w http.ResponseWriter, r *http.Request) error { return fail })
	rec := httptest.NewRecorder()
	before(rec, httptest.NewRequest("GET", "/api/v1/x", nil))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "disk is on fire") {
		t.Errorf("error before answering: %d %q, want 500 naming the error", rec.Code, rec.Body.String())
	}
	after := apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte("partial"))
		return fail
	})
	rec = httptest.NewRecorder()
	after(rec, httptest.NewRequest("GET", "/api/v1/x", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "partial" {
		t.Errorf("error after answering began: %d %q, want 200 and only the partial body", rec.Code, rec.Body.String())
	}
}
