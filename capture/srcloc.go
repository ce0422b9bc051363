package capture

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
)

// checkSourceLocation asks for a static source location the first time its
// key is seen. The one-entry cache matters: consecutive zones usually share
// a location, and this runs for every zone begin.
func (w *worker) checkSourceLocation(key uint64) {
	// the repeat of the last key inlines into zoneBegin.
	if key != w.checkSrclocLast {
		w.checkSourceLocationSlow(key)
	}
}

func (w *worker) checkSourceLocationSlow(key uint64) {
	w.checkSrclocLast = key
	if _, ok := w.t.StaticSrcLocs[key]; ok {
		return
	}
	if len(w.t.StaticSrcLocs) > math.MaxInt16 {
		w.failf(failSourceLocOverflw, 0, "")
		return
	}
	w.t.StaticSrcLocs[key] = model.SourceLocation{}
	w.srclocQueue.push(key)
	w.q.push(qSourceLocation, key, 0)
}

// shrinkSourceLocation maps a static key to the int16 index zones store.
func (w *worker) shrinkSourceLocation(key uint64) model.SrcLocID {
	if key == w.shrinkLastKey && w.shrinkLastID != 0 {
		return w.shrinkLastID
	}
	id, ok := w.srclocShrink[key]
	if !ok {
		if len(w.t.SrcLocIndex)+1 >= math.MaxInt16 {
			return model.EmptySrcLoc
		}
		id = model.SrcLocID(len(w.t.SrcLocIndex))
		w.t.SrcLocIndex = append(w.t.SrcLocIndex, key)
		w.srclocShrink[key] = id
	}
	w.shrinkLastKey, w.shrinkLastID = key, id
	return id
}

// sourceLocationAnswer applies a SourceLocation answer to the oldest
// unanswered query: the answer carries no key. An answer with
// no query waiting is dropped.
func (w *worker) sourceLocationAnswer(it protocol.Item) {
	if w.srclocQueue.len() == 0 {
		return
	}
	key := w.srclocQueue.pop()
	name, fn, file := it.U64(1), it.U64(9), it.U64(17)
	w.checkString(name)
	if w.checkString(file) {
		if file != 0 {
			if _, pending := w.pendingFiles[file]; !pending {
				w.cacheSourcePtr(file, 0)
			}
		}
	} else {
		w.pendingFiles[file] = struct{}{}
	}
	w.checkString(fn)
	sl := model.SourceLocation{
		Function: model.PtrRef(fn),
		File:     model.PtrRef(file),
		Line:     it.U32(25),
		Color:    uint32(it.U8(29))<<16 | uint32(it.U8(30))<<8 | uint32(it.U8(31)),
	}
	if name != 0 {
		sl.Name = model.PtrRef(name)
	}
	w.t.StaticSrcLocs[key] = sl
}

// sourceLocationPayload interns an allocated source location by content;
// the next ZoneBeginAllocSrcLoc uses it.
func (w *worker) sourceLocationPayload(p []byte) {
	if len(p) < 8 {
		w.pendingPayload = w.dynSrcLoc(model.SourceLocation{})
		return
	}
	col := binary.LittleEndian.Uint32(p)
	line := binary.LittleEndian.Uint32(p[4:])
	rest := p[8:]
	fn, rest := cutNUL(rest)
	file, rest := cutNUL(rest)
	sl := model.SourceLocation{
		Function: model.IdxRef(w.storeString(fn)),
		File:     model.IdxRef(w.storeString(file)),
		Line:     line,
		// 0xRRGGBB on the wire, stored with R and B swapped.
		Color: (col&0xFF0000)>>16 | col&0xFF00 | (col&0xFF)<<16,
	}
	if len(rest) > 0 {
		sl.Name = model.IdxRef(w.storeString(rest))
	}
	w.pendingPayload = w.dynSrcLoc(sl)
}

