package symbolize

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/symbols"
)

// Options select what Trace resolves.
type Options struct {
	// Reset re-resolves every frame whose image-relative address is known,
	// also frames resolved before (by the client or an earlier run); Tracy's
	// update -R followed by -r. Without it only offline-form frames are
	// resolved (update -r).
	Reset bool
	// IDs gives the build id expected for an image path; it overrides the
	// id of the trace's own image record. A file with another id is never
	// used.
	IDs map[string]symbols.ID
}

// Report says what Trace did, per image.
type Report struct {
	Frames     int // call-stack frames (distinct addresses) in the trace
	Candidates int // frames asked for
	Resolved   int // frames rewritten with resolved levels
	Unresolved int // frames asked for and left as they were
	// Unaddressable counts frames Reset could not re-resolve because
	// their image's load base is unknown (client-resolved frames of an image
	// that has no record and no offline frame); they are kept as they are.
	Unaddressable int
	Images        []ImageReport // ordered by path

	idx map[string]int // Record: path -> index in Images
}

// Record counts the outcome of one frame resolved elsewhere (the capture
// server resolves frames as they arrive and reports with the same type).
// ok says whether the frame was rewritten; err is the symbols result's
// error.
func (r *Report) Record(path string, id symbols.ID, ok bool, err error) {
	if r.idx == nil {
		r.idx = map[string]int{}
		for i := range r.Images {
			r.idx[r.Images[i].Path] = i
		}
	}
	i, found := r.idx[path]
	if !found {
		i = len(r.Images)
		r.idx[path] = i
		r.Images = append(r.Images, ImageReport{Path: path, ID: id})
	}
	ir := &r.Images[i]
	r.Candidates++
	ir.Asked++
	if ok {
		r.Resolved++
		ir.Resolved++
		return
	}
	r.Unresolved++
	ir.addReason(err)
}

// ImageReport is the outcome for one image.
type ImageReport struct {
	Path     string
	ID       symbols.ID // the id verified against, zero = path trusted
	Base     uint64
	HasBase  bool
	Logical  bool // resolved to the innermost level only (ImageRecord.Logical)
	Asked    int
	Resolved int
	Reasons  []Reason // why frames stayed unresolved, most frequent first
}

// Reason groups the unresolved frames of an image by cause.
type Reason struct {
	// Kind is the symbols sentinel the errors wrap (ErrBuildIDMismatch,
	// ErrImageNotFound, ...), or ErrNoFunction for a result without a name.
	Kind error
	// Example is the first full error of this kind (it names the files
	// searched or rejected).
	Example error
	Count   int
}

// ErrNoFunction is the reason of a frame for which the debug information
// names no function.
var ErrNoFunction = errors.New("symbolize: no function at address")

// ErrOther is the Kind of a failure that wraps none of the symbols
// sentinels; Reason.Example holds it.
var ErrOther = errors.New("symbolize: resolution failed")

// sentinels in the order a result's error is classified: a rejected file
// explains a "not found" better than the not-found itself.
var sentinels = []error{
	symbols.ErrBuildIDMismatch, symbols.ErrImageNotFound, symbols.ErrNoDebugInfo,
	symbols.ErrAddressNotFound, symbols.ErrUnsupportedFormat, symbols.ErrMalformed, symbols.ErrClosed,
	context.Canceled, context.DeadlineExceeded,
}

func classify(err error) error {
	if err == nil {
		return ErrNoFunction
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s
		}
	}
	return ErrOther
}

// Kernel and unknown images have nothing to resolve against.
func unresolvableImage(p string) bool {
	return p == "" || p == "<kernel>" || p == UnknownFile
}

type job struct {
	id   uint64 // frame id (map key)
	addr uint64 // image-relative address
	img  int    // index in Report.Images
}

