package capture

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"path"
	"slices"
	"strings"

	"github.com/zeebo/xxh3"

	"github.com/gotracy/gotracy/model"
)

// Call-stack frame ids (keys of Trace.Frames): the low 62 bits hold the address with
// its top two bits dropped, bit 62 marks a synthetic frame from a
// CallstackAllocPayload (numbered by a counter).
const (
	frameIdxMask  = 1<<62 - 1
	frameSelAlloc = 1 << 62
	maxCallstacks = 1<<24 - 1 // indices are 24-bit in the file
)

func packFrame(addr uint64) uint64 { return addr & frameIdxMask }

func canonicalFrame(id uint64) uint64 {
	idx := id & frameIdxMask
	return idx | (idx&0x3000000000000000)<<2
}

// callstacks de-duplicates call stacks as they arrive: identical stacks (a
// loop allocating from one place sends the same stack thousands of times)
// are stored once and referred to by a 1-based 24-bit index. The key is the
// XXH3 hash of the packed frames; a hash hit is confirmed by comparing the
// frames, and the rare true collision falls back to an exact-content map.
type callstacks struct {
	t       *model.Trace
	byHash  map[uint64]uint32
	collide map[string]uint32
	scratch []byte
}

func (c *callstacks) init(t *model.Trace) {
	c.t = t
	c.byHash = map[uint64]uint32{}
	for i := 1; i <= t.NumCallStacks(); i++ {
		c.byHash[c.hash(t.CallStack(uint32(i)))] = uint32(i)
	}
}

func (c *callstacks) hash(frames []uint64) uint64 {
	c.scratch = c.scratch[:0]
	for _, f := range frames {
		c.scratch = binary.LittleEndian.AppendUint64(c.scratch, f)
	}
	return xxh3.Hash(c.scratch)
}

// intern returns the index of frames, adding them when new. It returns 0
// when the 24-bit index space is exhausted.
func (c *callstacks) intern(frames []uint64) (idx uint32, isNew bool) {
	h := c.hash(frames)
	if i, ok := c.byHash[h]; ok {
		if slices.Equal(c.t.CallStack(i), frames) {
			return i, false
		}
		if i, ok := c.collide[string(c.scratch)]; ok {
			return i, false
		}
	}
	n := c.t.NumCallStacks()
	if n >= maxCallstacks {
		return 0, false
	}
	c.t.CallStackFrames = append(c.t.CallStackFrames, frames...)
	c.t.CallStackOffsets = append(c.t.CallStackOffsets, uint32(len(c.t.CallStackFrames)))
	idx = uint32(n + 1)
	if _, taken := c.byHash[h]; taken {
		if c.collide == nil {
			c.collide = map[string]uint32{}
		}
		c.collide[string(c.scratch)] = idx
	} else {
		c.byHash[h] = idx
	}
	return idx, true
}

// callstackPayload interns a native call stack and asks for every address
// not resolved yet.
func (w *worker) callstackPayload(p []byte) {
	n := len(p) / 8
	frames := w.frameScratch(n)
	for i := range n {
		frames[i] = packFrame(binary.LittleEndian.Uint64(p[i*8:]))
	}
	idx, isNew := w.cs.intern(frames)
	if isNew {
		for _, f := range frames {
			w.queryCallstackFrame(canonicalFrame(f))
		}
	}
	w.pendingCS = idx
}

func (w *worker) frameScratch(n int) []uint64 {
	if cap(w.csScratch) < n {
		w.csScratch = make([]uint64, n)
	}
	return w.csScratch[:n]
}

// callstackAllocPayload builds a call stack from inline frames (Lua-style):
// each becomes a synthetic, already-resolved frame, followed by the native
// stack if one is pending.
func (w *worker) callstackAllocPayload(p []byte) {
	if len(p) < 1 {
		return
	}
	cnt := int(p[0])
	p = p[1:]
	var ids []uint64
	for range cnt {
		if len(p) < 6 {
			break
		}
		line := binary.LittleEndian.Uint32(p)
		nl := int(binary.LittleEndian.Uint16(p[4:]))
		p = p[6:]
		if len(p) < nl+2 {
			break
		}
		name := w.storeString(p[:nl])
		p = p[nl:]
		fl := int(binary.LittleEndian.Uint16(p))
		p = p[2:]
		if len(p) < fl {
			break
		}
		file := w.storeString(p[:fl])
		p = p[fl:]
		key := string(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(name)), uint32(file)), line))
		id, ok := w.allocFrameRev[key]
		if !ok {
			id = w.allocFrameNext | frameSelAlloc
			w.allocFrameNext++
			w.allocFrameRev[key] = id
			w.t.Frames[id] = model.FrameData{Frames: []model.InlineFrame{{Name: name, File: file, Line: line}}}
		}
		ids = append(ids, id)
	}
	if w.pendingCS != 0 {
		ids = append(ids, w.t.CallStack(w.pendingCS)...)
	}
	idx, isNew := w.cs.intern(ids)
	if isNew {
		for _, f := range ids {
			if f&frameSelAlloc == 0 {
				w.queryCallstackFrame(canonicalFrame(f))
			}
		}
	}
	w.pendingCS = idx
}

