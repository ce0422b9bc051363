package protocol

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
)

// specDoc finds the byte-level protocol description kept with the fixtures.
func specDoc(t *testing.T) string {
	t.Helper()
	d := fixtures.Dir()
	if d == "" {
		t.Skip("shared directory not found; skipping check against the spec document")
	}
	p := filepath.Join(filepath.Dir(d), "spec", "tracy-protocol.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("spec document not readable: %v", err)
	}
	return string(b)
}

var specRow = regexp.MustCompile(`(?m)^\| (\d+) \| 0x[0-9A-F]{2} \| (\w+) \| ([^|]+) \| (.*?) \| (\S+) \| (\S+) \| .*\|$`)
var specField = regexp.MustCompile(`@(\d+) (u8\[6\]|\w+) (\w+)`)

// TestSpecTable checks every entry of Specs (name, size, fields, time kind,
// context) against the queue-type table of that description, where present.
func TestSpecTable(t *testing.T) {
	doc := specDoc(t)
	rows := specRow.FindAllStringSubmatch(doc, -1)
	if len(rows) != NumQueueTypes {
		t.Fatalf("spec table has %d rows, want %d", len(rows), NumQueueTypes)
	}
	kinds := map[string]FieldKind{"u8": KindU8, "u16": KindU16, "u32": KindU32, "u64": KindU64, "i8": KindI8,
		"i32": KindI32, "i64": KindI64, "f32": KindF32, "f64": KindF64, "u8[6]": KindU48}
	ctxs := map[string]Ctx{"—": CtxNone, "Y": CtxThread, "Y¹": CtxThreadRef}
	for _, r := range rows {
		v, _ := strconv.Atoi(r[1])
		s := &Specs[v]
		if int(s.Type) != v || s.Name != r[2] || QueueType(v).String() != r[2] {
			t.Errorf("%d: name %q/%v, spec says %q", v, s.Name, QueueType(v), r[2])
		}
		size := strings.TrimSpace(r[3])
		switch s.Len {
		case LenFixed:
			if strconv.Itoa(s.Size) != size {
				t.Errorf("%v: size %d, spec says %s", s.Name, s.Size, size)
			}
		case LenKey16:
			if size != "9+2+len" || s.Size != 11 {
				t.Errorf("%v: header %d, spec says %s", s.Name, s.Size, size)
			}
		case LenKey32:
			if size != "9+4+len" || s.Size != 13 {
				t.Errorf("%v: header %d, spec says %s", s.Name, s.Size, size)
			}
		case LenString8:
			if size != "2+len" || s.Size != 2 {
				t.Errorf("%v: header %d, spec says %s", s.Name, s.Size, size)
			}
		case LenString16:
			if size != "3+len" || s.Size != 3 {
				t.Errorf("%v: header %d, spec says %s", s.Name, s.Size, size)
			}
		}
		if s.Time.String() != r[5] {
			t.Errorf("%v: time %v, spec says %s", s.Name, s.Time, r[5])
		}
		if s.Ctx != ctxs[r[6]] {
			t.Errorf("%v: ctx %v, spec says %s", s.Name, s.Ctx, r[6])
		}
		var want []Field
		for _, f := range specField.FindAllStringSubmatch(r[4], -1) {
			off, _ := strconv.Atoi(f[1])
			k, ok := kinds[f[2]]
			if !ok {
				continue // bytes[len]
			}
			want = append(want, Field{uint8(off), k, f[3]})
		}
		if s.Len == LenString16 {
			want = []Field{{1, KindU16, "lenMinus256"}}
		}
		if len(want) != len(s.Fields) {
			t.Errorf("%v: fields %v, spec says %v", s.Name, s.Fields, want)
			continue
		}
		end := 1
		for i := range want {
			if want[i] != s.Fields[i] {
				t.Errorf("%v: field %d = %v, spec says %v", s.Name, i, s.Fields[i], want[i])
			}
			if int(s.Fields[i].Off) != end {
				t.Errorf("%v: field %s at %d, previous field ends at %d", s.Name, s.Fields[i].Name, s.Fields[i].Off, end)
			}
			end = int(s.Fields[i].Off) + s.Fields[i].Kind.Size()
		}
		if end != s.Size {
			t.Errorf("%v: fields end at %d, size %d", s.Name, end, s.Size)
		}
		if s.OnWire != (v < 65 || v > 67) {
			t.Errorf("%v: OnWire %v", s.Name, s.OnWire)
		}
	}
}

// TestQueueTypeNames pins the enum numbering that is easy to get wrong.
func TestQueueTypeNames(t *testing.T) {
	for _, c := range []struct {
		t    QueueType
		v    int
		name string
	}{{ZoneBegin, 19, "ZoneBegin"}, {ZoneBegin32, 20, "ZoneBegin32"}, {ZoneEnd16, 27, "ZoneEnd16"},
		{Terminate, 73, "Terminate"}, {ThreadContext, 75, "ThreadContext"}, {SourceLocation, 87, "SourceLocation"},
		{StringData, 119, "StringData"}, {FiberName, 131, "FiberName"}} {
		if int(c.t) != c.v || c.t.String() != c.name {
			t.Errorf("%v = %d, want %s = %d", c.t, int(c.t), c.name, c.v)
		}
		if got, ok := ParseQueueType(c.name); !ok || got != c.t {
			t.Errorf("ParseQueueType(%q) = %v, %v", c.name, got, ok)
		}
	}
	if s := QueueType(200).String(); s != "QueueType(200)" {
		t.Errorf("unknown type prints %q", s)
	}
}

// TestTimeFields pins which field each time kind applies to where an item
// has several time-like fields.
func TestTimeFields(t *testing.T) {
	for typ, want := range map[QueueType]string{GpuCalibration: "cpuTime", GpuTimeSync: "cpuTime",
		GpuNewContext: "cpuTime", GpuTime: "gpuTime", GpuZoneBegin: "cpuTime", ZoneBegin16: "time",
		CallstackSample32: "time", HwSampleCpuCycle: "time", MemAlloc: "time"} {
		sp := typ.Spec()
		if i := sp.TimeField(); i < 0 || sp.Fields[i].Name != want {
			t.Errorf("%v: time field %d", typ, i)
		}
	}
	for i := range Specs {
		if (Specs[i].Time == TimeNone) != (Specs[i].TimeField() < 0) {
			t.Errorf("%v: time kind %v but field %d", Specs[i].Name, Specs[i].Time, Specs[i].TimeField())
		}
	}
	it := Item{Type: GpuCalibration, Raw: AppendGpuCalibration(nil, 111, 222, 333, 1)}
	var refs TimeRefs
	if tm, ok := refs.Time(it); !ok || tm != 222 {
		t.Errorf("GpuCalibration time %d", tm)
	}
	if _, ok := (Item{Type: CpuTopology, Raw: AppendCpuTopology(nil, 0, 0, 1, 1)}).Thread(); ok {
		t.Error("CpuTopology reports a thread")
	}
	if th, ok := (Item{Type: LockSharedRelease, Raw: AppendLockSharedRelease(nil, 1, 2, 77)}).Thread(); !ok || th != 77 {
		t.Errorf("LockSharedRelease thread %d", th)
	}
}
