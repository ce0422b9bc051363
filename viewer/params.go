package viewer

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/viewer/lod"
)

// checkParams refuses parameters an endpoint does not know and repeated
// ones: a typo ("widht") must not silently fall back to a default.
func checkParams(r *http.Request, known ...string) error {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		// Query() would drop the bad pair and answer as if it were absent.
		return badRequest("the query string is malformed (%v)", err)
	}
	for k, v := range q {
		ok := false
		for _, n := range known {
			if k == n {
				ok = true
				break
			}
		}
		if !ok {
			if len(known) == 0 {
				return badRequest("%s takes no parameters, got %q", r.URL.Path, k)
			}
			return badRequest("unknown parameter %q (this endpoint takes %s)", k, strings.Join(known, ", "))
		}
		if len(v) > 1 {
			return badRequest("parameter %q given %d times, expected once", k, len(v))
		}
	}
	return nil
}

// params reads one request's query parameters, keeping the first error so
// a handler reads everything and checks once.
type params struct {
	r   *http.Request
	q   url.Values // parsed once, on first use
	err error
}

func (p *params) values() url.Values {
	if p.q == nil {
		p.q = p.r.URL.Query()
	}
	return p.q
}

func (p *params) raw(name string) (string, bool) {
	if p.err != nil {
		return "", false
	}
	v := p.values()
	if _, ok := v[name]; !ok {
		return "", false
	}
	return v.Get(name), true
}

// int reads an integer parameter in lo..hi, def when absent.
func (p *params) int(name string, def, lo, hi int64) int64 {
	s, ok := p.raw(name)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		p.err = badRequest("parameter %s must be an integer, got %q", name, s)
		return def
	}
	if n < lo || n > hi {
		p.err = badRequest("parameter %s must be %d..%d, got %d", name, lo, hi, n)
		return def
	}
	return n
}

// need reads a required integer parameter in lo..hi.
func (p *params) need(name string, lo, hi int64) int64 {
	if p.err == nil {
		if _, ok := p.values()[name]; !ok {
			p.err = badRequest("parameter %s is required", name)
			return 0
		}
	}
	return p.int(name, 0, lo, hi)
}

func (p *params) float(name string, def, lo, hi float64) float64 {
	s, ok := p.raw(name)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		p.err = badRequest("parameter %s must be a finite number, got %q", name, s)
		return def
	}
	if f < lo || f > hi {
		p.err = badRequest("parameter %s must be %g..%g, got %g", name, lo, hi, f)
		return def
	}
	return f
}

func (p *params) bool(name string) bool {
	s, ok := p.raw(name)
	if !ok {
		return false
	}
	switch s {
	case "1", "true", "":
		return true
	case "0", "false":
		return false
	}
	p.err = badRequest("parameter %s must be 1 or 0, got %q", name, s)
	return false
}

// oneOf reads a parameter that must be one of choices (the first is the
// default).
func (p *params) oneOf(name string, choices ...string) string {
	s, ok := p.raw(name)
	if !ok {
		return choices[0]
	}
	for _, c := range choices {
		if s == c {
			return s
		}
	}
	p.err = badRequest("parameter %s must be one of %s, got %q", name, strings.Join(choices, ", "), s)
	return choices[0]
}

func (p *params) str(name string, maxLen int) string {
	s, ok := p.raw(name)
	if !ok {
		return ""
	}
	if len(s) > maxLen {
		p.err = badRequest("parameter %s must be at most %d bytes, got %d", name, maxLen, len(s))
		return ""
	}
	return s
}

// Times are limited to what a JavaScript number holds exactly, which is
// also far beyond any trace (104 days).
const maxTime = 1<<53 - 1

// window reads t0, t1 (default: the whole trace) and width (required),
// the window every timeline-like endpoint takes.
func (s *Server) window(p *params, minpx bool) lod.Query {
	first, last := analysis.FirstTime(s.t), s.t.Metadata.LastTime
	if last <= first {
		last = first + 1
	}
	q := lod.Query{
		T0:    p.int("t0", first, -maxTime, maxTime),
		T1:    p.int("t1", last, -maxTime, maxTime),
		Width: int(p.need("width", 1, lod.MaxWidth)),
	}
	if minpx {
		q.MinPx = p.float("minpx", 0, 0, float64(lod.MaxWidth))
	}
	if p.err == nil && q.T1 <= q.T0 {
		p.err = badRequest("the window must end after it starts, got t0=%d t1=%d", q.T0, q.T1)
	}
	if p.err == nil && q.MinPx > float64(q.Width) {
		p.err = badRequest("parameter minpx must be 0..width (%d), got %g", q.Width, q.MinPx)
	}
	return q
}
