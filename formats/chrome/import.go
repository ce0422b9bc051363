package chrome

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gotracy/gotracy/formats/internal/tracyimport"
	"github.com/gotracy/gotracy/model"
)

// ImportOptions tunes Import.
type ImportOptions struct {
	// CaptureName and CaptureProgram fill the trace's metadata; Tracy's
	// import-chrome stores the output and input paths there.
	CaptureName, CaptureProgram string
}

// Import reads Chrome trace event JSON (a bare array of events or an object
// whose "traceEvents" member is that array) and builds the trace Tracy
// 0.14's import-chrome would:
//
//   - B/b begin and E/e end zones on their thread (an end pops the thread's
//     innermost open zone and is ignored when none is open); X is a begin at
//     ts and an end at ts+dur. A zone's source location is (name, the file
//     and line of "loc" split at its last ':'), shared by equal triples; its
//     text is every arg as "key: value\n", keys sorted, strings as is and
//     other values in compact JSON.
//   - i/I instants are messages, except those whose name contains "frame"
//     (any case): each distinct such name is a continuous frame set and the
//     instant one of its frames.
//   - C counters add one plot point per arg (plots ending in "_bytes" show
//     as memory); M thread_name names a thread.
//   - With a "pid" the thread is pid<<32 | (tid & 0xFFFFFFFF).
//   - Times: ts*1000 truncated to ns, then every time is shifted so the
//     earliest zone event (or message or plot point earlier still) is 0.
//
// Malformed input is a *SyntaxError naming the byte offset; an event Tracy's
// importer would abort on (a missing ph, name, ts or tid, a string where a
// number belongs) is one too.
func Import(r io.Reader, o ImportOptions) (*model.Trace, error) {
	s := newScanner(r)
	im := &importer{s: s, in: tracyimport.NewInput(), keys: map[string]string{}}
	if err := im.top(); err != nil {
		return nil, err
	}
	t, err := tracyimport.Build(im.in, tracyimport.Options{CaptureName: o.CaptureName, CaptureProgram: o.CaptureProgram})
	if err != nil {
		return nil, &SyntaxError{Offset: s.offset(), Msg: err.Error()}
	}
	return t, nil
}

type importer struct {
	s  *scanner
	in *tracyimport.Input

	keys map[string]string // interned arg keys
	ev   event
	text []byte
}

// top reads the document: an array of events, or an object holding one
// under "traceEvents".
func (im *importer) top() error {
	s := im.s
	c, ok := s.peek()
	if !ok {
		return s.eofErr("a JSON array or object")
	}
	switch c {
	case '[':
		if err := im.events(); err != nil {
			return err
		}
	case '{':
		s.pos++
		found := false
		if c, ok := s.peek(); ok && c == '}' {
			s.pos++
		} else {
			var key []byte
			for {
				off := s.offset()
				if err := s.key(&key); err != nil {
					return err
				}
				if string(key) == "traceEvents" {
					if found {
						return s.errf(off, "a second \"traceEvents\" member (only one event list is allowed)")
					}
					found = true
					if k, err := s.valueKind(); err != nil {
						return err
					} else if k != kArray {
						return s.errf(s.offset(), "\"traceEvents\" must be an array of events, found %s", k)
					}
					if err := im.events(); err != nil {
						return err
					}
				} else if err := s.skip(); err != nil {
					return err
				}
				c, ok := s.peek()
				if !ok {
					return s.eofErr("',' or '}'")
				}
				s.pos++
				if c == '}' {
					break
				}
				if c != ',' {
					return s.errf(s.offset()-1, "expected ',' or '}' after a top-level member, found %s", describe(c))
				}
			}
		}
		if !found {
			return s.errf(0, "the top-level object has no \"traceEvents\" array")
		}
	default:
		return s.errf(s.offset(), "expected an array of events or an object with \"traceEvents\", found %s", describe(c))
	}
	if c, ok := s.peek(); ok {
		return s.errf(s.offset(), "unexpected %s after the end of the JSON document", describe(c))
	}
	if s.rerr != nil {
		return s.eofErr("")
	}
	return nil
}

