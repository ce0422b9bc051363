package fuchsia

import (
	"encoding/binary"
	"math"
)

// fxt builds FXT records from the format's specification, for the tests'
// inputs (testdata/golden.fxt is written by TestImportGolden -update).
type fxt struct{ b []byte }

func (f *fxt) word(w uint64) { f.b = binary.LittleEndian.AppendUint64(f.b, w) }

// padded returns s as little-endian words, zero-padded.
func padded(s string) []uint64 {
	b := []byte(s)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	var w []uint64
	for i := 0; i < len(b); i += 8 {
		w = append(w, binary.LittleEndian.Uint64(b[i:]))
	}
	return w
}

func (f *fxt) record(typ uint64, hdr uint64, body []uint64) {
	f.word(typ | uint64(1+len(body))<<4 | hdr)
	for _, w := range body {
		f.word(w)
	}
}

func (f *fxt) magic() { f.word(magic) }

func (f *fxt) init(tps uint64) { f.record(recInit, 0, []uint64{tps}) }

func (f *fxt) str(idx uint16, s string) {
	f.record(recString, uint64(idx)<<16|uint64(len(s))<<32, padded(s))
}

func (f *fxt) thread(idx uint8, pid, tid uint64) {
	f.record(recThread, uint64(idx)<<16, []uint64{pid, tid})
}

// ref is a string reference: a table index, or an inline string.
type ref struct {
	idx    uint16
	inline string
}

func (r ref) code() uint64 {
	if r.idx != 0 {
		return uint64(r.idx)
	}
	if r.inline == "" {
		return 0
	}
	return 0x8000 | uint64(len(r.inline))
}

func (r ref) words() []uint64 {
	if r.idx != 0 || r.inline == "" {
		return nil
	}
	return padded(r.inline)
}

type arg struct {
	typ   uint64
	name  ref
	value uint64 // in the header (int32, uint32, bool) or the word after
	str   ref    // string arguments
}

func (a arg) words() []uint64 {
	var body []uint64
	body = append(body, a.name.words()...)
	inHeader := uint64(0)
	switch a.typ {
	case 1, 2, 9:
		inHeader = a.value
	case 3, 4, 5, 7, 8:
		body = append(body, a.value)
	case 6:
		inHeader = a.str.code()
		body = append(body, a.str.words()...)
	}
	h := a.typ | uint64(1+len(body))<<4 | a.name.code()<<16 | inHeader<<32
	return append([]uint64{h}, body...)
}

func dbl(v float64) uint64 { return math.Float64bits(v) }

type thr struct {
	idx      uint8
	pid, tid uint64 // inline when idx is 0
}

func (f *fxt) event(evType uint64, th thr, cat, name ref, ts uint64, args []arg, extra ...uint64) {
	body := []uint64{ts}
	if th.idx == 0 {
		body = append(body, th.pid, th.tid)
	}
	body = append(body, cat.words()...)
	body = append(body, name.words()...)
	for _, a := range args {
		body = append(body, a.words()...)
	}
	body = append(body, extra...)
	f.record(recEvent, evType<<16|uint64(len(args))<<20|uint64(th.idx)<<24|cat.code()<<32|name.code()<<48, body)
}

func (f *fxt) kobj(objType uint64, koid uint64, name ref, args []arg) {
	body := []uint64{koid}
	body = append(body, name.words()...)
	for _, a := range args {
		body = append(body, a.words()...)
	}
	f.record(recKernelObj, objType<<16|name.code()<<24|uint64(len(args))<<40, body)
}

// golden is the hand-written input of TestImportGolden.
func golden() []byte {
	var f fxt
	f.magic()
	f.record(recMetadata, 1<<16|7<<20, append([]uint64{}, padded("prov")...)) // provider info (skipped)
	f.init(2_000_000_000)                                                     // 2 ticks per ns
	f.str(1, "cat")
	f.str(2, "outer")
	f.str(5, "Job::Loader")
	f.str(6, "Job::Load") // Tracy reads "Job::Loade"
	f.thread(1, 100, 1)
	f.thread(2, 100, 2)
	f.kobj(2, 1, ref{inline: "main"}, []arg{{typ: 8, name: ref{inline: "process"}, value: 100}})
	f.kobj(1, 100, ref{inline: "proc"}, nil) // a process: ignored
	f.event(evBegin, thr{idx: 1}, ref{idx: 1}, ref{idx: 2}, 2000, []arg{
		{typ: 6, name: ref{inline: "loc"}, str: ref{inline: "src/o.cc:7"}},
		{typ: 1, name: ref{inline: "n"}, value: uint64(uint32(0xFFFFFFFB))}, // -5
		{typ: 5, name: ref{inline: "d"}, value: dbl(1.5)},
	})
	f.event(evComplete, thr{idx: 1}, ref{idx: 1}, ref{inline: "inner"}, 4000, []arg{
		{typ: 4, name: ref{inline: "u"}, value: 42},
		{typ: 9, name: ref{inline: "b"}, value: 1},
		{typ: 0, name: ref{inline: "null"}},
	}, 10000)
	f.event(evEnd, thr{idx: 1}, ref{idx: 1}, ref{idx: 2}, 20000, nil)
	f.event(evComplete, thr{pid: 100, tid: 3}, ref{}, ref{idx: 6}, 3000, nil, 9000)
	f.event(evInstant, thr{idx: 2}, ref{idx: 1}, ref{inline: "hello"}, 5000, nil, 0)
	f.event(evInstant, thr{idx: 2}, ref{idx: 1}, ref{inline: "Frame"}, 2000, nil, 0)
	f.event(evCounter, thr{idx: 2}, ref{idx: 1}, ref{inline: "c"}, 6000, []arg{
		{typ: 4, name: ref{inline: "mem_bytes"}, value: 1024},
		{typ: 6, name: ref{inline: "s"}, str: ref{inline: "x"}},
		{typ: 3, name: ref{inline: "neg"}, value: uint64(math.MaxUint64)}, // -1
	}, 1)
	f.event(5, thr{idx: 2}, ref{idx: 1}, ref{inline: "async"}, 7000, nil, 99) // async begin: ignored
	f.word(recLargeBlob | 3<<4)                                               // a 3-word large record, skipped
	f.word(0)
	f.word(0)
	return f.b
}
