package perfetto

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
	"google.golang.org/protobuf/encoding/protowire"
)

func builtTrace() *model.Trace {
	b := model.NewBuilder()
	a := b.AddStaticSrcLoc(1, model.SourceLocation{Name: model.IdxRef(b.Intern("a")), Function: model.IdxRef(b.Intern("fa")), File: model.IdxRef(b.Intern("x.c")), Line: 1})
	c := b.AddStaticSrcLoc(2, model.SourceLocation{Function: model.IdxRef(b.Intern("c")), File: model.IdxRef(b.Intern("x.c")), Line: 2})
	b.FrameMark(0, 0)
	for k, tid := range []uint64{7, 8, 9} {
		th := b.Thread(tid)
		b.SetThreadName(tid, "t"+strconv.Itoa(k))
		for i := range k + 2 {
			s := int64(i * 1000)
			z := b.BeginZone(th, s, a)
			b.SetZoneText(th, z, "text "+strconv.Itoa(i))
			b.BeginZone(th, s+10, c)
			b.EndZone(th, s+500)
			b.EndZone(th, s+900)
		}
		b.AddMessage(tid, model.Message{Time: 5, Text: model.IdxRef(b.Intern("hello")), Severity: model.SeverityWarning})
	}
	b.SetPtrString(99, "heap")
	b.PlotConfig(99, model.PlotFormatMemory, false, false, 0)
	b.PlotPoint(99, 10, 4096)
	b.BeginZone(b.Thread(9), 10_000, a) // never ends
	return b.Finish()
}

// decoded is what a reader of the packets sees.
type decoded struct {
	threadTrack map[uint64]uint64 // track uuid -> tid
	begins      map[uint64]int    // per track
	ends        map[uint64]int
	names       map[uint64]string // interned event names
	counters    int
	logs        int
	instants    int
}

// decode walks the Trace with protowire alone: every packet must parse,
// every interned id must be defined before use.
func decode(t *testing.T, data []byte) *decoded {
	t.Helper()
	d := &decoded{threadTrack: map[uint64]uint64{}, begins: map[uint64]int{}, ends: map[uint64]int{}, names: map[uint64]string{}}
	fields := func(b []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, sub []byte)) {
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				t.Fatalf("bad tag: %v", protowire.ParseError(n))
			}
			b = b[n:]
			var v uint64
			var sub []byte
			switch typ {
			case protowire.VarintType:
				v, n = protowire.ConsumeVarint(b)
			case protowire.BytesType:
				sub, n = protowire.ConsumeBytes(b)
			case protowire.Fixed64Type:
				v, n = protowire.ConsumeFixed64(b)
			default:
				t.Fatalf("unexpected wire type %d", typ)
			}
			if n < 0 {
				t.Fatalf("bad field %d: %v", num, protowire.ParseError(n))
			}
			b = b[n:]
			fn(num, typ, v, sub)
		}
	}
	fields(data, func(num protowire.Number, _ protowire.Type, _ uint64, pkt []byte) {
		if num != fTracePacket {
			t.Fatalf("top-level field %d, want 1 (Trace.packet)", num)
		}
		var ev []byte
		fields(pkt, func(num protowire.Number, _ protowire.Type, _ uint64, sub []byte) {
			switch num {
			case pInternedData:
				fields(sub, func(num protowire.Number, _ protowire.Type, _ uint64, sub []byte) {
					if num == idEventNames {
						var iid uint64
						var name string
						fields(sub, func(num protowire.Number, _ protowire.Type, v uint64, s []byte) {
							if num == 1 {
								iid = v
							} else if num == 2 {
								name = string(s)
							}
						})
						d.names[iid] = name
					}
				})
			case pTrackDescriptor:
				var uuid, tid uint64
				thread := false
				fields(sub, func(num protowire.Number, _ protowire.Type, v uint64, s []byte) {
					switch num {
					case tdUUID:
						uuid = v
					case tdThread:
						thread = true
						fields(s, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) {
							if num == thTID {
								tid = v
							}
						})
					}
				})
				if thread {
					d.threadTrack[uuid] = tid
				}
			case pTrackEvent:
				ev = sub
			}
		})
		if ev == nil {
			return
		}
		var typ, track, name uint64
		fields(ev, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) {
			switch num {
			case eType:
				typ = v
			case eTrackUUID:
				track = v
			case eNameIID:
				name = v
			}
		})
		if name != 0 {
			if _, ok := d.names[name]; !ok {
				t.Fatalf("event name iid %d used before it was interned", name)
			}
		}
		switch typ {
		case trackEventTypeBeg:
			d.begins[track]++
		case trackEventTypeEnd:
			d.ends[track]++
		case trackEventTypeCntr:
			d.counters++
		case trackEventTypeInst:
			if d.names[name] == "message" {
				d.logs++
			} else {
				d.instants++
			}
		}
	})
	return d
}

