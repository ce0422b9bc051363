package capture

import (
	"context"
	"fmt"
	"strings"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/symbolize"
	"github.com/gotracy/gotracy/symbols"
)

// SymbolMode says where call-stack frames are resolved: Tracy's
// "attempt resolution by the profiler" and "prevent resolution by the
// application" settings.
type SymbolMode uint8

const (
	// SymbolsClient stores frames as the client resolved them (Tracy's
	// default; the trace is what tracy-capture writes).
	SymbolsClient SymbolMode = iota
	// SymbolsServer resolves, on this machine, the frames a client left in
	// offline-resolve form (TRACY_SYMBOL_OFFLINE_RESOLVE: "[unresolved]",
	// symAddr = image-relative address, image = full path).
	SymbolsServer
	// SymbolsNone stores frames as sent and resolves nothing; offline frames
	// stay resolvable later with `gotracy symbolize`.
	SymbolsNone
)

func (m SymbolMode) String() string {
	switch m {
	case SymbolsClient:
		return "client"
	case SymbolsServer:
		return "server"
	case SymbolsNone:
		return "none"
	}
	return fmt.Sprintf("SymbolMode(%d)", uint8(m))
}

// ParseSymbolMode parses "client", "server" or "none".
func ParseSymbolMode(s string) (SymbolMode, error) {
	for _, m := range []SymbolMode{SymbolsClient, SymbolsServer, SymbolsNone} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("capture: symbol mode %q: want client, server or none", s)
}

// WithSymbols selects the symbol mode; SymbolsServer needs a resolver (the
// caller owns it and closes it after the capture returns).
func WithSymbols(mode SymbolMode, r *symbols.Resolver) Option {
	return func(c *config) { c.symMode, c.resolver = mode, r }
}

// maxSymBatches bounds the batches resolving at once. While they run, new
// frames accumulate into the next batch, so a slow resolver makes batches
// larger rather than goroutines more numerous.
const maxSymBatches = 4

// symJob is one frame waiting for the resolver.
type symJob struct {
	id    uint64 // frame id (key of Trace.Frames)
	addr  uint64 // image-relative address
	image model.StrID
}

type symBatch struct {
	jobs []symJob
	res  []symbols.Result
}

// serverSymbols resolves offline-form frames during a capture. The
// resolution itself runs on the resolver's goroutines (ResolveAsync); the
// frames are rewritten only by the consumer, when it receives a finished
// batch, so the model keeps its single writer and ingest never waits for
// debug information to be parsed.
type serverSymbols struct {
	r        *symbols.Resolver
	pending  []symJob
	inflight int
	results  chan symBatch
	bases    map[model.StrID]uint64 // load base per image, from the first frame
	conflict map[model.StrID]bool   // images seen at two bases (reloaded)
	order    []model.StrID          // images in first-seen order
	ids      map[string]symbols.ID  // build ids from the client's image list
	logical  map[string]bool        // images whose addresses are logical frames
	report   symbolize.Report
}

func newServerSymbols(r *symbols.Resolver) *serverSymbols {
	return &serverSymbols{
		r:        r,
		results:  make(chan symBatch, maxSymBatches),
		bases:    map[model.StrID]uint64{},
		conflict: map[model.StrID]bool{},
		ids:      map[string]symbols.ID{},
		logical:  map[string]bool{},
	}
}

// noteFrame is called for every completed frame answer; offline-form ones
// are queued for resolution.
func (s *serverSymbols) noteFrame(t *model.Trace, id uint64, fd *model.FrameData) {
	off, ok := symbolize.Offline(t, fd)
	if !ok {
		return
	}
	p := t.Str(fd.ImageName)
	if p == "" || p == "<kernel>" || p == symbolize.UnknownFile {
		return
	}
	base := symbolize.Canonical(id) - off
	if b, seen := s.bases[fd.ImageName]; !seen {
		s.bases[fd.ImageName] = base
		s.order = append(s.order, fd.ImageName)
	} else if b != base {
		s.conflict[fd.ImageName] = true
	}
	s.pending = append(s.pending, symJob{id: id, addr: off, image: fd.ImageName})
}

// flush starts resolving the frames queued so far, unless enough batches
// are already running.
func (s *serverSymbols) flush(t *model.Trace) {
	if len(s.pending) == 0 || s.inflight >= maxSymBatches {
		return
	}
	jobs := s.pending
	s.pending = nil
	reqs := make([]symbols.Request, len(jobs))
	for i, j := range jobs {
		p := t.Str(j.image)
		reqs[i] = symbols.Request{Image: symbols.Image{Path: p, ID: s.ids[p]}, Addr: j.addr}
	}
	s.inflight++
	// Not the capture's context: a capture stopped with Ctrl-C (the usual
	// end of a long-running program) still wants its frames resolved, and
	// resolution is local and bounded.
	s.r.ResolveAsync(context.Background(), reqs, func(res []symbols.Result) {
		s.results <- symBatch{jobs, res} // never blocks: capacity = maxSymBatches
	})
}

// merge applies a finished batch to the trace (consumer goroutine only).
func (s *serverSymbols) merge(w *worker, b symBatch) {
	s.inflight--
	t := w.t
	for i, j := range b.jobs {
		p := t.Str(j.image)
		res := b.res[i]
		if s.logical[p] {
			res = symbolize.LogicalFrame(res)
		}
		levels, ok := symbolize.Frames(res, j.addr, w.storeStringS)
		if ok {
			fd := t.Frames[j.id]
			fd.Frames = levels
			t.Frames[j.id] = fd
		}
		s.report.Record(p, s.ids[p], ok, b.res[i].Err)
	}
}

// drain waits for every queued and running batch and merges them: called
// once the stream has ended, before the trace is finished.
func (s *serverSymbols) drain(w *worker) {
	for len(s.pending) > 0 || s.inflight > 0 {
		s.flush(w.t)
		s.merge(w, <-s.results)
	}
	for _, img := range s.order {
		if _, listed := s.ids[w.t.Str(img)]; listed || s.conflict[img] {
			continue // the client's own record (with its id) is added at finish
		}
		symbolize.AddImage(w.t, symbolize.ImageRecord{Path: w.t.Str(img), Base: s.bases[img]}, w.storeStringS)
	}
	s.report.Frames = len(w.t.Frames)
	s.report.Sort()
}

// skipSymbolQuery reports whether the Symbol query for a frame level is
// pointless: an offline-form level's symAddr is an image-relative offset,
// not a symbol address the client could describe. Tracy's server asks
// anyway; in the server and none modes we do not (client mode keeps
// tracy-capture's exact queries).
func (w *worker) skipSymbolQuery(name model.StrID) bool {
	return w.negotiate && strings.HasPrefix(w.t.Str(name), symbolize.UnresolvedName)
}

// imageList takes the answer to ServerQueryGotracyImages: the client's
// images with their build ids. A malformed list is ignored (frames then
// resolve by path only, as for a Tracy client).
func (w *worker) imageList(text []byte) {
	w.imagesPending = false
	imgs, err := protocol.ParseExtImages(text)
	if err != nil {
		return
	}
	for _, im := range imgs {
		id, err := symbols.ParseID(im.ID)
		if err != nil {
			id = symbols.ID{}
		}
		w.extImages = append(w.extImages, symbolize.ImageRecord{Path: im.Path, ID: id, Base: im.Base, Size: im.Size, Logical: im.Logical})
		if w.sym != nil {
			w.sym.ids[im.Path] = id
			w.sym.logical[im.Path] = im.Logical
		}
	}
}
