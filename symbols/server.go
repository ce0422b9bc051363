package symbols

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Server answers the symbolication API v5 of the Firefox profiler and
// samply (POST /symbolicate/v5) and serves compact symbol tables
// (GET /symbol-table/v1/DEBUGNAME/BREAKPADID, JSON or ?format=binary).
// Modules are looked up by debug name in the Resolver's search path and
// accepted only when their breakpad id matches; build the Resolver with
// WithConfinement so requests cannot name files outside it.
type Server struct {
	r *Resolver
	// MaxBody bounds request bodies (default 16 MiB).
	MaxBody int64
}

// NewServer returns an http.Handler over r.
func NewServer(r *Resolver) *Server { return &Server{r: r, MaxBody: 16 << 20} }

// request/response shapes of API v5.
type v5Request struct {
	Jobs []v5Job `json:"jobs"`
	v5Job
}

type v5Job struct {
	MemoryMap [][2]string        `json:"memoryMap"`
	Stacks    [][][2]json.Number `json:"stacks"`
}

type v5Response struct {
	Results []v5Result `json:"results"`
}

type v5Result struct {
	Stacks       [][]v5Frame          `json:"stacks"`
	FoundModules map[string]bool      `json:"found_modules"`
	ModuleErrors map[string][]v5Error `json:"module_errors,omitempty"`
}

type v5Frame struct {
	Frame          int        `json:"frame"`
	ModuleOffset   string     `json:"module_offset"`
	Module         string     `json:"module"`
	Function       string     `json:"function,omitempty"`
	FunctionOffset string     `json:"function_offset,omitempty"`
	File           string     `json:"file,omitempty"`
	Line           int        `json:"line,omitempty"`
	Inlines        []v5Inline `json:"inlines,omitempty"`
}

