package symbols

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A v5 request is parsed token by token as it arrives, into pjobs: the
// modules, and each frame packed as module index << 32 | address in
// fixed-size blocks (no doubling copies), so a request holds 8 bytes per
// address plus 4 per stack however its JSON was spelled.
type pjob struct {
	mods            []Image
	frames          blockList[uint64]
	ends            blockList[uint32] // frame count at the end of each stack
	hasMap, hasStks bool
}

const blockLen = 4096

type blockList[T any] struct {
	blocks [][]T
	n      int
}

func (b *blockList[T]) add(v T) {
	if b.n%blockLen == 0 {
		b.blocks = append(b.blocks, make([]T, 0, blockLen))
	}
	b.blocks[len(b.blocks)-1] = append(b.blocks[len(b.blocks)-1], v)
	b.n++
}

func (b *blockList[T]) at(i int) T { return b.blocks[i/blockLen][i%blockLen] }

type v5Parser struct {
	s     *Server
	l     lexer
	items int // frames + stacks of the request so far
	mods  int // memoryMap entries so far
}

// parseV5 reads a whole v5 request: {"memoryMap": [...], "stacks": [...]}
// or {"jobs": [{...}, ...]}. Errors are *BadRequestError (413 for a limit),
// or the body reader's error (timeouts, the size limit).
func (s *Server) parseV5(r io.Reader) ([]*pjob, error) {
	p := &v5Parser{s: s, l: lexer{r: bufio.NewReaderSize(r, 32<<10)}}
	return p.request()
}

func (p *v5Parser) request() ([]*pjob, error) {
	l := &p.l
	c, err := l.need()
	if err != nil {
		return nil, err
	}
	if c != '{' {
		return nil, badf(`want {"memoryMap": [...], "stacks": [...]} or {"jobs": [...]}`)
	}
	l.advance()
	top := &pjob{}
	var jobs []*pjob
	sawJobs := false
	for i := 0; ; i++ {
		key, ok, err := l.member('}', i)
		if err != nil || !ok {
			if err != nil {
				return nil, err
			}
			break
		}
		if !strings.EqualFold(key, "jobs") {
			if err := p.member(top, key); err != nil {
				return nil, err
			}
			continue
		}
		sawJobs, jobs = true, jobs[:0]
		if err := l.delim('[', "jobs"); err != nil {
			return nil, err
		}
		for ji := 0; ; ji++ {
			if ok, err := l.elem(']', ji); err != nil || !ok {
				if err != nil {
					return nil, err
				}
				break
			}
			j := &pjob{}
			if err := l.delim('{', "jobs[%d]", ji); err != nil {
				return nil, err
			}
			for k := 0; ; k++ {
				key, ok, err := l.member('}', k)
				if err != nil || !ok {
					if err != nil {
						return nil, badJob(err, ji)
					}
					break
				}
				if err := p.member(j, key); err != nil {
					return nil, badJob(err, ji)
				}
			}
			if err := j.check(); err != nil {
				return nil, badJob(err, ji)
			}
			jobs = append(jobs, j)
		}
	}
	if _, err := l.peek(); err == nil {
		return nil, badf("invalid JSON: data after the request object")
	} else if !errors.Is(err, errEnd) {
		return nil, err
	}
	if sawJobs {
		return jobs, nil
	}
	if !top.hasMap || !top.hasStks {
		return nil, badf(`want {"memoryMap": [...], "stacks": [...]} or {"jobs": [...]}`)
	}
	if err := top.check(); err != nil {
		return nil, err
	}
	return []*pjob{top}, nil
}

// badJob prefixes a job's error with its index, keeping its status.
func badJob(err error, i int) error {
	var bad *BadRequestError
	if errors.As(err, &bad) {
		return &BadRequestError{Reason: fmt.Sprintf("job %d: %s", i, bad.Reason), Status: bad.Status}
	}
	return err
}

