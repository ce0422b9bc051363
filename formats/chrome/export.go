// Package chrome converts between Tracy traces and the Chrome trace event
// JSON format ({"traceEvents":[...]} or a bare array), the format of
// chrome://tracing, Perfetto's JSON importer and Tracy's own import-chrome.
//
// Export streams: events are formatted one at a time into a small buffer, so
// memory is bounded by the model, not the output. Import streams too: the
// JSON is tokenized from a buffered reader and no value is held whole except
// one event at a time (see import.go).
package chrome

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gotracy/gotracy/model"
)

// ExportOptions tunes Export.
type ExportOptions struct {
	// Filter keeps only zones whose name contains it (ASCII case-insensitive
	// unless CaseSensitive), as `gotracy csv -f`. Messages, plots, frames and
	// thread names are always written.
	Filter        string
	CaseSensitive bool
}

// Export writes t as Chrome trace event JSON:
//
//   - every CPU zone as a complete ("X") event, its text as args.text, its
//     source file and line as "loc" (the field Tracy's import-chrome reads);
//     a zone that never ended as a begin ("B") event alone;
//   - thread names (and the program name) as metadata ("M") events;
//   - plot points as counter ("C") events;
//   - messages as thread-scoped instant ("i") events;
//   - frame starts as global instant events named after their frame set.
//
// Times are microseconds with the nanoseconds kept as three decimals. Where
// the decimal's nearest double times 1000 would truncate one nanosecond low
// (the conversion import-chrome does), the next double up is written
// instead, so Tracy's importer and ours read back every nanosecond exactly.
func Export(w io.Writer, t *model.Trace, o ExportOptions) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	e := &exporter{w: bw, t: t, pid: t.Metadata.PID}
	filter := o.Filter
	if !o.CaseSensitive {
		filter = strings.ToLower(filter)
	}
	e.buf = append(e.buf, `{"traceEvents":[`...)
	e.first = true

	if t.Metadata.CaptureProgram != "" {
		e.begin()
		e.buf = append(e.buf, `{"ph":"M","name":"process_name","pid":`...)
		e.buf = strconv.AppendUint(e.buf, e.pid, 10)
		e.buf = append(e.buf, `,"args":{"name":`...)
		e.buf = appendJSONString(e.buf, t.Metadata.CaptureProgram)
		e.buf = append(e.buf, "}}"...)
	}
	for i := range t.Threads {
		th := &t.Threads[i]
		name := t.ThreadName(th.ID)
		if name == "" {
			continue
		}
		e.begin()
		e.buf = append(e.buf, `{"ph":"M","name":"thread_name","pid":`...)
		e.buf = strconv.AppendUint(e.buf, e.pid, 10)
		e.buf = append(e.buf, `,"tid":`...)
		e.buf = strconv.AppendUint(e.buf, th.ID, 10)
		e.buf = append(e.buf, `,"args":{"name":`...)
		e.buf = appendJSONString(e.buf, name)
		e.buf = append(e.buf, "}}"...)
		if err := e.flush(); err != nil {
			return err
		}
	}

	sl := model.NewSrcLocTable(t)
	// Names are looked up once per source location, not once per zone.
	cache := map[model.SrcLocID]*slInfo{}
	info := func(z *model.Zone) (name []byte, loc []byte, keep bool) {
		if ex := z.Extra(); ex != 0 && int(ex) < len(t.ZoneExtras) && t.ZoneExtras[ex].Name != model.NoString {
			n := t.Str(t.ZoneExtras[ex].Name)
			c := cache[z.SrcLoc]
			if c == nil {
				c = newInfo(t, sl, z.SrcLoc, filter, o.CaseSensitive)
				cache[z.SrcLoc] = c
			}
			return appendJSONString(nil, n), c.loc, match(n, filter, o.CaseSensitive)
		}
		c := cache[z.SrcLoc]
		if c == nil {
			c = newInfo(t, sl, z.SrcLoc, filter, o.CaseSensitive)
			cache[z.SrcLoc] = c
		}
		return c.name, c.loc, c.keep
	}

	for i := range t.Threads {
		th := &t.Threads[i]
		for _, z := range th.Zones.All() {
			name, loc, keep := info(z)
			if !keep {
				continue
			}
			e.begin()
			start, end := z.Start(), z.End()
			if end >= 0 {
				e.buf = append(e.buf, `{"ph":"X","name":`...)
			} else {
				e.buf = append(e.buf, `{"ph":"B","name":`...)
			}
			e.buf = append(e.buf, name...)
			e.buf = append(e.buf, `,"pid":`...)
			e.buf = strconv.AppendUint(e.buf, e.pid, 10)
			e.buf = append(e.buf, `,"tid":`...)
			e.buf = strconv.AppendUint(e.buf, th.ID, 10)
			e.buf = append(e.buf, `,"ts":`...)
			e.buf = AppendMicros(e.buf, start)
			if end >= 0 {
				e.buf = append(e.buf, `,"dur":`...)
				e.buf = AppendMicros(e.buf, max(end-start, 0))
			}
			if loc != nil {
				e.buf = append(e.buf, `,"loc":`...)
				e.buf = append(e.buf, loc...)
			}
			if ex := z.Extra(); ex != 0 && int(ex) < len(t.ZoneExtras) && t.ZoneExtras[ex].Text != model.NoString {
				e.buf = append(e.buf, `,"args":{"text":`...)
				e.buf = appendJSONString(e.buf, t.Str(t.ZoneExtras[ex].Text))
				e.buf = append(e.buf, '}')
			}
			e.buf = append(e.buf, '}')
			if err := e.maybeFlush(); err != nil {
				return err
			}
		}
	}

	for i := range t.Messages {
		m := &t.Messages[i]
		e.begin()
		e.buf = append(e.buf, `{"ph":"i","s":"t","name":`...)
		e.buf = appendJSONString(e.buf, t.RefString(m.Text))
		e.buf = append(e.buf, `,"pid":`...)
		e.buf = strconv.AppendUint(e.buf, e.pid, 10)
		e.buf = append(e.buf, `,"tid":`...)
		e.buf = strconv.AppendUint(e.buf, t.LocalThread(m.Thread), 10)
		e.buf = append(e.buf, `,"ts":`...)
		e.buf = AppendMicros(e.buf, m.Time)
		e.buf = append(e.buf, '}')
		if err := e.maybeFlush(); err != nil {
			return err
		}
	}

	for i := range t.Plots {
		p := &t.Plots[i]
		name, ok := t.PtrString(p.Name)
		if !ok {
			name = "???"
		}
		jn := appendJSONString(nil, name)
		for _, pt := range p.Points {
			if math.IsNaN(pt.Value) || math.IsInf(pt.Value, 0) {
				continue // JSON has no spelling for these
			}
			e.begin()
			e.buf = append(e.buf, `{"ph":"C","name":`...)
			e.buf = append(e.buf, jn...)
			e.buf = append(e.buf, `,"pid":`...)
			e.buf = strconv.AppendUint(e.buf, e.pid, 10)
			e.buf = append(e.buf, `,"ts":`...)
			e.buf = AppendMicros(e.buf, pt.Time)
			e.buf = append(e.buf, `,"args":{`...)
			e.buf = append(e.buf, jn...)
			e.buf = append(e.buf, ':')
			e.buf = strconv.AppendFloat(e.buf, pt.Value, 'g', -1, 64)
			e.buf = append(e.buf, "}}"...)
			if err := e.maybeFlush(); err != nil {
				return err
			}
		}
	}

	for i := range t.FrameSets {
		fs := &t.FrameSets[i]
		name := "Frame"
		if fs.Name != 0 {
			if n, ok := t.PtrString(fs.Name); ok {
				name = n
			} else {
				name = "???"
			}
		}
		jn := appendJSONString(nil, name)
		for _, f := range fs.Frames {
			e.begin()
			e.buf = append(e.buf, `{"ph":"i","s":"g","name":`...)
			e.buf = append(e.buf, jn...)
			e.buf = append(e.buf, `,"pid":`...)
			e.buf = strconv.AppendUint(e.buf, e.pid, 10)
			// Tracy's importer reads a tid for every instant event.
			e.buf = append(e.buf, `,"tid":0,"ts":`...)
			e.buf = AppendMicros(e.buf, f.Start)
			e.buf = append(e.buf, '}')
			if err := e.maybeFlush(); err != nil {
				return err
			}
		}
	}
	e.buf = append(e.buf, "]}\n"...)
	if err := e.flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// slInfo is a source location's JSON-encoded name and "loc" value.
