// Package fuchsia imports traces in the Fuchsia trace format (FXT), the
// binary record stream of https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format,
// with the semantics of Tracy 0.14's import-fuchsia where that tool reads the
// format correctly, and the specification's where it does not (see Import).
package fuchsia

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"

	"github.com/gotracy/gotracy/formats/internal/tracyimport"
	"github.com/gotracy/gotracy/model"
)

// ErrFormat is wrapped by every error about malformed input.
var ErrFormat = errors.New("malformed Fuchsia trace")

// FormatError reports malformed input at a byte offset.
type FormatError struct {
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("fuchsia trace at byte %d: %s", e.Offset, e.Msg)
}

func (e *FormatError) Unwrap() error { return ErrFormat }

// magic is the whole first word of a trace: a metadata record of one word,
// type "trace info", "FxT" magic.
const magic = 0x0016547846040010

// Record types.
const (
	recMetadata   = 0
	recInit       = 1
	recString     = 2
	recThread     = 3
	recEvent      = 4
	recKernelObj  = 7
	recLargeBlob  = 15
	maxRecordWord = 0xfff
)

// Event types.
const (
	evInstant  = 0
	evCounter  = 1
	evBegin    = 2
	evEnd      = 3
	evComplete = 4
)

// ImportOptions tunes Import.
type ImportOptions struct {
	CaptureName, CaptureProgram string
}

type threadRef struct{ pid, tid uint64 }

type argument struct {
	name  string
	typ   uint8
	str   string
	i     int64
	u     uint64
	f     float64
	isInt bool // i holds the value
	isNum bool // a number Tracy plots (ints, unsigned, double, pointer, koid)
}

type decoder struct {
	r      *bufio.Reader
	off    int64 // offset of the current record
	rec    []uint64
	words  int
	strs   [1 << 15]string // the string table (index 0 unused)
	strOK  [1 << 15]bool
	thr    map[uint8]threadRef
	tps    uint64 // ticks per second
	init   bool
	in     *tracyimport.Input
	args   []argument
	text   []byte
	rawBuf []byte
}

// Import reads an FXT stream and builds the trace Tracy's import-fuchsia
// would:
//
//   - duration begin/end/complete events are zones (an end pops the thread's
//     innermost open zone), their arguments the zone text ("name: value\n"
//     each, in record order; doubles as %.5f), a "loc" string argument
//     their source file and line; instants are messages (or frames, when
//     the name contains "frame"); counters add a plot point per numeric
//     argument; a kernel-object record of a thread with a "process" koid
//     argument names that thread.
//   - Threads are pid<<32 | (tid & 0xFFFFFFFF); times shift so the first
//     zone event is 0, as in the Chrome importer.
//
// Where Tracy's importer misreads the format, the specification wins:
// string-table entries are exactly their bytes (Tracy keeps the byte of the
// previous, longer entry at the new one's end: "Job::Load" after
// "Job::Loader" reads "Job::Loade"), inline strings get no trailing NUL
// (Tracy's NUL cuts a zone text short at the first inline string value),
// timestamps are ticks converted with the initialization record's ticks per
// second (Tracy takes ticks as nanoseconds), arguments are skipped by their
// size field, and a truncated or malformed record is an error with its
// offset (Tracy stops reading there and saves what it had).
func Import(r io.Reader, o ImportOptions) (*model.Trace, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 256<<10), thr: map[uint8]threadRef{},
		tps: 1_000_000_000, in: tracyimport.NewInput(), rec: make([]uint64, maxRecordWord+1), rawBuf: make([]byte, 8*(maxRecordWord+1))}
	if err := d.run(); err != nil {
		return nil, err
	}
	t, err := tracyimport.Build(d.in, tracyimport.Options{CaptureName: o.CaptureName, CaptureProgram: o.CaptureProgram})
	if err != nil {
		return nil, d.errf("%v", err)
	}
	return t, nil
}

func (d *decoder) errf(format string, args ...any) error {
	return &FormatError{Offset: d.off, Msg: fmt.Sprintf(format, args...)}
}

