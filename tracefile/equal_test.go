package tracefile

import (
	"fmt"
	"math"
	"reflect"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
)

// diffTraces returns "" if a and b hold the same data, else the path of the
// first difference. Empty and nil slices and maps are equal, and NaN equals
// NaN: neither distinction exists in a file.
func diffTraces(a, b *model.Trace) string {
	return diffValue("Trace", reflect.ValueOf(*a), reflect.ValueOf(*b))
}

func diffValue(path string, a, b reflect.Value) string {
	switch a.Kind() {
	case reflect.Struct:
		if a.Type() == reflect.TypeFor[model.Zone]() {
			za, zb := a.Interface().(model.Zone), b.Interface().(model.Zone)
			if za != zb {
				return fmt.Sprintf("%s: zone {%d %d %d %d %d} != {%d %d %d %d %d}", path,
					za.Start(), za.End(), za.SrcLoc, za.Extra(), za.Next(), zb.Start(), zb.End(), zb.SrcLoc, zb.Extra(), zb.Next())
			}
			return ""
		}
		if a.Type() == reflect.TypeFor[model.FrameImage]() {
			// Compared by content: packing is storage, not data (a
			// capture keeps images packed, a loaded file unpacked).
			ia, ib := a.Interface().(model.FrameImage), b.Interface().(model.FrameImage)
			if ia.W != ib.W || ia.H != ib.H || ia.Flip != ib.Flip {
				return fmt.Sprintf("%s: %dx%d flip %v != %dx%d flip %v", path, ia.W, ia.H, ia.Flip, ib.W, ib.H, ib.Flip)
			}
			da, erra := texture.ImageData(nil, ia.Data, int(ia.W), int(ia.H), ia.Packed)
			db, errb := texture.ImageData(nil, ib.Data, int(ib.W), int(ib.H), ib.Packed)
			if erra != nil || errb != nil {
				if erra == nil || errb == nil || string(ia.Data) != string(ib.Data) {
					return fmt.Sprintf("%s: unreadable image: %v / %v", path, erra, errb)
				}
				return ""
			}
			if string(da) != string(db) {
				return path + ": image bytes differ"
			}
			return ""
		}
		if a.Type() == reflect.TypeFor[model.ZoneList]() {
			// Compared by content: the chunking is storage, not data.
			la, lb := a.Interface().(model.ZoneList), b.Interface().(model.ZoneList)
			if la.Len() != lb.Len() {
				return fmt.Sprintf("%s: length %d != %d", path, la.Len(), lb.Len())
			}
			for i := range la.Len() {
				if *la.At(i) != *lb.At(i) {
					return diffValue(fmt.Sprintf("%s[%d]", path, i), reflect.ValueOf(*la.At(i)), reflect.ValueOf(*lb.At(i)))
				}
			}
			return ""
		}
		for i := range a.NumField() {
			if d := diffValue(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d != %d", path, a.Len(), b.Len())
		}
		if a.Kind() == reflect.Slice && a.Type().Elem().Kind() == reflect.Uint8 {
			if string(a.Bytes()) != string(b.Bytes()) {
				return path + ": bytes differ"
			}
			return ""
		}
		for i := range a.Len() {
			if d := diffValue(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: %d entries != %d", path, a.Len(), b.Len())
		}
		it := a.MapRange()
		for it.Next() {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]: missing", path, it.Key())
			}
			if d := diffValue(fmt.Sprintf("%s[%v]", path, it.Key()), it.Value(), bv); d != "" {
				return d
			}
		}
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			return fmt.Sprintf("%s: %v != %v", path, x, y)
		}
	default:
		if !a.Equal(b) {
			return fmt.Sprintf("%s: %v != %v", path, a, b)
		}
	}
	return ""
}