// Trace resolves the call-stack frames of t in place (see the package
// documentation for which frames and how), using r. It returns an error
// only when ctx ends; frames that cannot be resolved are counted in the
// Report, per image and reason.
func Trace(ctx context.Context, t *model.Trace, r *symbols.Resolver, opt Options) (*Report, error) {
	rep := &Report{Frames: len(t.Frames)}
	records := Images(t)

	// Load bases seen in offline frames: absolute address - offset.
	derived := map[string]map[uint64]int{}
	keys := make([]uint64, 0, len(t.Frames))
	for id, fd := range t.Frames {
		keys = append(keys, id)
		if IsSynthetic(id) {
			continue
		}
		if off, ok := Offline(t, &fd); ok {
			p := t.Str(fd.ImageName)
			if derived[p] == nil {
				derived[p] = map[uint64]int{}
			}
			derived[p][Canonical(id)-off]++
		}
	}
	slices.Sort(keys)

	imgIdx := map[string]int{}
	image := func(p string) int {
		if i, ok := imgIdx[p]; ok {
			return i
		}
		ir := ImageReport{Path: p}
		if rec, ok := records[p]; ok {
			ir.ID, ir.Base, ir.HasBase, ir.Logical = rec.ID, rec.Base, true, rec.Logical
		} else if d := derived[p]; len(d) == 1 {
			for b := range d {
				ir.Base, ir.HasBase = b, true
			}
		}
		if id, ok := opt.IDs[p]; ok {
			ir.ID = id
		}
		imgIdx[p] = len(rep.Images)
		rep.Images = append(rep.Images, ir)
		return imgIdx[p]
	}

	var jobs []job
	for _, id := range keys {
		if IsSynthetic(id) {
			continue
		}
		fd := t.Frames[id]
		p := t.Str(fd.ImageName)
		off, offline := Offline(t, &fd)
		switch {
		case offline:
			if unresolvableImage(p) {
				continue
			}
			i := image(p)
			jobs = append(jobs, job{id, off, i})
		case opt.Reset:
			if unresolvableImage(p) {
				continue
			}
			i := image(p)
			ir := &rep.Images[i]
			if a := Canonical(id); ir.HasBase && a >= ir.Base {
				jobs = append(jobs, job{id, a - ir.Base, i})
			} else {
				rep.Unaddressable++
			}
		}
	}
	rep.Candidates = len(jobs)

	reqs := make([]symbols.Request, len(jobs))
	for i, j := range jobs {
		ir := &rep.Images[j.img]
		reqs[i] = symbols.Request{Image: symbols.Image{Path: ir.Path, ID: ir.ID}, Addr: j.addr}
	}
	results := r.Resolve(ctx, reqs)
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("symbolize: %w", err)
	}

	in := NewInterner(t)
	for i, j := range jobs {
		ir := &rep.Images[j.img]
		ir.Asked++
		res := results[i]
		if ir.Logical {
			res = LogicalFrame(res)
		}
		levels, ok := Frames(res, j.addr, in.Intern)
		if !ok {
			rep.Unresolved++
			ir.addReason(results[i].Err)
			continue
		}
		fd := t.Frames[j.id]
		fd.Frames = levels
		t.Frames[j.id] = fd
		ir.Resolved++
		rep.Resolved++
	}

	// Record what was learnt about each image, so that a later run (say
	// with --reset and another debug file) can address its frames again.
	for i := range rep.Images {
		ir := &rep.Images[i]
		if !ir.HasBase {
			continue
		}
		rec := records[ir.Path]
		if _, ok := records[ir.Path]; !ok {
			rec = ImageRecord{Path: ir.Path, Base: ir.Base, Logical: ir.Logical}
		}
		if !ir.ID.IsZero() {
			rec.ID = ir.ID
		}
		AddImage(t, rec, in.Intern)
	}
	rep.Sort()
	return rep, nil
}

// Sort orders the images by path and each image's reasons by frequency.
func (r *Report) Sort() {
	for i := range r.Images {
		slices.SortStableFunc(r.Images[i].Reasons, func(a, b Reason) int { return b.Count - a.Count })
	}
	slices.SortFunc(r.Images, func(a, b ImageReport) int { return strings.Compare(a.Path, b.Path) })
	r.idx = nil
}

func (ir *ImageReport) addReason(err error) {
	k := classify(err)
	for i := range ir.Reasons {
		if ir.Reasons[i].Kind == k {
			ir.Reasons[i].Count++
			return
		}
	}
	if err == nil {
		err = ErrNoFunction
	}
	ir.Reasons = append(ir.Reasons, Reason{Kind: k, Example: err, Count: 1})
}