func field(w uint64, lo, hi uint) uint64 {
	return w >> lo & (1<<(hi-lo+1) - 1)
}

func (d *decoder) run() error {
	first := true
	for {
		var hdr [8]byte
		n, err := io.ReadFull(d.r, hdr[:])
		if err == io.EOF {
			if first {
				return d.errf("empty input: expected the FxT magic-number record")
			}
			return nil
		}
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				return d.errf("input ends inside a record header (%d of 8 bytes)", n)
			}
			return fmt.Errorf("reading Fuchsia trace at byte %d: %w", d.off, err)
		}
		h := binary.LittleEndian.Uint64(hdr[:])
		typ := uint8(h & 0xf)
		if first && h != magic {
			return d.errf("expected the FxT magic-number record 0x%016x, found 0x%016x: not a Fuchsia trace", uint64(magic), h)
		}
		first = false
		if typ == recLargeBlob {
			size := field(h, 4, 35)
			if size == 0 {
				return d.errf("large record of size 0")
			}
			// Large records (blobs) carry nothing Tracy imports: skip them.
			if k, err := d.r.Discard(int((size - 1) * 8)); err != nil {
				return d.errf("large record of %d words is cut short after %d bytes", size, k+8)
			}
			d.off += int64(size) * 8
			continue
		}
		words := int(field(h, 4, 15))
		if words == 0 {
			return d.errf("record of size 0 (type %d)", typ)
		}
		raw := d.rawBuf[:8*(words-1)]
		if k, err := io.ReadFull(d.r, raw); err != nil {
			return d.errf("record of %d words (type %d) is cut short: %d of %d bytes", words, typ, k+8, words*8)
		}
		d.rec[0] = h
		for i := 1; i < words; i++ {
			d.rec[i] = binary.LittleEndian.Uint64(raw[8*(i-1):])
		}
		d.words = words
		if err := d.record(typ, h); err != nil {
			return err
		}
		d.off += int64(words) * 8
	}
}

// cursor walks a record's words after the header.
type cursor struct {
	d   *decoder
	pos int
}

func (c *cursor) word(what string) (uint64, error) {
	if c.pos >= c.d.words {
		return 0, c.d.errf("record of %d words ends where %s was expected", c.d.words, what)
	}
	w := c.d.rec[c.pos]
	c.pos++
	return w, nil
}

// str resolves a string reference: 0 is empty, bit 15 an inline string of
// that many bytes (padded to words), otherwise a string-table index.
func (c *cursor) str(ref uint16, what string) (string, error) {
	if ref == 0 {
		return "", nil
	}
	if ref&0x8000 == 0 {
		s, ok := c.d.strs[ref], c.d.strOK[ref]
		if !ok {
			return "", c.d.errf("%s names string-table entry %d, which no string record defined", what, ref)
		}
		return s, nil
	}
	n := int(ref & 0x7fff)
	w := (n + 7) / 8
	if c.pos+w > c.d.words {
		return "", c.d.errf("inline %s of %d bytes runs past the end of its %d-word record", what, n, c.d.words)
	}
	b := c.d.text[:0]
	for i := range w {
		b = binary.LittleEndian.AppendUint64(b, c.d.rec[c.pos+i])
	}
	c.d.text = b
	c.pos += w
	return string(b[:n]), nil
}

func (c *cursor) thread(ref uint8) (threadRef, error) {
	if ref == 0 {
		pid, err := c.word("an inline process koid")
		if err != nil {
			return threadRef{}, err
		}
		tid, err := c.word("an inline thread koid")
		return threadRef{pid, tid}, err
	}
	t, ok := c.d.thr[ref]
	if !ok {
		return threadRef{}, c.d.errf("event names thread-table entry %d, which no thread record defined", ref)
	}
	return t, nil
}

func pseudoTid(t threadRef) uint64 { return t.tid&0xFFFFFFFF | t.pid<<32 }