// Frame query states.
const (
	frameAsked    = 1
	frameResolved = 2
)

func (w *worker) queryCallstackFrame(addr uint64) {
	id := packFrame(addr)
	if _, ok := w.frameQueried[id]; ok {
		return
	}
	w.frameQueried[id] = frameAsked
	w.pendingFrames++
	w.q.push(qCallstackFrame, addr, 0)
}

// callstackFrameSize starts an answer to a CallstackFrame query: the image
// name (in the SingleString) and the number of inline frames that follow.
func (w *worker) callstackFrameSize(addr uint64, size uint8) {
	image := w.takeSingle()
	id := packFrame(addr)
	st := w.frameQueried[id]
	if st == frameAsked && w.pendingFrames > 0 {
		w.pendingFrames--
	}
	w.subframes = int(size)
	w.frameStaging = nil
	if st == frameResolved || size == 0 {
		// A duplicate answer (recursion queries an address twice in Tracy's
		// server) is consumed and dropped; an empty one leaves the address
		// unresolved, as Tracy's release build does.
		if size == 0 {
			w.frameQueried[id] = frameResolved
		}
		return
	}
	w.frameQueried[id] = frameResolved
	w.frameStaging = &model.FrameData{ImageName: image, Frames: make([]model.InlineFrame, size)}
	w.frameStagingPtr = addr
}

// isIntrinsicsHeader reports whether a file is a compiler intrinsics header
// (…/include/*intrin.h, arm_neon.h) or libstdc++'s atomics; Tracy's server
// drops such a first inline frame of a multi-frame answer, because the
// intrinsic wrapper hides the interesting caller.
func isIntrinsicsHeader(file string) bool {
	if strings.HasSuffix(file, "/bits/atomic_base.h") || strings.HasSuffix(file, "/atomic") || strings.HasSuffix(file, "/include/arm_neon.h") {
		return true
	}
	return strings.HasSuffix(file, "intrin.h") && strings.HasSuffix(path.Dir(file), "/include") && path.Base(file) != "intrin.h"
}

// callstackFrame is one inline frame of a CallstackFrameSize answer:
// function name in the SingleString, file in the SecondString.
func (w *worker) callstackFrame(line uint32, symAddr uint64, symLen uint32) {
	name := w.takeSingle()
	file := w.takeSecond()
	if w.subframes == 0 {
		return
	}
	st := w.frameStaging
	if st == nil {
		w.subframes--
		return
	}
	idx := len(st.Frames) - w.subframes
	if w.subframes > 1 && idx == 0 && isIntrinsicsHeader(w.t.Strings[file]) {
		w.subframes--
		st.Frames = st.Frames[:len(st.Frames)-1]
		return
	}
	st.Frames[idx] = model.InlineFrame{Name: name, File: file, Line: line, SymAddr: symAddr}
	// A symbol once known or asked for stays so; frames of one function
	// follow each other, so the last one needs no map probe.
	if symAddr != 0 && symAddr != w.lastSymbol && !w.skipSymbolQuery(name) {
		w.lastSymbol = symAddr
		if _, known := w.symbolKnown[symAddr]; !known {
			if _, pending := w.symbolPending[symAddr]; !pending {
				w.symbolPending[symAddr] = symbolPending{name: name, image: st.ImageName, file: file, line: line, size: symLen, inline: idx < len(st.Frames)-1}
				w.q.push(qSymbol, symAddr, 0)
			}
		}
	}
	w.cacheSourceIdx(file, st.ImageName)
	w.subframes--
	if w.subframes == 0 {
		w.t.Frames[packFrame(w.frameStagingPtr)] = *st
		if w.sym != nil {
			w.sym.noteFrame(w.t, packFrame(w.frameStagingPtr), st)
		}
		w.t.CodeSymbols = append(w.t.CodeSymbols, model.CodeSymbol{CodeAddr: w.frameStagingPtr, SymAddr: st.Frames[0].SymAddr})
		w.frameStaging = nil
	}
}

