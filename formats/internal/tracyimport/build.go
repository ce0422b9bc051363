// Package tracyimport is what Tracy 0.14's importers share: the Worker
// constructor that turns a list of zone begin/end events, messages and plot
// points into a trace (server/TracyWorker.cpp's import constructor). Both
// the Chrome JSON and the Fuchsia importer collect their records into an
// Input and call Build, so both replay Tracy's rules the same way.
package tracyimport

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gotracy/gotracy/model"
)

// Loc is a zone's source location as the importers make it: a name and a
// file (Input.Strings indices) and a line.
type Loc struct {
	Name, File uint32
	Line       uint32
}

// Zone is one zone begin or end, 24 bytes: a million-event file costs tens
// of megabytes, not a DOM. Input.Timeline holds them in input order, which
// the stable sort by time keeps for equal times.
type Zone struct {
	Tid  uint64
	Ts   uint64
	Loc  uint32 // index+1 into Input.Locs; 0 = end event
	Text uint32 // index into Input.Strings, 0 = none
}

// Message is an instant event.
type Message struct {
	Tid  uint64
	Ts   uint64
	Text uint32
	Seq  uint32
}

// Plot is one counter's points, in input order.
type Plot struct {
	Name   string
	Format uint8
	Points []model.PlotPoint
}

// Input collects an importer's records.
type Input struct {
	Strings     []string // [0] is ""
	strs        map[string]uint32
	Locs        []Loc
	locs        map[Loc]uint32
	Timeline    []Zone
	Messages    []Message
	Plots       []Plot
	plotIdx     map[string]int
	ThreadNames map[uint64]string
}

// NewInput returns an empty Input.
func NewInput() *Input {
	return &Input{Strings: []string{""}, strs: map[string]uint32{}, locs: map[Loc]uint32{},
		plotIdx: map[string]int{}, ThreadNames: map[uint64]string{}}
}

// Intern returns the index of b in Strings, adding it if new ("" is 0).
func (in *Input) Intern(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	if id, ok := in.strs[string(b)]; ok {
		return id
	}
	id := uint32(len(in.Strings))
	str := string(b)
	in.Strings = append(in.Strings, str)
	in.strs[str] = id
	return id
}

// AddText stores a zone text without de-duplicating it: texts are mostly
// unique, and Build interns them into the trace anyway, so a second hash
// map here would only cost time.
func (in *Input) AddText(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	in.Strings = append(in.Strings, string(b))
	return uint32(len(in.Strings) - 1)
}

// InternString is Intern for a string.
func (in *Input) InternString(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := in.strs[s]; ok {
		return id
	}
	id := uint32(len(in.Strings))
	in.Strings = append(in.Strings, s)
	in.strs[s] = id
	return id
}

// AddZones appends zone events, doubling the capacity when full: append's
// 1.25x growth for large slices would copy a million-event timeline some
// twenty times.
func (in *Input) AddZones(z ...Zone) {
	if len(in.Timeline)+len(z) > cap(in.Timeline) {
		n := make([]Zone, len(in.Timeline), max(2*cap(in.Timeline), len(in.Timeline)+len(z), 1024))
		copy(n, in.Timeline)
		in.Timeline = n
	}
	in.Timeline = append(in.Timeline, z...)
}

// Location returns the 1-based id of a source location, shared by equal
// ones as Tracy's payload map shares them.
func (in *Input) Location(k Loc) uint32 {
	id, ok := in.locs[k]
	if !ok {
		in.Locs = append(in.Locs, k)
		id = uint32(len(in.Locs))
		in.locs[k] = id
	}
	return id
}

// SplitLoc splits a "file:line" location at its last ':' as Tracy does (the
// line through C's atoi; no ':' means all file, line 0).
func (in *Input) SplitLoc(loc []byte) (file, line uint32) {
	if i := strings.LastIndexByte(string(loc), ':'); i >= 0 {
		return in.Intern(loc[:i]), uint32(CAtoi(loc[i+1:]))
	}
	return in.Intern(loc), 0
}

// CAtoi is C's atoi: leading space, a sign, digits; the rest ignored.
func CAtoi(b []byte) int32 {
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
		if n > math.MaxInt32+1 {
			n = math.MaxInt32 + 1
		}
	}
	if neg {
		n = -n
	}
	return int32(n)
}

// AddPlotPoint appends a point to the plot of that name, creating it with
// format if new.
func (in *Input) AddPlotPoint(name string, format uint8, ts int64, v float64) {
	pi, ok := in.plotIdx[name]
	if !ok {
		pi = len(in.Plots)
		in.Plots = append(in.Plots, Plot{Name: name, Format: format})
		in.plotIdx[name] = pi
	}
	in.Plots[pi].Points = append(in.Plots[pi].Points, model.PlotPoint{Time: ts, Value: v})
}