func (d *decoder) ns(ticks uint64) (uint64, error) {
	if d.tps == 1_000_000_000 {
		return ticks, nil
	}
	hi, lo := bits.Mul64(ticks, 1_000_000_000)
	if hi >= d.tps {
		return 0, d.errf("timestamp %d ticks at %d ticks/s overflows 64-bit nanoseconds", ticks, d.tps)
	}
	q, _ := bits.Div64(hi, lo, d.tps)
	return q, nil
}

func (d *decoder) record(typ uint8, h uint64) error {
	if !d.init && typ != recMetadata {
		return d.errf("record of type %d before the magic-number record", typ)
	}
	c := &cursor{d: d, pos: 1}
	switch typ {
	case recMetadata:
		if h == magic {
			d.init = true
		}
	case recInit:
		tps, err := c.word("the ticks per second")
		if err != nil {
			return err
		}
		if tps == 0 {
			return d.errf("initialization record gives 0 ticks per second")
		}
		d.tps = tps
	case recString:
		idx := uint16(field(h, 16, 30))
		n := int(field(h, 32, 46))
		if idx == 0 {
			return d.errf("string record for index 0 (reserved for the empty string)")
		}
		c2 := *c
		s, err := c2.str(0x8000|uint16(n), "string")
		if err != nil {
			return err
		}
		d.strs[idx], d.strOK[idx] = s, true
	case recThread:
		idx := uint8(field(h, 16, 23))
		if idx == 0 {
			return d.errf("thread record for index 0 (reserved for inline threads)")
		}
		pid, err := c.word("the process koid")
		if err != nil {
			return err
		}
		tid, err := c.word("the thread koid")
		if err != nil {
			return err
		}
		d.thr[idx] = threadRef{pid, tid}
	case recEvent:
		return d.event(c, h)
	case recKernelObj:
		objType := field(h, 16, 23)
		nameRef := uint16(field(h, 24, 39))
		nArgs := int(field(h, 40, 43))
		koid, err := c.word("the object koid")
		if err != nil {
			return err
		}
		name, err := c.str(nameRef, "object name")
		if err != nil {
			return err
		}
		if err := d.readArgs(c, nArgs); err != nil {
			return err
		}
		if objType != 2 { // ZX_OBJ_TYPE_THREAD
			return nil
		}
		for _, a := range d.args {
			// Tracy takes the first "process" argument held as an unsigned
			// 64-bit value (uint64, pointer or koid).
			if a.name == "process" && (a.typ == 4 || a.typ == 7 || a.typ == 8) {
				d.in.ThreadNames[pseudoTid(threadRef{a.u, koid})] = name
				break
			}
		}
	}
	return nil
}

func (d *decoder) event(c *cursor, h uint64) error {
	evType := field(h, 16, 19)
	nArgs := int(field(h, 20, 23))
	ticks, err := c.word("the timestamp")
	if err != nil {
		return err
	}
	th, err := c.thread(uint8(field(h, 24, 31)))
	if err != nil {
		return err
	}
	if _, err := c.str(uint16(field(h, 32, 47)), "category"); err != nil {
		return err
	}
	name, err := c.str(uint16(field(h, 48, 63)), "event name")
	if err != nil {
		return err
	}
	if err := d.readArgs(c, nArgs); err != nil {
		return err
	}
	ts, err := d.ns(ticks)
	if err != nil {
		return err
	}
	in := d.in
	tid := pseudoTid(th)
	switch evType {
	case evInstant:
		in.Messages = append(in.Messages, tracyimport.Message{Tid: tid, Ts: ts, Text: in.InternString(name), Seq: uint32(len(in.Messages))})
	case evCounter:
		if _, err := c.word("the counter id"); err != nil {
			return err
		}
		for _, a := range d.args {
			if !a.isNum {
				continue
			}
			v := a.f
			if a.isInt {
				v = float64(a.i)
			} else if a.typ == 4 || a.typ == 7 || a.typ == 8 {
				v = float64(a.u)
			}
			if ts > math.MaxInt64 {
				return d.errf("counter timestamp %d ns does not fit Tracy's signed times", ts)
			}
			in.AddPlotPoint(a.name, model.PlotFormatNumber, int64(ts), v)
		}
	case evBegin, evComplete:
		var end uint64
		if evType == evComplete {
			endTicks, err := c.word("the end timestamp")
			if err != nil {
				return err
			}
			if end, err = d.ns(endTicks); err != nil {
				return err
			}
		}
		loc := tracyimport.Loc{Name: in.InternString(name)}
		for _, a := range d.args {
			if a.name == "loc" && a.typ == 6 {
				loc.File, loc.Line = in.SplitLoc([]byte(a.str))
				break
			}
		}
		in.AddZones(tracyimport.Zone{Tid: tid, Ts: ts, Loc: in.Location(loc), Text: d.argText()})
		if evType == evComplete {
			in.AddZones(tracyimport.Zone{Tid: tid, Ts: end})
		}
	case evEnd:
		in.AddZones(tracyimport.Zone{Tid: tid, Ts: ts})
	}
	return nil
}