func (im *importer) events() error {
	s := im.s
	s.pos++ // '['
	if c, ok := s.peek(); ok && c == ']' {
		s.pos++
		return nil
	}
	for {
		if err := im.event(); err != nil {
			return err
		}
		c, ok := s.peek()
		if !ok {
			return s.eofErr("',' or ']' after an event")
		}
		s.pos++
		if c == ']' {
			return nil
		}
		if c != ',' {
			return s.errf(s.offset()-1, "expected ',' or ']' after an event, found %s", describe(c))
		}
	}
}

// field is one scalar member of an event as read.
type field struct {
	k kind
	b []byte // string contents
	n number
}

type arg struct {
	key string
	k   kind
	s   []byte // string value, or the compact dump of a non-string
	n   number
}

type event struct {
	off               int64
	ph, name, loc     field
	ts, dur, pid, tid field
	argsK             kind
	args              []arg
	argPool           [][]byte
	scratch           []byte
}

func (ev *event) reset(off int64) {
	ev.off = off
	ev.ph.k, ev.name.k, ev.loc.k = kAbsent, kAbsent, kAbsent
	ev.ts.k, ev.dur.k, ev.pid.k, ev.tid.k = kAbsent, kAbsent, kAbsent, kAbsent
	ev.argsK = kAbsent
	for i := range ev.args {
		ev.argPool = append(ev.argPool, ev.args[i].s[:0])
	}
	ev.args = ev.args[:0]
}

func (im *importer) scalar(f *field) error {
	s := im.s
	k, err := s.valueKind()
	if err != nil {
		return err
	}
	f.k = k
	switch k {
	case kString:
		f.b, err = s.string(f.b[:0])
	case kNumber:
		f.n, im.ev.scratch, err = s.number(im.ev.scratch)
	case kTrue, kFalse, kNull:
		_, err = s.literal()
	default:
		// An array or object where a scalar belongs: remember the kind
		// (the use site reports it) and skip it.
		err = s.skip()
	}
	return err
}

func (im *importer) event() error {
	s := im.s
	ev := &im.ev
	off := s.offset()
	ev.reset(off)
	if k, err := s.valueKind(); err != nil {
		return err
	} else if k != kObject {
		return s.errf(off, "expected an event object, found %s", k)
	}
	s.pos++
	if c, ok := s.peek(); ok && c == '}' {
		s.pos++
	} else {
		var key []byte
		for {
			if err := s.key(&key); err != nil {
				return err
			}
			var err error
			switch string(key) {
			case "ph":
				err = im.scalar(&ev.ph)
			case "name":
				err = im.scalar(&ev.name)
			case "loc":
				err = im.scalar(&ev.loc)
			case "ts":
				err = im.scalar(&ev.ts)
			case "dur":
				err = im.scalar(&ev.dur)
			case "pid":
				err = im.scalar(&ev.pid)
			case "tid":
				err = im.scalar(&ev.tid)
			case "args":
				err = im.args()
			default:
				err = s.skip()
			}
			if err != nil {
				return err
			}
			c, ok := s.peek()
			if !ok {
				return s.eofErr("',' or '}' in an event")
			}
			s.pos++
			if c == '}' {
				break
			}
			if c != ',' {
				return s.errf(s.offset()-1, "expected ',' or '}' in an event, found %s", describe(c))
			}
		}
	}
	return im.apply()
}

// args reads an event's "args" value into ev.args, in the order Tracy
// iterates it: object members by sorted key, array elements by index, a
// scalar as one member with an empty key, null as nothing.
func (im *importer) args() error {
	s := im.s
	ev := &im.ev
	k, err := s.valueKind()
	if err != nil {
		return err
	}
	ev.argsK = k
	ev.args = ev.args[:0]
	if k != kObject && k != kArray {
		if k == kNull {
			_, err = s.literal()
			return err
		}
		return im.argValue("")
	}
	s.pos++
	closer := byte(']')
	if k == kObject {
		closer = '}'
	}
	if c, ok := s.peek(); ok && c == closer {
		s.pos++
		return nil
	}
	var key []byte
	for i := 0; ; i++ {
		name := ""
		if k == kObject {
			if err := s.key(&key); err != nil {
				return err
			}
			var ok bool
			if name, ok = im.keys[string(key)]; !ok {
				name = string(key)
				if len(im.keys) < 4096 {
					im.keys[name] = name
				}
			}
		} else {
			name = strconv.Itoa(i)
		}
		if err := im.argValue(name); err != nil {
			return err
		}
		c, ok := s.peek()
		if !ok {
			return s.eofErr("',' or the end of \"args\"")
		}
		s.pos++
		if c == closer {
			break
		}
		if c != ',' {
			return s.errf(s.offset()-1, "expected ',' or %q in \"args\", found %s", closer, describe(c))
		}
	}
	if k == kObject && len(ev.args) > 1 {
		slices.SortStableFunc(ev.args, func(a, b arg) int { return strings.Compare(a.key, b.key) })
		out := ev.args[:0]
		for i := range ev.args {
			if len(out) > 0 && out[len(out)-1].key == ev.args[i].key {
				out[len(out)-1] = ev.args[i]
				continue
			}
			out = append(out, ev.args[i])
		}
		ev.args = out
	}
	return nil
}

