package symbolize

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/symbols"
)

// Strings a TRACY_SYMBOL_OFFLINE_RESOLVE client puts in the frames it does
// not resolve; Tracy's update tool recognises them by the name prefix.
const (
	UnresolvedName = "[unresolved]"
	UnknownFile    = "[unknown]"
)

// Call-stack frame ids (keys of Trace.Frames): bits 0-61 hold the address with its
// top two bits dropped, bit 62 marks a synthetic (Lua-style) frame.
const (
	frameIdxMask = 1<<62 - 1
	frameSel     = 1 << 62
	// maxLevels is the most inline levels a frame may have: the file
	// stores the count in a u8.
	maxLevels = 255
)

// Canonical turns a stored frame id back into the address the client sent
// (bits 60-61 copied into 62-63, as Tracy's server does).
func Canonical(id uint64) uint64 {
	idx := id & frameIdxMask
	return idx | (idx&0x3000000000000000)<<2
}

// IsSynthetic reports whether a frame id names a frame built from an
// allocated call-stack payload (Lua and the like), which has no address.
func IsSynthetic(id uint64) bool { return id&frameSel != 0 }

// Offline reports whether fd is a frame in offline-resolve form (one level
// named "[unresolved]", Tracy's test is a prefix match) and returns its
// image-relative address.
func Offline(t *model.Trace, fd *model.FrameData) (offset uint64, ok bool) {
	if len(fd.Frames) == 0 || !strings.HasPrefix(t.Str(fd.Frames[0].Name), UnresolvedName) {
		return 0, false
	}
	return fd.Frames[0].SymAddr, true
}

// Frames converts a symbols result into the levels of a call-stack frame,
// innermost first, each carrying addr (the image-relative address) as
// symAddr. It reports false, and returns nothing, when the result names no
// function or rests on a debug file rejected for its build id: such a frame
// must stay as it was.
func Frames(res symbols.Result, addr uint64, intern func(string) model.StrID) ([]model.InlineFrame, bool) {
	if len(res.Frames) == 0 || res.Frames[0].Function == "" {
		return nil, false
	}
	if res.Err != nil && errors.Is(res.Err, symbols.ErrBuildIDMismatch) {
		return nil, false
	}
	n := min(len(res.Frames), maxLevels)
	out := make([]model.InlineFrame, 0, n)
	for _, f := range res.Frames[:n] {
		name, file := f.Function, f.File
		if name == "" {
			name = UnknownFile
		}
		if file == "" {
			file = UnknownFile
		}
		out = append(out, model.InlineFrame{Name: intern(name), File: intern(file), Line: uint32(max(f.Line, 0)), SymAddr: addr})
	}
	return out, true
}

// ImageRecord is one image of the profiled process as a trace records it in
// an app-info line (see the package documentation).
type ImageRecord struct {
	Path string
	ID   symbols.ID // zero when unknown
	Base uint64     // load base: absolute address minus image-relative address
	Size uint64     // 0 when unknown
	// Logical: the client lists inlined calls as call-stack entries of their
	// own (the Go client, whose runtime.Callers does), so each address
	// resolves to its innermost source level only (see LogicalFrame).
	Logical bool
}

const imagePrefix = "gotracy image: "

// AppInfo formats the record as its app-info line. The path comes last so
// that it may contain spaces.
func (r ImageRecord) AppInfo() string {
	frames := ""
	if r.Logical {
		frames = "frames=logical "
	}
	return fmt.Sprintf("%sbase=%#x size=%#x id=%s %spath=%s", imagePrefix, r.Base, r.Size, r.ID, frames, r.Path)
}

// LogicalFrame keeps only the innermost level of a result: the answer for
// an address of a Logical image, whose outer inline levels are separate
// call-stack entries already.
func LogicalFrame(res symbols.Result) symbols.Result {
	if len(res.Frames) > 1 {
		res.Frames = res.Frames[:1:1]
		res.Frames[0].Inlined = false
	}
	return res
}

// ParseImageRecord parses an app-info line written by AppInfo; ok is false
// for any other line.
func ParseImageRecord(s string) (r ImageRecord, ok bool) {
	rest, found := strings.CutPrefix(s, imagePrefix)
	if !found {
		return r, false
	}
	for _, key := range []string{"base=", "size=", "id="} {
		v, tail, found := strings.Cut(rest, " ")
		if !found || !strings.HasPrefix(v, key) {
			return r, false
		}
		v = v[len(key):]
		rest = tail
		switch key {
		case "base=", "size=":
			n, err := strconv.ParseUint(v, 0, 64)
			if err != nil {
				return r, false
			}
			if key == "base=" {
				r.Base = n
			} else {
				r.Size = n
			}
		case "id=":
			id, err := symbols.ParseID(v)
			if err != nil {
				return r, false
			}
			r.ID = id
		}
	}
	if tail, ok := strings.CutPrefix(rest, "frames=logical "); ok {
		r.Logical, rest = true, tail
	}
	p, found := strings.CutPrefix(rest, "path=")
	if !found || p == "" {
		return r, false
	}
	r.Path = p
	return r, true
}

// Images returns the image records of a trace by path (the last record of
// a path wins).
func Images(t *model.Trace) map[string]ImageRecord {
	m := map[string]ImageRecord{}
	for _, ref := range t.AppInfo {
		if r, ok := ParseImageRecord(t.RefString(ref)); ok {
			m[r.Path] = r
		}
	}
	return m
}

// AddImage appends r as an app-info line, unless the trace already has a
// record of the same path with the same base, id and size.
func AddImage(t *model.Trace, r ImageRecord, intern func(string) model.StrID) {
	if old, ok := Images(t)[r.Path]; ok && old.Base == r.Base && old.Size == r.Size && old.ID.String() == r.ID.String() && old.Logical == r.Logical {
		return
	}
	t.AppInfo = append(t.AppInfo, model.IdxRef(intern(r.AppInfo())))
}

// Interner interns strings into a trace by content, reusing the ids of
// strings it already holds.
type Interner struct {
	t   *model.Trace
	ids map[string]model.StrID
}

// NewInterner indexes the strings of t.
func NewInterner(t *model.Trace) *Interner {
	in := &Interner{t: t, ids: make(map[string]model.StrID, len(t.Strings))}
	for i := len(t.Strings) - 1; i > 0; i-- {
		in.ids[t.Strings[i]] = model.StrID(i)
	}
	return in
}

// Intern returns the id of s, adding it to the trace when new.
func (in *Interner) Intern(s string) model.StrID {
	if id, ok := in.ids[s]; ok {
		return id
	}
	id := model.StrID(len(in.t.Strings))
	in.t.Strings = append(in.t.Strings, s)
	in.ids[s] = id
	return id
}