type slInfo struct {
	name, loc []byte
	keep      bool
}

func newInfo(t *model.Trace, st *model.SrcLocTable, id model.SrcLocID, filter string, cs bool) *slInfo {
	s, _ := st.Get(id)
	n := t.SrcLocName(s)
	c := &slInfo{name: appendJSONString(nil, n), keep: match(n, filter, cs)}
	if file := t.RefString(s.File); file != "" {
		c.loc = appendJSONString(nil, file+":"+strconv.FormatUint(uint64(s.Line), 10))
	}
	return c
}

func match(name, filter string, caseSensitive bool) bool {
	if filter == "" {
		return true
	}
	if !caseSensitive {
		name = strings.ToLower(name)
	}
	return strings.Contains(name, filter)
}

type exporter struct {
	w     *bufio.Writer
	t     *model.Trace
	pid   uint64
	buf   []byte
	first bool
}

func (e *exporter) begin() {
	if !e.first {
		e.buf = append(e.buf, ",\n"...)
	} else {
		e.buf = append(e.buf, '\n')
	}
	e.first = false
}

func (e *exporter) maybeFlush() error {
	if len(e.buf) < 64<<10 {
		return nil
	}
	return e.flush()
}

func (e *exporter) flush() error {
	_, err := e.w.Write(e.buf)
	e.buf = e.buf[:0]
	return err
}

// AppendMicros appends ns as microseconds. It writes ns/1000 with three
// decimals when that decimal survives Tracy's conversion (nearest double,
// times 1000, truncated) exactly, otherwise the shortest spelling of the
// next double up, which does.
func AppendMicros(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	d := float64(ns) / 1000
	if ns < 1<<53 && int64(d*1000) == ns {
		b = strconv.AppendInt(b, ns/1000, 10)
		if f := ns % 1000; f != 0 {
			b = append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
			for b[len(b)-1] == '0' {
				b = b[:len(b)-1]
			}
		}
		return b
	}
	for range 4 {
		d = math.Nextafter(d, math.Inf(1))
		if int64(d*1000) == ns {
			break
		}
	}
	return strconv.AppendFloat(b, d, 'f', -1, 64)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Invalid UTF-8 bytes become
// U+FFFD: JSON text must be Unicode, and Tracy's parser rejects the file
// otherwise.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