// member reads the value of key into j; unknown keys are skipped.
func (p *v5Parser) member(j *pjob, key string) error {
	// Keys match case-insensitively, as encoding/json (which this parser
	// replaced) matched them.
	switch {
	case strings.EqualFold(key, "memoryMap"): // a repeated key replaces the value, as in encoding/json
		j.hasMap, j.mods = true, nil
		return p.memoryMap(j)
	case strings.EqualFold(key, "stacks"):
		j.hasStks, j.frames, j.ends = true, blockList[uint64]{}, blockList[uint32]{}
		return p.stacks(j)
	}
	return p.l.skip()
}

func (p *v5Parser) memoryMap(j *pjob) error {
	l := &p.l
	if err := l.delim('[', "memoryMap"); err != nil {
		return err
	}
	for i := 0; ; i++ {
		if ok, err := l.elem(']', i); err != nil || !ok {
			return err
		}
		if p.mods++; p.mods > p.s.MaxModules {
			return tooLargef("more than %d memoryMap entries in one request", p.s.MaxModules)
		}
		what := fmt.Sprintf("memoryMap[%d]", i)
		if err := l.delim('[', "%s", what); err != nil {
			return err
		}
		var pair [2]string
		for k := range pair {
			if ok, err := l.elem(']', k); err != nil || !ok {
				if err == nil {
					err = badf("%s: want [debugName, breakpadId], found %d element(s)", what, k)
				}
				return err
			}
			s, err := l.str(what + ": want [debugName, breakpadId]")
			if err != nil {
				return err
			}
			pair[k] = s
		}
		if ok, err := l.elem(']', 2); err != nil || ok {
			if err == nil {
				err = badf("%s: want a [debugName, breakpadId] pair, found more elements", what)
			}
			return err
		}
		img, err := moduleImage(pair[0], pair[1])
		if err != nil {
			return badf("%s: %s", what, err.(*BadRequestError).Reason)
		}
		j.mods = append(j.mods, img)
	}
}

func (p *v5Parser) count() error {
	if p.items++; p.items > p.s.MaxAddresses {
		return tooLargef("more than %d addresses and stacks in one request; split it", p.s.MaxAddresses)
	}
	return nil
}

func (p *v5Parser) stacks(j *pjob) error {
	l := &p.l
	if err := l.delim('[', "stacks"); err != nil {
		return err
	}
	for si := 0; ; si++ {
		if ok, err := l.elem(']', si); err != nil || !ok {
			return err
		}
		if err := p.count(); err != nil {
			return err
		}
		if err := l.delim('[', "stacks[%d]", si); err != nil {
			return err
		}
		for fi := 0; ; fi++ {
			if ok, err := l.elem(']', fi); err != nil || !ok {
				if err != nil {
					return err
				}
				break
			}
			if err := p.count(); err != nil {
				return err
			}
			mi, addr, err := p.frame(si, fi)
			if err != nil {
				return err
			}
			j.frames.add(mi<<32 | addr)
		}
		j.ends.add(uint32(j.frames.n))
	}
}

// frame reads one [moduleIndex, address] pair.
func (p *v5Parser) frame(si, fi int) (mi, addr uint64, err error) {
	l := &p.l
	what := func() string { return fmt.Sprintf("stacks[%d][%d]", si, fi) }
	if err := l.delim('[', "stacks[%d][%d]", si, fi); err != nil {
		return 0, 0, err
	}
	var vals [2]uint64
	for k := range vals {
		if ok, err := l.elem(']', k); err != nil || !ok {
			if err == nil {
				err = badf("%s: want [moduleIndex, address], found %d element(s)", what(), k)
			}
			return 0, 0, err
		}
		n, err := l.num("stacks[%d][%d]: want [moduleIndex, address]", si, fi)
		if err != nil {
			return 0, 0, err
		}
		v, ok := parseDecimal(n)
		switch {
		case k == 0 && (!ok || v > 1<<31):
			return 0, 0, badf("%s: module index %s beyond the memoryMap", what(), n)
		case k == 1 && (!ok || v > 0xffffffff):
			return 0, 0, badf("%s: address %s is not a 32-bit unsigned integer", what(), n)
		}
		vals[k] = v
	}
	if ok, err := l.elem(']', 2); err != nil || ok {
		if err == nil {
			err = badf("%s: want a [moduleIndex, address] pair, found more elements", what())
		}
		return 0, 0, err
	}
	return vals[0], vals[1], nil
}