// symbolInformation answers a Symbol query: the symbol's file (in the
// SingleString) and line. With code transfer, the symbol's machine code is
// asked for next, as Tracy's server does for the assembly view.
func (w *worker) symbolInformation(line uint32, symAddr uint64) {
	file := w.takeSingle()
	p, ok := w.symbolPending[symAddr]
	if !ok {
		return
	}
	delete(w.symbolPending, symAddr)
	w.symbolKnown[symAddr] = struct{}{}
	w.t.Symbols = append(w.t.Symbols, model.Symbol{
		Addr: symAddr, Name: p.name, File: file, Line: line, ImageName: p.image,
		CallFile: p.file, CallLine: p.line, IsInline: p.inline, Size: p.size & 0xFFFFFF,
	})
	if w.codeTransfer && p.size > 0 && p.size <= 128*1024 {
		w.symCodePending++
		w.q.push(qSymbolCode, symAddr, p.size)
	}
	w.cacheSourceIdx(file, p.image)
}

// symbolCode stores a symbol's machine code and, as Tracy's server does,
// disassembles it to ask for the frame of every instruction and direct
// branch target (disasm.go), which the assembly view needs.
func (w *worker) symbolCode(addr uint64, code []byte) {
	if w.symCodePending > 0 {
		w.symCodePending--
	}
	stored := bytes.Clone(code)
	w.t.SymbolCode = append(w.t.SymbolCode, model.SymbolCode{Addr: addr, Code: stored})
	w.disassemble(addr, stored)
}

// callstackSample records a sampled stack of a thread (time 0 = unknown).
// Context-switch samples go to both lists. With CombineSamples (Windows'
// split kernel and user stacks) two samples of one thread at the same time
// are merged into one stack.
func (w *worker) callstackSample(thread uint32, tick int64, ctxSwitch bool) {
	cs := w.pendingCS
	w.pendingCS = 0
	t := int64(0)
	if tick != 0 {
		t = w.tscTime(tick)
		w.setLast(t)
	}
	td := w.noticeThread(uint64(thread))
	sd := model.Sample{Time: t, CallStack: cs}
	if ctxSwitch {
		w.insertSample(td, sd)
		th := &w.t.Threads[td.idx]
		th.CtxSwitchSamples = append(th.CtxSwitchSamples, sd)
		return
	}
	if w.combineSamples && t != 0 {
		switch {
		case !td.hasPendingSample:
			td.pendingSample, td.hasPendingSample = sd, true
		case td.pendingSample.Time == t:
			sd.CallStack = w.mergeCallstacks(td.pendingSample.CallStack, cs)
			w.insertSample(td, sd)
			td.hasPendingSample = false
		default:
			w.insertSample(td, td.pendingSample)
			td.pendingSample = sd
		}
		return
	}
	w.insertSample(td, sd)
}

// insertSample adds a sample in time order; a sample at the time of an
// earlier one merges into it (Tracy's rule, quirks included: an
// out-of-order sample with no twin is appended, not inserted).
func (w *worker) insertSample(td *threadState, sd model.Sample) {
	th := &w.t.Threads[td.idx]
	if n := len(th.Samples); n > 0 && sd.Time != 0 && th.Samples[n-1].Time >= sd.Time {
		i, _ := slices.BinarySearchFunc(th.Samples, sd.Time, func(s model.Sample, t int64) int { return cmp.Compare(s.Time, t) })
		if i < n && th.Samples[i].Time == sd.Time {
			th.Samples[i].CallStack = w.mergeCallstacks(th.Samples[i].CallStack, sd.CallStack)
			return
		}
	}
	th.Samples = append(th.Samples, sd)
	if frames := w.t.CallStack(sd.CallStack); len(frames) > 0 && canonicalFrame(frames[0])>>63 != 0 {
		th.KernelSampleCnt++
	}
}

// mergeCallstacks interns the concatenation of two call stacks.
func (w *worker) mergeCallstacks(a, b uint32) uint32 {
	frames := append(slices.Clone(w.t.CallStack(a)), w.t.CallStack(b)...)
	idx, _ := w.cs.intern(frames)
	return idx
}
