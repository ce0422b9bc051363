package capture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/race"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// writeTextStream writes flightStarts' frames, each with an outer zone and
// three inner zones that carry what clients attach to zones, all distinct
// per frame but for two: the outer zone's text "outer f" (every tenth
// frame a second text is appended, "more f"), the first inner zone's value
// f, the second inner zone's name "name f" and the text every frame shares,
// the third inner zone's text "main" (also the thread's name), and a
// message "msg f". Two strings per frame are never taken: a SingleString
// "lost f" that the next one replaces, and (every third frame) a
// SecondString equal to the outer zone's text, sent before it.
func writeTextStream(out io.Writer, frames int) error {
	fw, refs, err := startFlightStream(out, 9, "texts")
	if err != nil {
		return err
	}
	starts := flightStarts(frames)
	var b []byte
	var ferr error
	str := func(s string) {
		var err error
		if b, err = protocol.AppendSingleString(b, s); err != nil && ferr == nil {
			ferr = err
		}
	}
	for f := 0; f < frames; f++ {
		s, end := starts[f], starts[f+1]
		b = protocol.AppendFrameMarkMsg(b, refs.Delta(protocol.FrameMarkMsg.Spec().Time, s), 0)
		b = refs.AppendThreadContext(b, 1)
		b = refs.AppendZoneBegin(b, s+10, 0x1000)
		str(fmt.Sprintf("lost %d", f))
		if f%3 == 0 {
			var err error
			if b, err = protocol.AppendSecondString(b, fmt.Sprintf("outer %d", f)); err != nil {
				return err
			}
		}
		str(fmt.Sprintf("outer %d", f))
		b = protocol.AppendZoneText(b)
		if f%10 == 0 {
			str(fmt.Sprintf("more %d", f))
			b = protocol.AppendZoneText(b)
		}
		for i := range int64(3) {
			b = refs.AppendZoneBegin(b, s+100+i*1000, 0x1010)
			switch i {
			case 0:
				b = protocol.AppendZoneValue(b, uint64(f))
			case 1:
				str(fmt.Sprintf("name %d", f))
				b = protocol.AppendZoneName(b)
				str("every frame")
				b = protocol.AppendZoneText(b)
				b = protocol.AppendZoneColor(b, 1, 2, 3)
			case 2:
				str("main")
				b = protocol.AppendZoneText(b)
			}
			b = refs.AppendZoneEnd(b, s+600+i*1000)
		}
		b = refs.AppendZoneEnd(b, end-100)
		str(fmt.Sprintf("msg %d", f))
		b = protocol.AppendMessage(b, refs.Delta(protocol.Message.Spec().Time, s+500), 0)
		if f == 0 {
			var err error
			for _, a := range []func([]byte) ([]byte, error){
				func(b []byte) ([]byte, error) { return protocol.AppendThreadName(b, 1, "main") },
				func(b []byte) ([]byte, error) {
					return protocol.AppendSourceLocation(b, 0, 0x2010, 0x2020, 42, 0, 0, 0), nil
				},
				func(b []byte) ([]byte, error) {
					return protocol.AppendSourceLocation(b, 0x2030, 0x2010, 0x2020, 43, 0, 0, 0), nil
				},
				func(b []byte) ([]byte, error) { return protocol.AppendStringData(b, 0x2010, "frame") },
				func(b []byte) ([]byte, error) { return protocol.AppendStringData(b, 0x2020, "flight.go") },
				func(b []byte) ([]byte, error) { return protocol.AppendStringData(b, 0x2030, "inner") },
			} {
				if b, err = a(b); err != nil {
					return err
				}
			}
		}
		if len(b) > 32<<10 {
			if err := fw.WriteItems(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = protocol.AppendFrameMarkMsg(b, refs.Delta(protocol.FrameMarkMsg.Spec().Time, starts[frames]), 0)
	b = protocol.AppendTerminate(b)
	if err := fw.WriteItems(b); err != nil {
		return err
	}
	if err := fw.Flush(); err != nil {
		return err
	}
	return ferr
}

// checkTexts checks that every zone and message tr holds carries what
// writeTextStream gave it, and that the frames kept are want's. With
// partial, the last of want was still arriving (a snapshot): its zones and
// message are not checked.
func checkTexts(t *testing.T, tr *model.Trace, frames int, want []int64, partial bool) {
	t.Helper()
	frameOf := map[int64]int{}
	for f, s := range flightStarts(frames) {
		frameOf[s] = f
	}
	kept := map[int]bool{}
	for _, s := range want {
		kept[frameOf[s]] = true
	}
	// The last mark of a whole stream opens a frame with no zones; a
	// snapshot's last frame is the one excluded.
	wantOuter := len(want) - 1
	arriving := -1
	if partial {
		arriving = frameOf[want[len(want)-1]]
		want = want[:len(want)-1]
	}
	var th *model.Thread
	for i := range tr.Threads {
		if tr.Threads[i].Zones.Len() > 0 {
			th = &tr.Threads[i]
		}
	}
	if th == nil {
		t.Fatal("no zones kept")
	}
	if got := tr.Str(tr.ThreadNames[th.ID]); got != "main" {
		t.Errorf("thread name %q, want main", got)
	}
	extra := func(z *model.Zone) model.ZoneExtra {
		e := z.Extra()
		if e == 0 || int(e) >= len(tr.ZoneExtras) {
			t.Fatalf("zone at %d has no extra (%d of %d)", z.Start(), e, len(tr.ZoneExtras))
		}
		return tr.ZoneExtras[e]
	}
	outer, f := 0, -1
	model.Walk(&th.Zones, func(i, depth int) bool {
		z := th.Zones.At(i)
		if depth == 0 {
			var ok bool
			if f, ok = frameOf[z.Start()-10]; !ok || !kept[f] {
				t.Fatalf("outer zone at %d belongs to no kept frame", z.Start())
			}
		}
		if f == arriving {
			return true
		}
		x := extra(z)
		if depth == 0 {
			outer++
			text := fmt.Sprintf("outer %d", f)
			if f%10 == 0 {
				text += fmt.Sprintf("\nmore %d", f)
			}
			if got := tr.Str(x.Text); got != text {
				t.Fatalf("frame %d: outer zone's text %q, want %q", f, got, text)
			}
			if got := tr.ZoneName(z); got != "frame" {
				t.Fatalf("frame %d: outer zone's source location %q, want frame", f, got)
			}
			return true
		}
		var name, text string
		switch k := z.Start() - flightStarts(frames)[f] - 100; k {
		case 0:
			text = fmt.Sprintf("%d [0x%x]", f, f)
		case 1000:
			name, text = fmt.Sprintf("name %d", f), "every frame"
			if x.Color != 0x010203 {
				t.Fatalf("frame %d: colour %#x", f, x.Color)
			}
		case 2000:
			text = "main"
		default:
			t.Fatalf("frame %d: inner zone at offset %d", f, k)
		}
		if got := tr.Str(x.Text); got != text {
			t.Fatalf("frame %d: inner zone's text %q, want %q", f, got, text)
		}
		if got := tr.Str(x.Name); got != name {
			t.Fatalf("frame %d: inner zone's name %q, want %q", f, got, name)
		}
		if name == "" {
			name = "inner"
		}
		if got := tr.ZoneName(z); got != name {
			t.Fatalf("frame %d: inner zone shown as %q, want %q", f, got, name)
		}
		return true
	})
	if outer != wantOuter {
		t.Errorf("%d outer zones, want %d", outer, wantOuter)
	}
	msgs := 0
	for i := range tr.Messages {
		m := &tr.Messages[i]
		f, ok := frameOf[m.Time-500]
		if !ok || !kept[f] {
			t.Fatalf("message at %d belongs to no kept frame", m.Time)
		}
		if f == arriving {
			continue
		}
		if got, text := tr.RefString(m.Text), fmt.Sprintf("msg %d", f); got != text {
			t.Fatalf("frame %d: message %q, want %q", f, got, text)
		}
		msgs++
	}
	if msgs != wantOuter {
		t.Errorf("%d messages, want %d", msgs, wantOuter)
	}
}

// TestFlightRecorderReclaimsTexts: a client that gives every zone and
// message its own text (the common case for zone values, names and logged
// lines) keeps the capture's strings and zone extras within the window,
// however long the stream: after every trim, those in use are the window's
// (and the messages a quarter window keeps), and the string table is as
// long after three times the stream. Every zone and message kept still
// carries its own text, name, value and colour, in the trace and in the
// file saved from it; so do the slow frames kept between dropped ones.
func TestFlightRecorderReclaimsTexts(t *testing.T) {
	frames := 20_000
	if race.Enabled || testing.Short() {
		frames = 6_000
	}
	const window = 300
	// Per frame: 4 distinct strings (outer, name, value, message) and a
	// tenth of one (more), 4 extras.
	const strPerFrame, extrasPerFrame = 5, 4
	for _, tc := range []struct {
		name string
		fr   FlightRecorder
		slow bool
	}{
		{"keep-frames", FlightRecorder{KeepFrames: window}, false},
		{"keep-frames+slow", FlightRecorder{KeepFrames: window, KeepSlow: 10 * time.Millisecond}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var table []int
			for _, n := range []int{frames, 3 * frames} {
				maxStr, maxExtras := 0, 0
				flightTexts = func(s, e int) { maxStr, maxExtras = max(maxStr, s), max(maxExtras, e) }
				pr, pw := io.Pipe()
				go func() { pw.CloseWithError(writeTextStream(pw, n)) }()
				res, err := Replay(context.Background(), pr, WithLocalSources(false), WithFlightRecorder(tc.fr))
				flightTexts = nil
				pr.Close()
				if err != nil {
					t.Fatal(err)
				}
				want := wantFrames(n, window, tc.slow)
				checkTexts(t, res.Trace, n, want, false)
				// After a trim: the window, the messages of up to a quarter
				// window more, the slow frames; a few pinned strings.
				held := window + window/4 + n/flSlowEvery
				if bound := held*strPerFrame + 16; maxStr > bound {
					t.Errorf("%d frames: up to %d strings in use after a trim, want at most %d", n, maxStr, bound)
				}
				if bound := held*extrasPerFrame + 1; maxExtras > bound {
					t.Errorf("%d frames: up to %d zone extras in use after a trim, want at most %d", n, maxExtras, bound)
				}
				table = append(table, len(res.Trace.Strings))
				t.Logf("%d frames, window %d: at most %d strings and %d zone extras in use after a trim; string table %d", n, window, maxStr, maxExtras, len(res.Trace.Strings))
				var file bytes.Buffer
				if err := tracefile.Write(&file, res.Trace); err != nil {
					t.Fatal(err)
				}
				back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
				if err != nil {
					t.Fatal(err)
				}
				checkTexts(t, back, n, want, false)
			}
			// The table holds the most in use between trims (the window
			// and a transport frame's strings): not more for a longer run.
			if table[1] > table[0]+table[0]/10 {
				t.Errorf("string table %d long after %d frames, %d after %d: it grows with the run", table[0], frames, table[1], 3*frames)
			}
		})
	}
}

// TestFlightSnapshotKeepsTexts: a snapshot taken halfway holds its zones'
// and messages' texts after the capture has gone on to free and reuse
// their strings and extras.
func TestFlightSnapshotKeepsTexts(t *testing.T) {
	const frames = 8000
	var buf bytes.Buffer
	if err := writeTextStream(&buf, frames); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	req := make(chan chan<- *model.Trace)
	got := make(chan *model.Trace, 1)
	r := &snapReader{r: bytes.NewReader(raw), at: len(raw) / 2, fire: func() {
		reply := make(chan *model.Trace, 1)
		req <- reply
		go func() { got <- <-reply }()
	}}
	res, err := Replay(context.Background(), r, WithLocalSources(false), WithFlightRecorder(FlightRecorder{KeepFrames: 200}), WithSnapshots(req))
	if err != nil {
		t.Fatal(err)
	}
	snap := <-got
	var want []int64
	for _, f := range snap.FrameSets[0].Frames {
		want = append(want, f.Start)
	}
	if len(want) != 200 {
		t.Fatalf("snapshot has %d frames, want 200", len(want))
	}
	last := res.Trace.FrameSets[0].Frames
	if last[0].Start <= want[len(want)-1] {
		t.Fatal("the capture's window still overlaps the snapshot's: nothing of it was freed")
	}
	checkTexts(t, snap, frames, want, true)
}
