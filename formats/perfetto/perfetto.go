// Package perfetto exports a trace as a Perfetto protobuf trace: a stream
// of TracePacket messages (each framed as field 1 of the Trace message, so
// the file is a valid Trace) that ui.perfetto.dev and trace_processor load.
//
// Mapping: one process track (the program), one thread track per thread
// (named as in Tracy), every CPU zone as a TrackEvent slice begin/end pair
// on its thread's track, with its name and source location interned, its
// text as a debug annotation; each plot is a counter track (bytes for
// memory plots); messages are log messages on their thread's track with
// the text interned; frames are instants on one track per frame set.
//
// The packets are written as they are made, with field numbers from
// Perfetto's published schema (protos/perfetto/trace/...), so memory stays
// bounded by the model and the intern tables, not by the output.
package perfetto

import (
	"bufio"
	"io"
	"math"
	"strings"

	"github.com/gotracy/gotracy/model"
	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers (Perfetto schema).
const (
	fTracePacket = 1 // Trace.packet

	// TracePacket
	pTimestamp         = 8
	pSequenceID        = 10 // trusted_packet_sequence_id
	pTrackEvent        = 11
	pInternedData      = 12
	pSequenceFlags     = 13
	pTrackDescriptor   = 60
	pFirstOnSequence   = 87
	seqIncrementalClr  = 1 // SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncrState  = 2 // SEQ_NEEDS_INCREMENTAL_STATE
	trackEventTypeBeg  = 1
	trackEventTypeEnd  = 2
	trackEventTypeInst = 3
	trackEventTypeCntr = 4

	// TrackEvent
	eDebugAnnotation = 4
	eType            = 9
	eNameIID         = 10
	eTrackUUID       = 11
	eLogMessage      = 21
	eName            = 23
	eCounterValue    = 30
	eSourceLocIID    = 34
	eDoubleCounter   = 44

	// TrackDescriptor
	tdUUID    = 1
	tdName    = 2
	tdProcess = 3
	tdThread  = 4
	tdParent  = 5
	tdCounter = 8

	// ProcessDescriptor / ThreadDescriptor
	pdPID  = 1
	pdName = 6
	thPID  = 1
	thTID  = 2
	thName = 5

	// CounterDescriptor.unit
	cdUnit      = 3
	unitCount   = 2
	unitBytes   = 3
	unitUnknown = 0

	// InternedData
	idEventNames = 2
	idSourceLocs = 4
	idLogBodies  = 20
	// EventName / LogMessageBody: iid 1, name/body 2
	// SourceLocation: iid 1, file_name 2, function_name 3, line_number 4

	// DebugAnnotation
	daStringValue = 6
	daName        = 10

	// LogMessage
	lmSourceLocIID = 1
	lmBodyIID      = 2
	lmPrio         = 3
)

// sequence is the one writer sequence id all packets use.
const sequence = 1

// Options tunes Export.
type Options struct {
	// Filter keeps only zones whose name contains it (ASCII
	// case-insensitive unless CaseSensitive).
	Filter        string
	CaseSensitive bool
}

// Export writes t to w as a Perfetto trace.
func Export(w io.Writer, t *model.Trace, o Options) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	e := &encoder{w: bw, names: map[string]uint64{}, bodies: map[string]uint64{}, locs: map[locKey]uint64{}}
	filter := o.Filter
	if !o.CaseSensitive {
		filter = strings.ToLower(filter)
	}
	pid := t.Metadata.PID
	const processUUID = 1

	// Tracks first: the process, its threads, counters and frame sets.
	e.packet(func(b []byte) []byte {
		b = protowire.AppendTag(b, pFirstOnSequence, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
		b = protowire.AppendTag(b, pSequenceFlags, protowire.VarintType)
		b = protowire.AppendVarint(b, seqIncrementalClr)
		return message(b, pTrackDescriptor, func(b []byte) []byte {
			b = varint(b, tdUUID, processUUID)
			return message(b, tdProcess, func(b []byte) []byte {
				b = varint(b, pdPID, uint64(int32(pid)))
				if name := t.Metadata.CaptureProgram; name != "" {
					b = str(b, pdName, name)
				} else if name := t.Metadata.CaptureName; name != "" {
					b = str(b, pdName, name)
				}
				return b
			})
		})
	})
	threadUUID := func(i int) uint64 { return 0x1000 + uint64(i) }
	for i := range t.Threads {
		th := &t.Threads[i]
		e.packet(func(b []byte) []byte {
			return message(b, pTrackDescriptor, func(b []byte) []byte {
				b = varint(b, tdUUID, threadUUID(i))
				b = varint(b, tdParent, processUUID)
				return message(b, tdThread, func(b []byte) []byte {
					b = varint(b, thPID, uint64(int32(pid)))
					b = varint(b, thTID, th.ID)
					if n := t.ThreadName(th.ID); n != "" {
						b = str(b, thName, n)
					}
					return b
				})
			})
		})
	}
	counterUUID := func(i int) uint64 { return 0x100000 + uint64(i) }
	for i := range t.Plots {
		p := &t.Plots[i]
		name, ok := t.PtrString(p.Name)
		if !ok {
			name = "???"
		}
		unit := uint64(unitUnknown)
		if p.Format == model.PlotFormatMemory {
			unit = unitBytes
		}
		e.packet(func(b []byte) []byte {
			return message(b, pTrackDescriptor, func(b []byte) []byte {
				b = varint(b, tdUUID, counterUUID(i))
				b = varint(b, tdParent, processUUID)
				b = str(b, tdName, name)
				return message(b, tdCounter, func(b []byte) []byte {
					if unit != unitUnknown {
						b = varint(b, cdUnit, unit)
					}
					return b
				})
			})
		})
	}
	frameUUID := func(i int) uint64 { return 0x200000 + uint64(i) }
	for i := range t.FrameSets {
		fs := &t.FrameSets[i]
		name := "Frame"
		if fs.Name != 0 {
			if n, ok := t.PtrString(fs.Name); ok {
				name = n
			}
		}
		e.packet(func(b []byte) []byte {
			return message(b, pTrackDescriptor, func(b []byte) []byte {
				b = varint(b, tdUUID, frameUUID(i))
				b = varint(b, tdParent, processUUID)
				return str(b, tdName, "frames: "+name)
			})
		})
	}
	if err := e.err; err != nil {
		return err
	}

	// Zones, thread by thread, as begin/end pairs in time order.
	slt := model.NewSrcLocTable(t)
	var ends []int    // subtree ends of open zones
	var endAt []int64 // their end times (-1: never ended)
	for ti := range t.Threads {
		th := &t.Threads[ti]
		track := threadUUID(ti)
		ends, endAt = ends[:0], endAt[:0]
		closeTo := func(zi int) {
			for len(ends) > 0 && zi >= ends[len(ends)-1] {
				if at := endAt[len(endAt)-1]; at >= 0 {
					e.slice(at, track, trackEventTypeEnd, 0, 0, "")
				}
				ends, endAt = ends[:len(ends)-1], endAt[:len(endAt)-1]
			}
		}
		for zi, z := range th.Zones.All() {
			closeTo(zi)
			name := t.ZoneName(z)
			keep := true
			if filter != "" {
				n := name
				if !o.CaseSensitive {
					n = strings.ToLower(n)
				}
				keep = strings.Contains(n, filter)
			}
			end := z.End()
			if keep {
				sl, _ := slt.Get(z.SrcLoc)
				loc := e.location(t.RefString(sl.File), t.RefString(sl.Function), sl.Line)
				text := ""
				if ex := z.Extra(); ex != 0 && int(ex) < len(t.ZoneExtras) {
					text = t.Str(t.ZoneExtras[ex].Text)
				}
				e.slice(z.Start(), track, trackEventTypeBeg, e.name(name), loc, text)
			} else {
				end = -1 // nothing to end
			}
			ends = append(ends, th.Zones.NextOf(z))
			endAt = append(endAt, end)
			if e.err != nil {
				return e.err
			}
		}
		closeTo(math.MaxInt)
	}

	for i := range t.Messages {
		m := &t.Messages[i]
		ti := -1
		tid := t.LocalThread(m.Thread)
		for j := range t.Threads {
			if t.Threads[j].ID == tid {
				ti = j
				break
			}
		}
		track := uint64(processUUID)
		if ti >= 0 {
			track = threadUUID(ti)
		}
		e.log(m.Time, track, t.RefString(m.Text), m.Severity)
		if e.err != nil {
			return e.err
		}
	}
	for i := range t.Plots {
		for _, pt := range t.Plots[i].Points {
			e.counter(pt.Time, counterUUID(i), pt.Value)
		}
		if e.err != nil {
			return e.err
		}
	}
	for i := range t.FrameSets {
		for _, f := range t.FrameSets[i].Frames {
			e.slice(f.Start, frameUUID(i), trackEventTypeInst, e.name("frame"), 0, "")
		}
		if e.err != nil {
			return e.err
		}
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

type locKey struct {
	file, fn string
	line     uint32
}

type encoder struct {
	w      *bufio.Writer
	err    error
	pkt    []byte
	out    []byte
	intern []byte // interned_data of the packet being built

	names  map[string]uint64
	bodies map[string]uint64
	locs   map[locKey]uint64
}

// packet frames one TracePacket (built by body) as Trace.packet and writes
// it, with any interned data its fields introduced.
func (e *encoder) packet(body func([]byte) []byte) {
	if e.err != nil {
		return
	}
	e.pkt = body(e.pkt[:0])
	if len(e.intern) > 0 {
		e.pkt = protowire.AppendTag(e.pkt, pInternedData, protowire.BytesType)
		e.pkt = protowire.AppendBytes(e.pkt, e.intern)
		e.intern = e.intern[:0]
	}
	e.out = protowire.AppendTag(e.out[:0], fTracePacket, protowire.BytesType)
	e.out = protowire.AppendBytes(e.out, e.pkt)
	_, e.err = e.w.Write(e.out)
}

// name returns the interned id of an event name, adding it to the current
// packet's interned data when new.
func (e *encoder) name(s string) uint64 {
	if id, ok := e.names[s]; ok {
		return id
	}
	id := uint64(len(e.names) + 1)
	e.names[s] = id
	e.intern = message(e.intern, idEventNames, func(b []byte) []byte {
		b = varint(b, 1, id)
		return str(b, 2, s)
	})
	return id
}

func (e *encoder) location(file, fn string, line uint32) uint64 {
	if file == "" && fn == "" {
		return 0
	}
	k := locKey{file, fn, line}
	if id, ok := e.locs[k]; ok {
		return id
	}
	id := uint64(len(e.locs) + 1)
	e.locs[k] = id
	e.intern = message(e.intern, idSourceLocs, func(b []byte) []byte {
		b = varint(b, 1, id)
		if file != "" {
			b = str(b, 2, file)
		}
		if fn != "" {
			b = str(b, 3, fn)
		}
		return varint(b, 4, uint64(line))
	})
	return id
}

func (e *encoder) body(s string) uint64 {
	if id, ok := e.bodies[s]; ok {
		return id
	}
	id := uint64(len(e.bodies) + 1)
	e.bodies[s] = id
	e.intern = message(e.intern, idLogBodies, func(b []byte) []byte {
		b = varint(b, 1, id)
		return str(b, 2, s)
	})
	return id
}

func (e *encoder) head(b []byte, ts int64) []byte {
	b = varint(b, pTimestamp, uint64(max(ts, 0)))
	b = varint(b, pSequenceID, sequence)
	return varint(b, pSequenceFlags, seqNeedsIncrState)
}

func (e *encoder) slice(ts int64, track uint64, typ uint64, nameIID, locIID uint64, text string) {
	e.packet(func(b []byte) []byte {
		b = e.head(b, ts)
		return message(b, pTrackEvent, func(b []byte) []byte {
			b = varint(b, eType, typ)
			b = varint(b, eTrackUUID, track)
			if nameIID != 0 {
				b = varint(b, eNameIID, nameIID)
			}
			if locIID != 0 {
				b = varint(b, eSourceLocIID, locIID)
			}
			if text != "" {
				b = message(b, eDebugAnnotation, func(b []byte) []byte {
					b = str(b, daName, "text")
					return str(b, daStringValue, text)
				})
			}
			return b
		})
	})
}

// Tracy severities (trace..fatal) to LogMessage priorities.
var prio = [...]uint64{2, 3, 4, 5, 6, 7}

func (e *encoder) log(ts int64, track uint64, text string, sev uint8) {
	e.packet(func(b []byte) []byte {
		b = e.head(b, ts)
		return message(b, pTrackEvent, func(b []byte) []byte {
			b = varint(b, eType, trackEventTypeInst)
			b = varint(b, eTrackUUID, track)
			b = varint(b, eNameIID, e.name("message"))
			return message(b, eLogMessage, func(b []byte) []byte {
				b = varint(b, lmBodyIID, e.body(text))
				p := uint64(4)
				if int(sev) < len(prio) {
					p = prio[sev]
				}
				return varint(b, lmPrio, p)
			})
		})
	})
}

func (e *encoder) counter(ts int64, track uint64, v float64) {
	e.packet(func(b []byte) []byte {
		b = e.head(b, ts)
		return message(b, pTrackEvent, func(b []byte) []byte {
			b = varint(b, eType, trackEventTypeCntr)
			b = varint(b, eTrackUUID, track)
			b = protowire.AppendTag(b, eDoubleCounter, protowire.Fixed64Type)
			return protowire.AppendFixed64(b, math.Float64bits(v))
		})
	})
}

func varint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func str(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// message appends a length-delimited sub-message built by body. The body is
// built in place after a reserved one-byte length, then moved if its length
// needs more bytes.
func message(b []byte, num protowire.Number, body func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	at := len(b)
	b = append(b, 0)
	b = body(b)
	n := len(b) - at - 1
	sz := protowire.SizeVarint(uint64(n))
	if sz == 1 {
		b[at] = byte(n)
		return b
	}
	b = append(b, make([]byte, sz-1)...)
	copy(b[at+sz:], b[at+1:at+1+n])
	protowire.AppendVarint(b[at:at], uint64(n))
	return b
}