func (w *worker) dynSrcLoc(sl model.SourceLocation) model.SrcLocID {
	if id, ok := w.dynSrcLocs[sl]; ok {
		return id
	}
	idx := len(w.t.DynSrcLocs)
	if idx+1 > math.MaxInt16 {
		w.failf(failSourceLocOverflw, 0, "")
		return 0
	}
	id := model.SrcLocID(-(idx + 1))
	w.t.DynSrcLocs = append(w.t.DynSrcLocs, sl)
	w.dynSrcLocs[sl] = id
	if sl.File.Flags&model.RefIsIdx != 0 {
		w.cacheSourceIdx(model.StrID(sl.File.Str+1), 0)
	}
	return id
}

// cutNUL splits b at its first NUL byte (which is dropped).
func cutNUL(b []byte) (before, after []byte) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// Source files. Tracy's server looks once at every source-file name it
// learns (from source locations, call-stack frames and symbols). A file on
// this machine older than the client's executable is read from disk;
// otherwise, if the client can transfer code, it is asked for. The check is
// keyed by the string reference, as Tracy's, because that decides the
// numbering of SourceCode queries, and a recorded stream's answers carry
// those numbers.

func (w *worker) cacheSourcePtr(key uint64, image model.StrID) {
	ck := fileCheck{ptr: key}
	if _, ok := w.checkedRefs[ck]; ok {
		return
	}
	w.checkedRefs[ck] = struct{}{}
	id, ok := w.t.PtrStrings[key]
	if !ok {
		return
	}
	w.cacheSource(w.t.Strings[id], image)
}

func (w *worker) cacheSourceIdx(id model.StrID, image model.StrID) {
	// Frame answers name the same file over and over: the last file
	// checked needs no map probe.
	if w.lastCheckedOK && w.lastChecked == id {
		return
	}
	w.lastChecked, w.lastCheckedOK = id, true
	ck := fileCheck{idx: id, isIdx: true}
	if _, ok := w.checkedRefs[ck]; ok {
		return
	}
	w.checkedRefs[ck] = struct{}{}
	w.cacheSource(w.t.Strings[id], image)
}

type fileCheck struct {
	ptr   uint64
	idx   model.StrID
	isIdx bool
}

func (w *worker) cacheSource(file string, image model.StrID) {
	if _, ok := w.sourceCached[file]; ok {
		return
	}
	older := w.executableTime
	if older == 0 {
		older = w.captureTime
	}
	if w.localSources && file != "" {
		if st, err := os.Stat(file); err == nil && st.Mode().IsRegular() && uint64(st.ModTime().Unix()) < older {
			if data, err := os.ReadFile(file); err == nil {
				w.sourceCached[file] = struct{}{}
				w.t.SourceCache = append(w.t.SourceCache, model.SourceFile{Name: file, Data: data})
				return
			}
		}
	}
	if w.executableTime != 0 && w.codeTransfer {
		if image != 0 {
			w.dataTransfer(w.t.Strings[image])
		}
		w.dataTransfer(file)
		w.sourceQueries[w.nextSourceQuery] = file
		w.q.push(qSourceCode, uint64(w.nextSourceQuery), 0)
		w.nextSourceQuery++
	}
}

// dataTransfer sends s plus its NUL to the client, 12 bytes per packet.
func (w *worker) dataTransfer(s string) {
	b := make([]byte, len(s)+1, len(s)+1+12)
	copy(b, s)
	w.q.push(qDataTransfer, uint64(len(b)), 0)
	for len(b) > 0 {
		var chunk [12]byte
		n := copy(chunk[:], b)
		b = b[n:]
		w.q.push(qDataTransferPart, binary.LittleEndian.Uint64(chunk[:8]), binary.LittleEndian.Uint32(chunk[8:]))
	}
}

// sourceCode stores a SourceCode answer under the file its query named.
func (w *worker) sourceCode(id uint32, data []byte) {
	file, ok := w.sourceQueries[id]
	if !ok {
		return
	}
	delete(w.sourceQueries, id)
	if _, dup := w.sourceCached[file]; dup {
		return
	}
	w.sourceCached[file] = struct{}{}
	w.t.SourceCache = append(w.t.SourceCache, model.SourceFile{Name: file, Data: bytes.Clone(data)})
}
