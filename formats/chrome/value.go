package chrome

import (
	"slices"
	"strconv"
	"strings"
)

// jval is a parsed JSON value, used only for the rare nested values inside
// "args", which Tracy writes into the zone text in its JSON library's
// compact form.
type jval struct {
	k   kind
	s   string
	n   number
	arr []jval
	obj []member
}

type member struct {
	key string
	v   jval
}

func (s *scanner) value(depth int) (jval, error) {
	if depth > maxDepth {
		return jval{}, s.errf(s.offset(), "values nested deeper than %d levels", maxDepth)
	}
	k, err := s.valueKind()
	if err != nil {
		return jval{}, err
	}
	v := jval{k: k}
	switch k {
	case kString:
		b, err := s.string(nil)
		v.s = string(b)
		return v, err
	case kNumber:
		v.n, _, err = s.number(nil)
		return v, err
	case kTrue, kFalse, kNull:
		_, err = s.literal()
		return v, err
	}
	s.pos++
	closer := byte(']')
	if k == kObject {
		closer = '}'
	}
	if c, ok := s.peek(); ok && c == closer {
		s.pos++
		return v, nil
	}
	for {
		var key []byte
		if k == kObject {
			if err := s.key(&key); err != nil {
				return v, err
			}
		}
		e, err := s.value(depth + 1)
		if err != nil {
			return v, err
		}
		if k == kObject {
			v.obj = append(v.obj, member{string(key), e})
		} else {
			v.arr = append(v.arr, e)
		}
		c, ok := s.peek()
		if !ok {
			return v, s.eofErr("',' or the end of an array or object")
		}
		s.pos++
		if c == closer {
			break
		}
		if c != ',' {
			return v, s.errf(s.offset()-1, "expected ',' or %q, found %s", closer, describe(c))
		}
	}
	if k == kObject {
		v.obj = sortMembers(v.obj)
	}
	return v, nil
}

// sortMembers orders object members by key, the last of duplicate keys
// winning: Tracy's JSON library stores objects in a sorted map.
func sortMembers(m []member) []member {
	slices.SortStableFunc(m, func(a, b member) int { return strings.Compare(a.key, b.key) })
	out := m[:0]
	for i := range m {
		if len(out) > 0 && out[len(out)-1].key == m[i].key {
			out[len(out)-1] = m[i]
			continue
		}
		out = append(out, m[i])
	}
	return out
}

// dump appends v in the compact form of Tracy's JSON library
// (nlohmann::json::dump()): no spaces, sorted keys, integers as written,
// doubles in shortest round-trip form with ".0" on integral values.
func dump(b []byte, v *jval) []byte {
	switch v.k {
	case kNull:
		return append(b, "null"...)
	case kTrue:
		return append(b, "true"...)
	case kFalse:
		return append(b, "false"...)
	case kNumber:
		return appendNumber(b, v.n)
	case kString:
		return appendDumpString(b, v.s)
	case kArray:
		b = append(b, '[')
		for i := range v.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = dump(b, &v.arr[i])
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i := range v.obj {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendDumpString(b, v.obj[i].key)
		b = append(b, ':')
		b = dump(b, &v.obj[i].v)
	}
	return append(b, '}')
}

func appendNumber(b []byte, n number) []byte {
	if n.isInt {
		if n.neg && n.u != 0 {
			b = append(b, '-')
		}
		return strconv.AppendUint(b, n.u, 10)
	}
	return appendLibDouble(b, n.f)
}

// appendLibDouble formats like nlohmann's to_chars: shortest digits, fixed
// notation for decimal exponents -4 < n <= 15, otherwise d.ddde+XX with at
// least two exponent digits.
func appendLibDouble(b []byte, f float64) []byte {
	if f == 0 {
		if 1/f < 0 {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k := len(digits)
	n := x + 1 // value = 0.digits * 10^n
	switch {
	case k <= n && n <= 15:
		b = append(b, digits...)
		for range n - k {
			b = append(b, '0')
		}
		return append(b, ".0"...)
	case 0 < n && n <= 15:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		return append(b, digits[n:]...)
	case -4 < n && n <= 0:
		b = append(b, "0."...)
		for range -n {
			b = append(b, '0')
		}
		return append(b, digits...)
	}
	b = append(b, digits[0])
	if k > 1 {
		b = append(b, '.')
		b = append(b, digits[1:]...)
	}
	b = append(b, 'e')
	ex := n - 1
	if ex < 0 {
		b = append(b, '-')
		ex = -ex
	} else {
		b = append(b, '+')
	}
	if ex < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(ex), 10)
}

// appendDumpString escapes as nlohmann's dump: \" \\ \b \f \n \r \t, other
// control characters as \u00xx, everything else as is.
func appendDumpString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}