func (d *decoder) argText() uint32 {
	if len(d.args) == 0 {
		return 0
	}
	t := d.text[:0]
	for _, a := range d.args {
		t = append(t, a.name...)
		t = append(t, ": "...)
		switch {
		case a.typ == 6:
			t = append(t, a.str...)
		case a.typ == 9:
			t = strconv.AppendBool(t, a.u != 0)
		case a.typ == 5:
			// printf("%.5f") into Tracy's 31-byte buffer.
			s := strconv.FormatFloat(a.f, 'f', 5, 64)
			if math.IsInf(a.f, 0) || math.IsNaN(a.f) {
				s = map[bool]string{true: "inf", false: "-inf"}[a.f > 0]
				if math.IsNaN(a.f) {
					s = "nan"
					if math.Signbit(a.f) {
						s = "-nan"
					}
				}
			}
			if len(s) > 30 {
				s = s[:30]
			}
			t = append(t, s...)
		case a.isInt:
			t = strconv.AppendInt(t, a.i, 10)
		case a.typ == 4 || a.typ == 7 || a.typ == 8:
			t = strconv.AppendUint(t, a.u, 10)
		}
		t = append(t, '\n')
	}
	d.text = t
	return d.in.AddText(t)
}

// readArgs reads n arguments, each skipped by its own size field.
func (d *decoder) readArgs(c *cursor, n int) error {
	d.args = d.args[:0]
	for range n {
		start := c.pos
		h, err := c.word("an argument header")
		if err != nil {
			return err
		}
		size := int(field(h, 4, 15))
		if size == 0 || start+size > d.words {
			return d.errf("argument of %d words does not fit its %d-word record", size, d.words)
		}
		a := argument{typ: uint8(h & 0xf)}
		if a.name, err = c.str(uint16(field(h, 16, 31)), "argument name"); err != nil {
			return err
		}
		switch a.typ {
		case 0: // null
		case 1:
			a.i, a.isInt, a.isNum = int64(int32(uint32(h>>32))), true, true
		case 2:
			a.i, a.isInt, a.isNum = int64(uint32(h>>32)), true, true
		case 3:
			w, err := c.word("an int64 argument")
			if err != nil {
				return err
			}
			a.i, a.isInt, a.isNum = int64(w), true, true
		case 4, 7, 8:
			if a.u, err = c.word("a 64-bit argument"); err != nil {
				return err
			}
			a.isNum = true
		case 5:
			w, err := c.word("a double argument")
			if err != nil {
				return err
			}
			a.f, a.isNum = math.Float64frombits(w), true
		case 6:
			if a.str, err = c.str(uint16(field(h, 32, 47)), "string argument"); err != nil {
				return err
			}
		case 9:
			a.u = h >> 32 & 1
		default:
			// A type Tracy does not know (blobs and later additions): the
			// size field lets us step over it.
		}
		if c.pos > start+size {
			return d.errf("argument %q overruns its declared %d words", a.name, size)
		}
		c.pos = start + size
		d.args = append(d.args, a)
	}
	return nil
}