// ErrTimeRange reports times a .tracy file cannot hold: zone times are
// signed 48-bit nanoseconds (39 hours) there.
var ErrTimeRange = errors.New("times beyond Tracy's 48-bit zone timestamps (2^47 ns, about 39 hours)")

// Options fills the trace's metadata; Tracy's importers store the output
// and input paths there.
type Options struct {
	CaptureName, CaptureProgram string
	// NoShift keeps the times as given: the importers' main programs shift
	// the trace to start at 0, tracy-merge's does not.
	NoShift bool
	// Statistics mirrors a Worker built with statistics (tracy-merge):
	// zone ends enter their thread into the local thread table.
	Statistics bool
}

// radixSortByTime sorts zone events by Ts, stably: the timeline is appended
// in input order, so a stable sort by time is the (time, input order) order
// Tracy's stable_sort gives. LSD radix over 11-bit digits, only as many
// passes as the largest time needs (four for a trace under 2^44 ns), beats
// a comparison sort by several times on millions of events.
func radixSortByTime(z []Zone) []Zone {
	var top uint64
	for i := range z {
		top |= z[i].Ts
	}
	tmp := make([]Zone, len(z))
	const bits = 11
	var count [1 << bits]int
	for shift := uint(0); shift < 64 && top>>shift != 0; shift += bits {
		clear(count[:])
		for i := range z {
			count[z[i].Ts>>shift&(1<<bits-1)]++
		}
		sum := 0
		for i := range count {
			sum, count[i] = sum+count[i], sum
		}
		for i := range z {
			d := z[i].Ts >> shift & (1<<bits - 1)
			tmp[count[d]] = z[i]
			count[d]++
		}
		z, tmp = tmp, z
	}
	return z
}