func (im *importer) argValue(key string) error {
	s := im.s
	ev := &im.ev
	var buf []byte
	if n := len(ev.argPool); n > 0 {
		buf, ev.argPool = ev.argPool[n-1], ev.argPool[:n-1]
	}
	a := arg{key: key}
	k, err := s.valueKind()
	if err != nil {
		return err
	}
	a.k = k
	switch k {
	case kString:
		buf, err = s.string(buf[:0])
	case kNumber:
		a.n, ev.scratch, err = s.number(ev.scratch)
		buf = appendNumber(buf[:0], a.n)
	case kTrue, kFalse, kNull:
		_, err = s.literal()
		buf = append(buf[:0], k.jsonLiteral()...)
	default:
		var v jval
		v, err = s.value(1)
		buf = dump(buf[:0], &v)
	}
	a.s = buf
	ev.args = append(ev.args, a)
	return err
}

func (k kind) jsonLiteral() string {
	switch k {
	case kTrue:
		return "true"
	case kFalse:
		return "false"
	}
	return "null"
}

// need reports a required member that is absent or of the wrong type, as
// Tracy's importer would abort on it.
func (im *importer) need(f *field, name, what string) error {
	if f.k == kAbsent {
		return im.s.errf(im.ev.off, "%s event has no %q (%s expected)", string(im.ev.ph.b), name, what)
	}
	return im.s.errf(im.ev.off, "%s event's %q is %s, %s expected", string(im.ev.ph.b), name, f.k, what)
}

// numeric is a JSON number; Tracy's JSON library refuses anything else
// (a boolean too) where it reads a number.
func numeric(f *field) (number, bool) {
	if f.k == kNumber {
		return f.n, true
	}
	return number{}, false
}

// nanos converts a ts or dur (microseconds) to ns as Tracy does: the
// double times 1000, truncated.
func (im *importer) nanos(f *field, name string) (uint64, error) {
	n, ok := numeric(f)
	if !ok {
		return 0, im.need(f, name, "a number")
	}
	v := n.float() * 1000
	if !(v >= 0 && v < 1<<63) {
		return 0, im.s.errf(im.ev.off, "%q %v is negative or too large (0 to 9.2e15 µs expected)", name, n.float())
	}
	return uint64(v), nil
}

func (im *importer) u64(f *field, name string) (uint64, error) {
	n, ok := numeric(f)
	if !ok {
		return 0, im.need(f, name, "a number")
	}
	if n.isInt {
		if n.neg {
			return -n.u, nil // two's complement, as the C++ conversion
		}
		return n.u, nil
	}
	if !(n.f >= 0 && n.f < 1<<64) {
		return 0, im.s.errf(im.ev.off, "%q %v is not a thread or process id (0 to 2^64-1 expected)", name, n.f)
	}
	return uint64(n.f), nil
}

// threadTime reads the thread and the time every timeline and message
// event needs, in that order (a bad tid is reported before a bad ts).
func (im *importer) threadTime() (tid, ts uint64, err error) {
	if tid, err = im.thread(); err != nil {
		return 0, 0, err
	}
	if ts, err = im.nanos(&im.ev.ts, "ts"); err != nil {
		return 0, 0, err
	}
	return tid, ts, nil
}

func (im *importer) thread() (uint64, error) {
	ev := &im.ev
	tid, err := im.u64(&ev.tid, "tid")
	if err != nil {
		return 0, err
	}
	if ev.pid.k == kAbsent {
		return tid, nil
	}
	pid, err := im.u64(&ev.pid, "pid")
	if err != nil {
		return 0, err
	}
	return tid&0xFFFFFFFF | pid<<32, nil
}