// parseDecimal parses a JSON number that is a plain unsigned integer below
// 2^63 (no sign, fraction or exponent).
func parseDecimal(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 18 || (len(b) > 1 && b[0] == '0') {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// check validates what could only be checked once the whole job was read:
// every frame's module index against the memoryMap, which may come after
// the stacks in the object.
func (j *pjob) check() error {
	si := 0
	for i := 0; i < j.frames.n; i++ {
		for si < j.ends.n && int(j.ends.at(si)) <= i {
			si++
		}
		if mi := int(j.frames.at(i) >> 32); mi >= len(j.mods) {
			start := 0
			if si > 0 {
				start = int(j.ends.at(si - 1))
			}
			return badf("stacks[%d][%d]: module index %d beyond the memoryMap", si, i-start, mi)
		}
	}
	return nil
}

type moduleState struct {
	img  Image
	mod  Module
	err  error
	used bool
}

// Symbolicate answers one API v5 request body with the whole response in
// memory; the HTTP handler streams instead. Errors are *BadRequestError.
func (s *Server) Symbolicate(ctx context.Context, body []byte) ([]byte, error) {
	jobs, err := s.parseV5(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	if err := s.writeV5(ctx, bw, jobs); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// writeV5 writes the response, resolving resolveWindow addresses at a time
// and flushing bw as it fills, then flushes the rest.
func (s *Server) writeV5(ctx context.Context, bw *bufio.Writer, jobs []*pjob) error {
	var buf []byte
	buf = append(buf, `{"results":[`...)
	for ji, j := range jobs {
		if ji > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = s.writeJob(ctx, bw, buf, j); err != nil {
			return err
		}
	}
	buf = append(buf, "]}"...)
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

func (s *Server) writeJob(ctx context.Context, bw *bufio.Writer, buf []byte, j *pjob) ([]byte, error) {
	mods := make([]moduleState, len(j.mods))
	for i, img := range j.mods {
		mods[i].img = img
	}
	found := map[string]bool{}
	modErrs := map[string][2]string{} // key -> error name, module path
	buf = append(buf, `{"stacks":[`...)
	var (
		reqs    []Request
		which   []int // frame index of each request
		results []Result
		open    = -1 // stack whose '[' was written
		start   int  // its first frame
	)
	// openStack writes the brackets up to and including stack k's '['.
	openStack := func(k int) {
		for open < k {
			if open >= 0 {
				buf = append(buf, ']')
			}
			open++
			if open > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			if open > 0 {
				start = int(j.ends.at(open - 1))
			}
		}
	}
	si := 0 // stack of the frame being written
	for lo := 0; lo < j.frames.n; lo += resolveWindow {
		hi := min(lo+resolveWindow, j.frames.n)
		reqs, which = reqs[:0], which[:0]
		for i := lo; i < hi; i++ {
			f := j.frames.at(i)
			m := &mods[f>>32]
			if !m.used {
				m.used = true
				m.mod, m.err = s.r.Module(m.img)
				key := m.img.Path + "/" + string(m.img.ID.Bytes)
				found[key] = m.err == nil
				if m.err != nil {
					modErrs[key] = [2]string{errName(m.err), m.img.Path}
				}
			}
			if m.err != nil {
				continue
			}
			reqs = append(reqs, Request{Image: m.img, Addr: uint64(uint32(f)) + m.mod.ServerBase - m.mod.Base})
			which = append(which, i)
		}
		results = s.r.Resolve(ctx, reqs)
		if err := ctx.Err(); err != nil {
			return buf, err
		}
		ri := 0
		for i := lo; i < hi; i++ {
			for int(j.ends.at(si)) <= i {
				si++
			}
			openStack(si)
			if i > start {
				buf = append(buf, ',')
			}
			f := j.frames.at(i)
			var r *Result
			var rel uint64
			if ri < len(which) && which[ri] == i {
				r, rel = &results[ri], reqs[ri].Addr
				ri++
			}
			buf = appendFrame(buf, i-start, uint32(f), mods[f>>32].img.Path, r, rel)
			if len(buf) >= 32<<10 {
				if _, err := bw.Write(buf); err != nil {
					return buf[:0], err
				}
				buf = buf[:0]
			}
		}
		clear(results) // let the frames' slabs go before the next window
	}
	if j.ends.n > 0 {
		openStack(j.ends.n - 1)
		buf = append(buf, ']')
	}
	buf = append(buf, `],"found_modules":{`...)
	keys := make([]string, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, k)
		buf = append(buf, ':')
		buf = strconv.AppendBool(buf, found[k])
	}
	buf = append(buf, '}')
	if len(modErrs) > 0 {
		buf = append(buf, `,"module_errors":{`...)
		first := true
		for _, k := range keys {
			e, ok := modErrs[k]
			if !ok {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = appendString(buf, k)
			buf = append(buf, `:[{"name":`...)
			buf = appendString(buf, e[0])
			buf = append(buf, `,"message":`...)
			buf = appendString(buf, e[1]+": "+errMessages[e[0]])
			buf = append(buf, "}]"...)
		}
		buf = append(buf, '}')
	}
	buf = append(buf, '}')
	return buf, nil
}

// appendFrame writes one frame object as encoding/json would marshal the
// API's frame shape (fields in order, empty ones omitted).
func appendFrame(buf []byte, fi int, addr uint32, module string, r *Result, rel uint64) []byte {
	buf = append(buf, `{"frame":`...)
	buf = strconv.AppendInt(buf, int64(fi), 10)
	buf = append(buf, `,"module_offset":"0x`...)
	buf = strconv.AppendUint(buf, uint64(addr), 16)
	buf = append(buf, `","module":`...)
	buf = appendString(buf, module)
	if r != nil && len(r.Frames) > 0 {
		outer := r.Frames[len(r.Frames)-1]
		if outer.Function != "" {
			buf = append(buf, `,"function":`...)
			buf = appendString(buf, outer.Function)
		}
		buf = append(buf, `,"function_offset":"0x`...)
		if outer.HasFuncAddr && rel >= outer.FuncAddr {
			buf = strconv.AppendUint(buf, rel-outer.FuncAddr, 16)
		} else {
			buf = append(buf, '0')
		}
		buf = append(buf, '"')
		buf = appendFileLine(buf, outer.File, outer.Line)
		if len(r.Frames) > 1 {
			buf = append(buf, `,"inlines":[`...)
			for k, in := range r.Frames[:len(r.Frames)-1] {
				if k > 0 {
					buf = append(buf, ',')
				}
				buf = append(buf, '{')
				mark := len(buf)
				if in.Function != "" {
					buf = append(buf, `,"function":`...)
					buf = appendString(buf, in.Function)
				}
				buf = appendFileLine(buf, in.File, in.Line)
				if len(buf) > mark {
					buf = append(buf[:mark], buf[mark+1:]...) // the first field has no comma
				}
				buf = append(buf, '}')
			}
			buf = append(buf, ']')
		}
	}
	return append(buf, '}')
}

func appendFileLine(buf []byte, file string, line int) []byte {
	if file != "" {
		buf = append(buf, `,"file":`...)
		buf = appendString(buf, file)
	}
	if line != 0 {
		buf = append(buf, `,"line":`...)
		buf = strconv.AppendInt(buf, int64(line), 10)
	}
	return buf
}

// appendString appends s as a JSON string exactly as encoding/json writes
// it (HTML-safe escapes, invalid UTF-8 replaced), taking a copy-free path
// for the plain ASCII that almost every symbol and path is.
func appendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return append(buf, b...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}
