package protocol

import (
	"strconv"
)

// hexFields are the key- and address-like fields the text form prints in hex.
var hexFields = map[string]bool{"ptr": true, "srcloc": true, "lckloc": true, "name": true, "function": true,
	"file": true, "text": true, "fiber": true, "symAddr": true, "ip": true, "textAndMetadata": true}

// textPayload are the variable items whose data is text, printed quoted.
var textPayload = [NumQueueTypes]bool{SingleStringData: true, SecondStringData: true, SingleStringData8: true,
	SecondStringData8: true, StringData: true, ThreadName: true, PlotName: true, FrameName: true,
	ExternalName: true, ExternalThreadName: true, FiberName: true, SourceCode: true}

// AppendText appends the item's stable one-line text form: Tracy's type name
// followed by name=value for every field, in table order (keys and
// addresses in hex, other integers in decimal, floats in Go's shortest
// form), then the payload: text quoted, callstacks as their addresses,
// allocated source locations by part, other binary data as its length.
// Lengths implied by the payload are not repeated. This is the form of
// `gotracy dump --items`; tests compare it against golden files, so change
// it only deliberately.
func (it Item) AppendText(dst []byte) []byte {
	dst = append(dst, it.Type.String()...)
	if it.Type >= NumQueueTypes {
		return dst
	}
	sp := &Specs[it.Type]
	for _, f := range sp.Fields {
		if sp.Variable() && f.Name != "ptr" {
			continue // length fields
		}
		dst = append(dst, ' ')
		dst = append(dst, f.Name...)
		dst = append(dst, '=')
		switch f.Kind {
		case KindF32, KindF64:
			bits := 64
			if f.Kind == KindF32 {
				bits = 32
			}
			dst = strconv.AppendFloat(dst, it.Float(f), 'g', -1, bits)
		case KindI8, KindI32, KindI64:
			dst = strconv.AppendInt(dst, int64(it.Field(f)), 10)
		default:
			if hexFields[f.Name] {
				dst = append(dst, "0x"...)
				dst = strconv.AppendUint(dst, it.Field(f), 16)
			} else {
				dst = strconv.AppendUint(dst, it.Field(f), 10)
			}
		}
	}
	if !sp.Variable() {
		return dst
	}
	p := it.Payload()
	switch {
	case textPayload[it.Type]:
		dst = append(dst, " data="...)
		dst = strconv.AppendQuote(dst, string(p))
	case it.Type == CallstackPayload:
		dst = append(dst, " frames=["...)
		for i := 0; i+8 <= len(p); i += 8 {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = append(dst, "0x"...)
			dst = strconv.AppendUint(dst, le.Uint64(p[i:]), 16)
		}
		dst = append(dst, ']')
		if len(p)%8 != 0 {
			dst = append(dst, " trailing="...)
			dst = strconv.AppendInt(dst, int64(len(p)%8), 10)
		}
	case it.Type == SourceLocationPayload:
		loc, err := ParseSourceLocationPayload(p)
		if err != nil {
			dst = append(dst, " bad="...)
			dst = strconv.AppendQuote(dst, string(p))
			break
		}
		dst = append(dst, " color=0x"...)
		dst = strconv.AppendUint(dst, uint64(loc.Color), 16)
		dst = append(dst, " line="...)
		dst = strconv.AppendUint(dst, uint64(loc.Line), 10)
		dst = append(dst, " function="...)
		dst = strconv.AppendQuote(dst, loc.Function)
		dst = append(dst, " file="...)
		dst = strconv.AppendQuote(dst, loc.File)
		dst = append(dst, " srcname="...)
		dst = strconv.AppendQuote(dst, loc.Name)
	default:
		dst = append(dst, " len="...)
		dst = strconv.AppendInt(dst, int64(len(p)), 10)
	}
	return dst
}

// String is the item's text form (see AppendText).
func (it Item) String() string { return string(it.AppendText(nil)) }