// Build replays the collected records as Tracy's import constructor does.
// It fails only with ErrTimeRange.
func Build(im *Input, o Options) (*model.Trace, error) {
	// B/E traces usually arrive in time order: checking is one pass (a
	// timeline in input order whose times never decrease is already in
	// stable order).
	if !slices.IsSortedFunc(im.Timeline, func(a, b Zone) int { return cmp.Compare(a.Ts, b.Ts) }) {
		im.Timeline = radixSortByTime(im.Timeline)
	}
	slices.SortFunc(im.Messages, func(a, b Message) int {
		if c := cmp.Compare(a.Ts, b.Ts); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	for i := range im.Plots {
		slices.SortStableFunc(im.Plots[i].Points, func(a, b model.PlotPoint) int { return cmp.Compare(a.Time, b.Time) })
	}
	// Tracy starts from the first zone event and lowers it only to an
	// earlier message or plot point; with no zone event it shifts nothing.
	var mts uint64
	if len(im.Timeline) > 0 && !o.NoShift {
		mts = im.Timeline[0].Ts
		if len(im.Messages) > 0 && im.Messages[0].Ts < mts {
			mts = im.Messages[0].Ts
		}
		for i := range im.Plots {
			if p := uint64(im.Plots[i].Points[0].Time); p < mts {
				mts = p
			}
		}
	}

	// Zone times are 48-bit in Tracy's model and file: refuse a span that
	// would wrap rather than store wrong times.
	if n := len(im.Timeline); n > 0 && im.Timeline[n-1].Ts-mts > model.MaxTime {
		return nil, fmt.Errorf("%w: zone times reach %d ns after the trace start", ErrTimeRange, im.Timeline[n-1].Ts-mts)
	}
	for _, m := range im.Messages {
		if m.Ts-mts > math.MaxInt64 {
			return nil, fmt.Errorf("%w: a message at %d ns", ErrTimeRange, m.Ts-mts)
		}
	}

	b := model.NewBuilder()
	t := b.Trace()
	var emptyStr model.StrID
	t.Metadata.CaptureName = o.CaptureName
	t.Metadata.CaptureProgram = o.CaptureProgram
	t.Metadata.TimerMul = 1

	// Tracy stores even an empty name or file as a string of the table, so
	// the csv prints "" for it where an absent string prints "???".
	str := func(id uint32) model.StringRef {
		if id == 0 {
			if emptyStr == 0 {
				t.Strings = append(t.Strings, "")
				emptyStr = model.StrID(len(t.Strings) - 1)
			}
			return model.IdxRef(emptyStr)
		}
		return model.IdxRef(b.Intern(im.Strings[id]))
	}
	// The local thread table, in the order Tracy's CompressThread first
	// sees each thread (see below).
	local := []uint64{0}
	localOf := map[uint64]uint16{}
	compress := func(tid uint64) {
		if _, ok := localOf[tid]; !ok {
			localOf[tid] = uint16(len(local))
			local = append(local, tid)
		}
	}
	dyn := make([]model.SrcLocID, len(im.Locs)+1)
	for i := range im.Timeline {
		e := &im.Timeline[i]
		ts := int64(e.Ts - mts)
		th := b.Thread(e.Tid)
		b.Observe(ts)
		if e.Loc == 0 {
			if _, ok := b.EndZone(th, ts); ok && o.Statistics {
				compress(e.Tid)
			}
			continue
		}
		id := dyn[e.Loc]
		if id == 0 {
			k := im.Locs[e.Loc-1]
			id = b.AddDynSrcLoc(model.SourceLocation{
				Function: str(k.Name),
				File:     str(k.File),
				Line:     k.Line,
			})
			dyn[e.Loc] = id
		}
		zi := b.BeginZone(th, ts, id)
		if e.Text != 0 {
			b.SetZoneText(th, zi, im.Strings[e.Text])
		}
	}
	im.Timeline = nil

	// Messages: those naming a frame become frames; the others keep Tracy's
	// insertion order, where a message inserted at a time already present
	// goes before the earlier ones (runs of equal times come out reversed).
	frameSets := map[uint32]uint64{}
	var plain []Message
	for _, m := range im.Messages {
		text := im.Strings[m.Text]
		if strings.Contains(strings.ToLower(text), "frame") {
			key, ok := frameSets[m.Text]
			if !ok {
				key = uint64(len(frameSets) + 1)
				frameSets[m.Text] = key
				b.SetPtrString(key, text)
				b.FrameSet(key, true)
			}
			b.FrameMark(key, int64(m.Ts-mts))
			continue
		}
		b.Thread(m.Tid)
		plain = append(plain, m)
	}
	for i := 0; i < len(plain); {
		j := i + 1
		for j < len(plain) && plain[j].Ts == plain[i].Ts {
			j++
		}
		slices.Reverse(plain[i:j])
		i = j
	}
	// Tracy's importers are built without statistics, so only messages
	// compress thread ids: the local thread table holds the message threads
	// in the order their messages were processed (time order), and a thread
	// with zones alone is not in it at all. tracy-merge is built with
	// statistics: each zone end compresses its thread first.
	for _, m := range im.Messages {
		if !strings.Contains(strings.ToLower(im.Strings[m.Text]), "frame") {
			compress(m.Tid)
		}
	}
	for _, m := range plain {
		i := b.AddMessage(m.Tid, model.Message{
			Time:     int64(m.Ts - mts),
			Text:     model.IdxRef(b.Intern(im.Strings[m.Text])),
			Color:    0xFFFFFFFF,
			Source:   model.MsgSourceUser,
			Severity: model.SeverityInfo,
		})
		t.Messages[i].Thread = localOf[m.Tid]
	}
	t.ThreadIndex = local

	// Plot names are pointer keys in Tracy (the address of the name); any
	// key distinct from the frame-set keys 1..n serves.
	for i := range im.Plots {
		p := &im.Plots[i]
		key := uint64(1)<<40 + uint64(i)
		b.SetPtrString(key, p.Name)
		b.Plot(key)
		b.PlotConfig(key, p.Format, false, true, 0)
		for _, pt := range p.Points {
			b.PlotPoint(key, pt.Time-int64(mts), pt.Value)
		}
	}

	for i := range t.Threads {
		tid := t.Threads[i].ID
		var s string
		if tid <= math.MaxUint32 {
			s = strconv.FormatUint(tid, 10)
		} else {
			s = fmt.Sprintf("PID %d TID %d", tid>>32, tid&0xFFFFFFFF)
		}
		if n, ok := im.ThreadNames[tid]; ok {
			s = "(" + s + ") " + n
			// Tracy formats into a 128-byte buffer.
			if len(s) > 127 {
				s = s[:127]
			}
		}
		b.SetThreadName(tid, s)
	}

	if len(frameSets) == 0 {
		// Tracy's importer gives a trace without frames two base frames at 0.
		b.FrameMark(0, 0)
		b.FrameMark(0, 0)
	} else {
		// ... and a trace with frames no base frame set at all.
		t.FrameSets = t.FrameSets[1:]
	}
	return b.Finish(), nil
}