func export(t *testing.T, tr *model.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Export(&buf, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkCounts compares the slices per thread track with the trace's zones.
func checkCounts(t *testing.T, tr *model.Trace, begins, ends map[uint64]int, threadTrack map[uint64]uint64) {
	t.Helper()
	perTid := map[uint64][2]int{}
	for uuid, tid := range threadTrack {
		perTid[tid] = [2]int{begins[uuid], ends[uuid]}
	}
	for i := range tr.Threads {
		th := &tr.Threads[i]
		ended := 0
		for _, z := range th.Zones.All() {
			if z.End() >= 0 {
				ended++
			}
		}
		if got := perTid[th.ID]; got != [2]int{th.Zones.Len(), ended} {
			t.Errorf("thread %d: %d begins, %d ends; the trace has %d zones, %d ended", th.ID, got[0], got[1], th.Zones.Len(), ended)
		}
	}
}

func TestDecodeBuilt(t *testing.T) {
	tr := builtTrace()
	d := decode(t, export(t, tr))
	checkCounts(t, tr, d.begins, d.ends, d.threadTrack)
	if d.counters != 1 || d.logs != 3 || d.instants != 1 {
		t.Errorf("counters %d, logs %d, frame instants %d; want 1, 3, 1", d.counters, d.logs, d.instants)
	}
}

// TestProtocDecode decodes the output with protoc against (trimmed copies
// of) Perfetto's own .proto files: every field must be known to the schema,
// and the slice counts per thread must equal the zone counts.
func TestProtocDecode(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		t.Skip("protoc not installed (Debian package protobuf-compiler); skipping the schema decode test")
	}
	cases := map[string]*model.Trace{"built": builtTrace()}
	if fixtures.Dir() != "" {
		tr, err := tracefile.ReadFile(fixtures.Path(t, "demo.tracy"))
		if err != nil {
			t.Fatal(err)
		}
		cases["demo"] = tr
	}
	for name, tr := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(protoc, "-Itestdata", "--decode=perfetto.protos.Trace", "protos/perfetto/trace/trace.proto")
			cmd.Stdin = bytes.NewReader(export(t, tr))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				var ee *exec.ExitError
				errors.As(err, &ee)
				t.Fatalf("protoc --decode: %v: %s", err, stderr.Bytes())
			}
			begins, ends, tracks, err := parseText(out)
			if err != nil {
				t.Fatal(err)
			}
			checkCounts(t, tr, begins, ends, tracks)
		})
	}
}

// parseText reads protoc's text output: it fails on any unknown (numbered)
// field and counts slice begins and ends per track.
func parseText(out []byte) (begins, ends map[uint64]int, threadTrack map[uint64]uint64, err error) {
	begins, ends, threadTrack = map[uint64]int{}, map[uint64]int{}, map[uint64]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	var path []string
	var typ string
	var track, uuid, tid uint64
	hasThread := false
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		if l[0] >= '0' && l[0] <= '9' {
			return nil, nil, nil, fmt.Errorf("field unknown to Perfetto's schema: %q", l)
		}
		if strings.HasSuffix(l, "{") {
			path = append(path, strings.TrimSpace(strings.TrimSuffix(l, "{")))
			continue
		}
		if l == "}" {
			top := path[len(path)-1]
			path = path[:len(path)-1]
			switch top {
			case "track_event":
				if typ == "TYPE_SLICE_BEGIN" {
					begins[track]++
				} else if typ == "TYPE_SLICE_END" {
					ends[track]++
				}
				typ, track = "", 0
			case "track_descriptor":
				if hasThread {
					threadTrack[uuid] = tid
				}
				uuid, tid, hasThread = 0, 0, false
			case "thread":
				hasThread = true
			}
			continue
		}
		k, v, _ := strings.Cut(l, ": ")
		cur := ""
		if len(path) > 0 {
			cur = path[len(path)-1]
		}
		switch {
		case cur == "track_event" && k == "type":
			typ = v
		case cur == "track_event" && k == "track_uuid":
			track, _ = strconv.ParseUint(v, 10, 64)
		case cur == "track_descriptor" && k == "uuid":
			uuid, _ = strconv.ParseUint(v, 10, 64)
		case cur == "thread" && k == "tid":
			tid, _ = strconv.ParseUint(v, 10, 64)
		}
	}
	return begins, ends, threadTrack, sc.Err()
}

func TestDecodeFixture(t *testing.T) {
	tr, err := tracefile.ReadFile(fixtures.Path(t, "demo.tracy"))
	if err != nil {
		t.Fatal(err)
	}
	d := decode(t, export(t, tr))
	checkCounts(t, tr, d.begins, d.ends, d.threadTrack)
	if d.logs != len(tr.Messages) {
		t.Errorf("%d log messages, the trace has %d", d.logs, len(tr.Messages))
	}
}

func TestFilter(t *testing.T) {
	tr := builtTrace()
	var buf bytes.Buffer
	if err := Export(&buf, tr, Options{Filter: "C"}); err != nil {
		t.Fatal(err)
	}
	d := decode(t, buf.Bytes())
	total, ends := 0, 0
	for _, n := range d.begins {
		total += n
	}
	for _, n := range d.ends {
		ends += n
	}
	// Zone "c" (the function name; no srcloc name) passes "C" case-insensitively:
	// 2+3+4 of them, all ended.
	if total != 9 || ends != 9 {
		t.Errorf("%d begins, %d ends after the filter, want 9 and 9", total, ends)
	}
}

// message() reserves one length byte and moves the body when the length
// needs more: check every length class.
func TestMessageLengths(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 16383, 16384, 3 << 20} {
		body := bytes.Repeat([]byte{0xab}, n)
		b := message([]byte{0x99}, 7, func(b []byte) []byte { return append(b, body...) })
		if b[0] != 0x99 {
			t.Fatalf("n=%d: prefix overwritten", n)
		}
		num, typ, k := protowire.ConsumeTag(b[1:])
		if num != 7 || typ != protowire.BytesType {
			t.Fatalf("n=%d: tag %d/%d", n, num, typ)
		}
		got, m := protowire.ConsumeBytes(b[1+k:])
		if m < 0 || !bytes.Equal(got, body) || 1+k+m != len(b) {
			t.Fatalf("n=%d: body does not decode back", n)
		}
	}
}