type v5Inline struct {
	Function string `json:"function,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
}

type v5Error struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// BadRequestError is what malformed requests produce; the HTTP layer turns
// it into 400 with the message.
type BadRequestError struct{ Reason string }

func (e *BadRequestError) Error() string { return "bad request: " + e.Reason }

func badf(format string, args ...any) error {
	return &BadRequestError{Reason: fmt.Sprintf(format, args...)}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch {
	case req.URL.Path == "/symbolicate/v5":
		if req.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "symbolicate/v5 takes POST", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, s.MaxBody+1))
		if err != nil {
			http.Error(w, "reading request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if int64(len(body)) > s.MaxBody {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		resp, err := s.Symbolicate(req.Context(), body)
		if err != nil {
			var bad *BadRequestError
			if errors.As(err, &bad) {
				http.Error(w, bad.Reason, http.StatusBadRequest)
				return
			}
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	case strings.HasPrefix(req.URL.Path, "/symbol-table/v1/"):
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			http.Error(w, "symbol-table takes GET", http.StatusMethodNotAllowed)
			return
		}
		s.serveSymbolTable(w, req)
	default:
		http.NotFound(w, req)
	}
}

func (s *Server) serveSymbolTable(w http.ResponseWriter, req *http.Request) {
	parts := strings.Split(strings.TrimPrefix(req.URL.Path, "/symbol-table/v1/"), "/")
	if len(parts) != 2 {
		http.Error(w, "want /symbol-table/v1/DEBUGNAME/BREAKPADID", http.StatusBadRequest)
		return
	}
	img, err := moduleImage(parts[0], parts[1])
	if err != nil {
		http.Error(w, err.(*BadRequestError).Reason, http.StatusBadRequest)
		return
	}
	t, err := s.r.SymbolTable(img)
	if err != nil {
		if errors.Is(err, ErrImageNotFound) {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	switch req.URL.Query().Get("format") {
	case "binary":
		b, _ := t.AppendBinary(nil)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(b)
	case "", "json":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(struct {
			Addr   []uint32 `json:"addr"`
			Index  []uint32 `json:"index"`
			Buffer string   `json:"buffer"`
		}{t.Addr, t.Index, string(t.Buffer)})
	default:
		http.Error(w, "format must be json or binary", http.StatusBadRequest)
	}
}

// moduleImage validates a (debugName, breakpadId) pair from a request. The
// debug name must be a plain file name: it is joined to search directories.
func moduleImage(name, id string) (Image, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return Image{}, badf("debug name %q is not a plain file name", name)
	}
	if len(id) < 33 || len(id) > 40 {
		return Image{}, badf("breakpad id %q: want 33 to 40 hex digits", id)
	}
	for _, c := range id {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return Image{}, badf("breakpad id %q: not hex", id)
		}
	}
	return Image{Path: name, ID: ID{Kind: IDBreakpad, Bytes: []byte(strings.ToUpper(id))}}, nil
}

// Symbolicate answers one API v5 request body.
func (s *Server) Symbolicate(ctx context.Context, body []byte) ([]byte, error) {
	var req v5Request
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return nil, badf("invalid JSON: %v", err)
	}
	jobs := req.Jobs
	if jobs == nil {
		if req.MemoryMap == nil || req.Stacks == nil {
			return nil, badf(`want {"memoryMap": [...], "stacks": [...]} or {"jobs": [...]}`)
		}
		jobs = []v5Job{req.v5Job}
	}
	var resp v5Response
	for ji, job := range jobs {
		res, err := s.job(ctx, job)
		if err != nil {
			if len(jobs) > 1 {
				return nil, badf("job %d: %s", ji, err.(*BadRequestError).Reason)
			}
			return nil, err
		}
		resp.Results = append(resp.Results, res)
	}
	return json.MarshalIndent(resp, "", "  ")
}

type moduleState struct {
	img  Image
	mod  Module
	err  error
	used bool
}

func (s *Server) job(ctx context.Context, job v5Job) (v5Result, error) {
	mods := make([]moduleState, len(job.MemoryMap))
	for i, m := range job.MemoryMap {
		img, err := moduleImage(m[0], m[1])
		if err != nil {
			return v5Result{}, badf("memoryMap[%d]: %s", i, err.(*BadRequestError).Reason)
		}
		mods[i].img = img
	}
	type pos struct{ stack, frame int }
	var reqs []Request
	var where []pos
	res := v5Result{Stacks: make([][]v5Frame, len(job.Stacks)), FoundModules: map[string]bool{}}
	for si, st := range job.Stacks {
		res.Stacks[si] = make([]v5Frame, len(st))
		for fi, fr := range st {
			mi, err := strconv.ParseInt(string(fr[0]), 10, 64)
			if err != nil || mi < 0 || mi >= int64(len(mods)) {
				return v5Result{}, badf("stacks[%d][%d]: module index %s beyond the memoryMap", si, fi, fr[0])
			}
			addr, err := strconv.ParseUint(string(fr[1]), 10, 32)
			if err != nil {
				return v5Result{}, badf("stacks[%d][%d]: address %s is not a 32-bit unsigned integer", si, fi, fr[1])
			}
			m := &mods[mi]
			res.Stacks[si][fi] = v5Frame{Frame: fi, ModuleOffset: fmt.Sprintf("0x%x", addr), Module: m.img.Path}
			if !m.used {
				m.used = true
				m.mod, m.err = s.r.Module(m.img)
				key := m.img.Path + "/" + string(m.img.ID.Bytes)
				res.FoundModules[key] = m.err == nil
				if m.err != nil {
					if res.ModuleErrors == nil {
						res.ModuleErrors = map[string][]v5Error{}
					}
					name := errName(m.err)
					res.ModuleErrors[key] = []v5Error{{Name: name, Message: m.img.Path + ": " + errMessages[name]}}
				}
			}
			if m.err != nil {
				continue
			}
			rel := addr + m.mod.ServerBase - m.mod.Base
			reqs = append(reqs, Request{Image: m.img, Addr: rel})
			where = append(where, pos{si, fi})
		}
	}
	results := s.r.Resolve(ctx, reqs)
	for i, r := range results {
		if len(r.Frames) == 0 {
			continue
		}
		f := &res.Stacks[where[i].stack][where[i].frame]
		outer := r.Frames[len(r.Frames)-1]
		f.Function = outer.Function
		if outer.HasFuncAddr && reqs[i].Addr >= outer.FuncAddr {
			f.FunctionOffset = fmt.Sprintf("0x%x", reqs[i].Addr-outer.FuncAddr)
		} else {
			f.FunctionOffset = "0x0"
		}
		f.File, f.Line = outer.File, outer.Line
		for _, in := range r.Frames[:len(r.Frames)-1] {
			f.Inlines = append(f.Inlines, v5Inline{Function: in.Function, File: in.File, Line: in.Line})
		}
	}
	return res, nil
}

// errMessages word module errors for remote clients without revealing the
// server's paths (the full error stays in the server's own logs).
var errMessages = map[string]string{
	"BuildIDMismatch":   "a file was found but its build id differs from the one requested",
	"NotFound":          "not found in the symbol path",
	"NoDebugInfo":       "found, but without symbols or debug information",
	"UnsupportedFormat": "not an ELF, Mach-O or PE file",
	"Malformed":         "found, but its debug information is malformed",
	"Error":             "could not be read",
}

// errName gives module_errors a stable machine-readable name.
func errName(err error) string {
	names := []struct {
		e error
		n string
	}{
		{ErrBuildIDMismatch, "BuildIDMismatch"}, {ErrImageNotFound, "NotFound"},
		{ErrNoDebugInfo, "NoDebugInfo"}, {ErrUnsupportedFormat, "UnsupportedFormat"},
		{ErrMalformed, "Malformed"},
	}
	// Checked in order: a not-found error that rejected a mismatching file
	// is reported as the mismatch, the actionable reason.
	for _, x := range names {
		if errors.Is(err, x.e) {
			return x.n
		}
	}
	return "Error"
}
