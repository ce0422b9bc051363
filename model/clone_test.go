package model

import (
	"reflect"
	"strings"
	"testing"
)

// fill puts one element in every slice, map and array of v, recursively,
// so the clone test sees every field of Trace, also ones added later.
func fill(v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(k, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("s")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	}
}

// shared lists the paths Clone documents as shared.
var sharedOK = []string{".Data", ".Code", ".Zones.chunks", ".Zones.last"}

// noAlias fails for every slice or map of b that uses a's memory.
func noAlias(t *testing.T, path string, a, b reflect.Value) {
	switch a.Kind() {
	case reflect.Struct:
		if a.Type() == reflect.TypeOf(ZoneList{}) {
			return // shared on purpose, see Clone
		}
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				noAlias(t, path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			noAlias(t, path, a.Index(i), b.Index(i))
		}
	case reflect.Slice:
		if a.Len() == 0 {
			return
		}
		if a.Pointer() == b.Pointer() {
			for _, ok := range sharedOK {
				if strings.HasSuffix(path, ok) {
					return
				}
			}
			t.Errorf("%s: the clone shares the original's memory", path)
			return
		}
		for i := range a.Len() {
			noAlias(t, path, a.Index(i), b.Index(i))
		}
	case reflect.Map:
		if a.Len() > 0 && a.UnsafePointer() == b.UnsafePointer() {
			t.Errorf("%s: the clone shares the original's map", path)
		}
		for _, k := range a.MapKeys() {
			noAlias(t, path+"[]", a.MapIndex(k), b.MapIndex(k))
		}
	}
}

func TestCloneSharesNothingMutable(t *testing.T) {
	tr := New()
	fill(reflect.ValueOf(tr).Elem(), 0)
	tr.Threads[0].Zones = ZonesOf(MakeZone(1, 2, 1, 0, 1))
	c := tr.Clone()
	if !reflect.DeepEqual(tr, c) {
		t.Fatal("the clone differs from the original")
	}
	noAlias(t, "Trace", reflect.ValueOf(tr).Elem(), reflect.ValueOf(c).Elem())
	// A change to the original is not seen through the clone.
	tr.FrameSets[0].Frames[0].End = 99
	tr.MemPools[0].Events[0].TimeFree = 99
	tr.PtrStrings[123] = 5
	if c.FrameSets[0].Frames[0].End == 99 || c.MemPools[0].Events[0].TimeFree == 99 || c.PtrStrings[123] == 5 {
		t.Fatal("a change to the original shows through the clone")
	}
}

func TestZoneListShare(t *testing.T) {
	var l ZoneList
	n := 2*ZoneChunkLen + 1000
	for i := range n {
		l.Append(MakeZone(int64(i), -1, 1, 0, uint32(i+1)))
	}
	s := l.Share(0)
	if s.Len() != n {
		t.Fatalf("shared list has %d zones, want %d", s.Len(), n)
	}
	for _, i := range []int{0, ZoneChunkLen - 1, ZoneChunkLen, 2 * ZoneChunkLen, n - 1} {
		if s.At(i).Start() != int64(i) {
			t.Fatalf("zone %d starts at %d", i, s.At(i).Start())
		}
	}
	if &s.chunks[1][0] != &l.chunks[1][0] {
		t.Error("a full chunk nobody changes was copied")
	}
	if &s.chunks[0][0] == &l.chunks[0][0] {
		t.Error("the private chunk 0 was not copied")
	}
	if &s.chunks[2][0] != &l.chunks[2][0] {
		t.Error("the partly filled last chunk, without private zones, was copied")
	}
	if p := l.Share(2); &p.chunks[2][0] == &l.chunks[2][0] {
		t.Error("the private last chunk was not copied")
	}
	// The owner changes a private zone and keeps appending: the reader's
	// list does not change.
	l.At(5).SetEnd(77)
	for range ZoneChunkLen {
		l.Append(MakeZone(1, 2, 1, 0, 0))
	}
	if s.At(5).End() != -1 || s.Len() != n || s.At(n-1).Start() != int64(n-1) {
		t.Error("a change of the owner shows through the shared list")
	}
	var all int
	for _, c := range s.Chunks() {
		all += len(c)
	}
	if all != n {
		t.Errorf("Chunks of the shared list hold %d zones, want %d", all, n)
	}
	// A small list whose last chunk the owner reallocates as it grows.
	var small ZoneList
	for i := range 100 {
		small.Append(MakeZone(int64(i), int64(i), 1, 0, uint32(i+1)))
	}
	ss := small.Share()
	for i := range 1000 {
		small.Append(MakeZone(int64(1000+i), 0, 1, 0, 0))
	}
	if ss.Len() != 100 || ss.At(99).Start() != 99 || small.At(99).Start() != 99 {
		t.Error("growing the owner's last chunk changed the shared list")
	}
	var empty ZoneList
	if e := empty.Share(); e.Len() != 0 {
		t.Error("sharing an empty list gave zones")
	}
	// A list that ends on a chunk boundary.
	var full ZoneList
	for range ZoneChunkLen {
		full.Append(MakeZone(1, 2, 1, 0, 0))
	}
	fs := full.Share()
	if fs.Len() != ZoneChunkLen || &fs.chunks[0][0] != &full.chunks[0][0] {
		t.Error("a full last chunk was copied or cut")
	}
}