func (im *importer) zoneText() uint32 {
	ev := &im.ev
	if len(ev.args) == 0 {
		return 0
	}
	t := im.text[:0]
	for i := range ev.args {
		t = append(t, ev.args[i].key...)
		t = append(t, ": "...)
		t = append(t, ev.args[i].s...)
		t = append(t, '\n')
	}
	im.text = t
	return im.in.AddText(t)
}

func (im *importer) location(name []byte) uint32 {
	k := tracyimport.Loc{Name: im.in.Intern(name)}
	if loc := &im.ev.loc; loc.k == kString {
		k.File, k.Line = im.in.SplitLoc(loc.b)
	}
	return im.in.Location(k)
}

// apply turns the event just read into timeline, message, plot or name
// records.
func (im *importer) apply() error {
	ev := &im.ev
	if ev.ph.k != kString {
		return im.need(&ev.ph, "ph", "a string")
	}
	if ev.loc.k != kAbsent && ev.loc.k != kString {
		return im.need(&ev.loc, "loc", "a string")
	}
	switch string(ev.ph.b) { // no allocation: the conversion is only compared
	case "B", "b":
		tid, ts, err := im.threadTime()
		if err != nil {
			return err
		}
		if ev.name.k != kString {
			return im.need(&ev.name, "name", "a string")
		}
		loc := im.location(ev.name.b)
		im.in.AddZones(tracyimport.Zone{Tid: tid, Ts: ts, Loc: loc, Text: im.zoneText()})
	case "E", "e":
		tid, ts, err := im.threadTime()
		if err != nil {
			return err
		}
		im.in.AddZones(tracyimport.Zone{Tid: tid, Ts: ts})
	case "X":
		tid, ts, err := im.threadTime()
		if err != nil {
			return err
		}
		dur, err := im.nanos(&ev.dur, "dur")
		if err != nil {
			return err
		}
		if ev.name.k != kString {
			return im.need(&ev.name, "name", "a string")
		}
		loc := im.location(ev.name.b)
		im.in.AddZones(tracyimport.Zone{Tid: tid, Ts: ts, Loc: loc, Text: im.zoneText()},
			tracyimport.Zone{Tid: tid, Ts: ts + dur})
	case "i", "I":
		tid, ts, err := im.threadTime()
		if err != nil {
			return err
		}
		if ev.name.k != kString {
			return im.need(&ev.name, "name", "a string")
		}
		im.in.Messages = append(im.in.Messages, tracyimport.Message{Tid: tid, Ts: ts, Text: im.in.Intern(ev.name.b), Seq: uint32(len(im.in.Messages))})
	case "C":
		n, ok := numeric(&ev.ts)
		if !ok {
			return im.need(&ev.ts, "ts", "a number")
		}
		v := n.float() * 1000
		if !(v >= 0 && v < 1<<63) {
			return im.s.errf(ev.off, "\"ts\" %v is negative or too large (0 to 9.2e15 µs expected)", n.float())
		}
		ts := int64(v)
		if ev.argsK == kAbsent {
			return im.s.errf(ev.off, "C event has no \"args\" (the counter values)")
		}
		for i := range ev.args {
			a := &ev.args[i]
			var val float64
			switch a.k {
			case kNumber:
				val = a.n.float()
			default:
				return im.s.errf(ev.off, "counter %q is %s, a number expected", a.key, a.k)
			}
			format := model.PlotFormatNumber
			if strings.HasSuffix(a.key, "_bytes") {
				format = model.PlotFormatMemory
			}
			im.in.AddPlotPoint(a.key, format, ts, val)
		}
	case "M":
		if ev.name.k != kString || string(ev.name.b) != "thread_name" || ev.argsK != kObject {
			return nil
		}
		for i := range ev.args {
			a := &ev.args[i]
			if a.key != "name" {
				continue
			}
			if a.k != kString {
				return im.s.errf(ev.off, "thread_name's \"args\".\"name\" is %s, a string expected", a.k)
			}
			tid, err := im.thread()
			if err != nil {
				return err
			}
			im.in.ThreadNames[tid] = string(a.s)
		}
	}
	return nil
}
