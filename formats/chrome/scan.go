package chrome

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax is wrapped by every error about malformed input.
var ErrSyntax = errors.New("malformed Chrome trace JSON")

// SyntaxError reports malformed input at a byte offset of the (decompressed)
// JSON text.
type SyntaxError struct {
	Offset int64
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("chrome JSON at byte %d: %s", e.Offset, e.Msg)
}

func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// maxDepth bounds the nesting of arrays and objects inside "args". Tracy's
// parser recurses without a bound (and so can overflow its stack); a bound
// turns a hostile file into an error instead.
const maxDepth = 1000

// scanner is a pull tokenizer over a reader. It keeps only a fixed window of
// the input, so a 1 GB file never becomes a 1 GB string.
type scanner struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	base int64 // input offset of buf[0]
	eof  bool
	rerr error
}

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, 256<<10)}
}

func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

func (s *scanner) errf(off int64, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// fill makes at least one unread byte available; false at end of input.
func (s *scanner) fill() bool {
	if s.pos < s.end {
		return true
	}
	if s.eof {
		return false
	}
	s.base += int64(s.end)
	s.pos, s.end = 0, 0
	for s.end == 0 {
		n, err := s.r.Read(s.buf)
		s.end = n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
			break
		}
	}
	return s.end > 0
}

// peek returns the next non-space byte without consuming it.
func (s *scanner) peek() (byte, bool) {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
				return c, true
			}
			s.pos++
		}
		if !s.fill() {
			return 0, false
		}
	}
}

func (s *scanner) eofErr(what string) error {
	if s.rerr != nil {
		return fmt.Errorf("reading Chrome trace JSON at byte %d: %w", s.offset(), s.rerr)
	}
	return s.errf(s.offset(), "input ends where %s was expected", what)
}

// expect consumes the next non-space byte, which must be c.
func (s *scanner) expect(c byte, what string) error {
	got, ok := s.peek()
	if !ok {
		return s.eofErr(what)
	}
	if got != c {
		return s.errf(s.offset(), "expected %s, found %s", what, describe(got))
	}
	s.pos++
	return nil
}

func describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// string reads a JSON string (the opening quote is next) and appends its
// decoded bytes to dst.
func (s *scanner) string(dst []byte) ([]byte, error) {
	if err := s.expect('"', "a string"); err != nil {
		return dst, err
	}
	for {
		// Fast path: copy a run of plain bytes.
		i := s.pos
		for i < s.end {
			c := s.buf[i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			i++
		}
		dst = append(dst, s.buf[s.pos:i]...)
		s.pos = i
		if s.pos == s.end {
			if !s.fill() {
				return dst, s.eofErr("the end of a string")
			}
			continue
		}
		c := s.buf[s.pos]
		switch {
		case c == '"':
			s.pos++
			if !utf8.Valid(dst) {
				// Check only the rare strings with non-ASCII bytes closely.
				return dst, s.errf(s.offset()-1, "string is not valid UTF-8")
			}
			return dst, nil
		case c < 0x20:
			return dst, s.errf(s.offset(), "control character 0x%02x inside a string (JSON needs it escaped)", c)
		}
		// Escape.
		off := s.offset()
		s.pos++
		if !s.fill() {
			return dst, s.eofErr("an escape sequence")
		}
		e := s.buf[s.pos]
		s.pos++
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, err := s.hex4(off)
			if err != nil {
				return dst, err
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 {
					return dst, s.errf(off, "\\u%04X is a lone low surrogate", r)
				}
				if !s.fill() || s.buf[s.pos] != '\\' {
					return dst, s.errf(off, "\\u%04X (a high surrogate) is not followed by a low surrogate", r)
				}
				s.pos++
				if !s.fill() || s.buf[s.pos] != 'u' {
					return dst, s.errf(off, "\\u%04X (a high surrogate) is not followed by a low surrogate", r)
				}
				s.pos++
				r2, err := s.hex4(off)
				if err != nil {
					return dst, err
				}
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return dst, s.errf(off, "\\u%04X (a high surrogate) is followed by \\u%04X, not a low surrogate", r, r2)
				}
				r = utf16.DecodeRune(r, r2)
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, s.errf(off, "invalid escape \\%s in a string", string(rune(e)))
		}
	}
}

func (s *scanner) hex4(off int64) (rune, error) {
	var r rune
	for range 4 {
		if !s.fill() {
			return 0, s.eofErr("four hex digits")
		}
		c := s.buf[s.pos]
		s.pos++
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, s.errf(off, "\\u escape needs four hex digits, found %s", describe(c))
		}
	}
	return r, nil
}

// number is a JSON number as parsed: integral literals that fit 64 bits
// keep their exact value (as Tracy's parser does), everything else is a
// double.
type number struct {
	isInt bool
	neg   bool
	u     uint64 // magnitude when isInt
	f     float64
}

func (n number) float() float64 {
	if n.isInt {
		if n.neg {
			return -float64(n.u)
		}
		return float64(n.u)
	}
	return n.f
}

// number reads a JSON number; scratch is reused for its text.
func (s *scanner) number(scratch []byte) (number, []byte, error) {
	off := s.offset()
	txt := scratch[:0]
	for {
		if s.pos == s.end && !s.fill() {
			break
		}
		c := s.buf[s.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			txt = append(txt, c)
			s.pos++
			if len(txt) > 1024 {
				return number{}, txt, s.errf(off, "number longer than 1024 characters")
			}
			continue
		}
		break
	}
	n, ok := parseNumber(txt)
	if !ok {
		return n, txt, s.errf(off, "invalid number %q", txt)
	}
	return n, txt, nil
}

// parseNumber checks txt against JSON's number grammar and converts it.
func parseNumber(txt []byte) (number, bool) {
	i := 0
	var n number
	if i < len(txt) && txt[i] == '-' {
		n.neg = true
		i++
	}
	if i >= len(txt) {
		return n, false
	}
	intStart := i
	if txt[i] == '0' {
		i++
	} else if txt[i] >= '1' && txt[i] <= '9' {
		for i < len(txt) && txt[i] >= '0' && txt[i] <= '9' {
			i++
		}
	} else {
		return n, false
	}
	intEnd := i
	isInt := true
	if i < len(txt) && txt[i] == '.' {
		isInt = false
		i++
		d := i
		for i < len(txt) && txt[i] >= '0' && txt[i] <= '9' {
			i++
		}
		if i == d {
			return n, false
		}
	}
	if i < len(txt) && (txt[i] == 'e' || txt[i] == 'E') {
		isInt = false
		i++
		if i < len(txt) && (txt[i] == '+' || txt[i] == '-') {
			i++
		}
		d := i
		for i < len(txt) && txt[i] >= '0' && txt[i] <= '9' {
			i++
		}
		if i == d {
			return n, false
		}
	}
	if i != len(txt) {
		return n, false
	}
	if isInt {
		var u uint64
		over := false
		for _, c := range txt[intStart:intEnd] {
			d := uint64(c - '0')
			if u > (math.MaxUint64-d)/10 {
				over = true
				break
			}
			u = u*10 + d
		}
		if !over && (!n.neg || u <= 1<<63) {
			n.isInt, n.u = true, u
			return n, true
		}
	}
	f, err := strconv.ParseFloat(string(txt), 64)
	if err != nil { // out of range: Tracy's parser refuses it too
		return n, false
	}
	n.f = f
	return n, true
}

// literal consumes true, false or null.
func (s *scanner) literal() (kind, error) {
	off := s.offset()
	c, _ := s.peek()
	var want string
	var k kind
	switch c {
	case 't':
		want, k = "true", kTrue
	case 'f':
		want, k = "false", kFalse
	default:
		want, k = "null", kNull
	}
	for i := 0; i < len(want); i++ {
		if !s.fill() {
			return k, s.eofErr(want)
		}
		if s.buf[s.pos] != want[i] {
			return k, s.errf(off, "expected a JSON value, found %s", describe(s.buf[s.pos]))
		}
		s.pos++
	}
	return k, nil
}

type kind uint8

const (
	kAbsent kind = iota
	kNull
	kTrue
	kFalse
	kNumber
	kString
	kArray
	kObject
)

func (k kind) String() string {
	return [...]string{"nothing", "null", "true", "false", "a number", "a string", "an array", "an object"}[k]
}

// valueKind tells what the next value is without consuming it.
func (s *scanner) valueKind() (kind, error) {
	c, ok := s.peek()
	if !ok {
		return kAbsent, s.eofErr("a value")
	}
	switch {
	case c == '"':
		return kString, nil
	case c == '{':
		return kObject, nil
	case c == '[':
		return kArray, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return kNumber, nil
	case c == 't':
		return kTrue, nil
	case c == 'f':
		return kFalse, nil
	case c == 'n':
		return kNull, nil
	}
	return kAbsent, s.errf(s.offset(), "expected a JSON value, found %s", describe(c))
}

// skip consumes one value of any kind without keeping it; nesting is
// tracked on a byte stack, not the goroutine's.
func (s *scanner) skip() error {
	var stack []byte // '[' or '{' of each open container
	var scratch []byte
	for {
		k, err := s.valueKind()
		if err != nil {
			return err
		}
		switch k {
		case kString:
			err = s.skipString()
		case kNumber:
			_, scratch, err = s.number(scratch)
		case kTrue, kFalse, kNull:
			_, err = s.literal()
		case kArray, kObject:
			s.pos++
			open, closer := byte('['), byte(']')
			if k == kObject {
				open, closer = '{', '}'
			}
			c, ok := s.peek()
			if !ok {
				return s.eofErr("a value")
			}
			if c == closer {
				s.pos++
				break
			}
			stack = append(stack, open)
			if k == kObject {
				if err = s.key(&scratch); err != nil {
					return err
				}
			}
			continue
		}
		if err != nil {
			return err
		}
		// After a value: close containers, or step to the next element.
		for {
			if len(stack) == 0 {
				return nil
			}
			c, ok := s.peek()
			if !ok {
				return s.eofErr("',' or the end of an array or object")
			}
			top := stack[len(stack)-1]
			s.pos++
			if (top == '[' && c == ']') || (top == '{' && c == '}') {
				stack = stack[:len(stack)-1]
				continue
			}
			if c != ',' {
				return s.errf(s.offset()-1, "expected ',' or the end of an array or object, found %s", describe(c))
			}
			if top == '{' {
				if err = s.key(&scratch); err != nil {
					return err
				}
			}
			break
		}
	}
}

// skipString consumes a string without keeping it, so a skipped value of
// any size costs no memory. Its escapes are checked; its UTF-8 is not (it is
// never stored).
func (s *scanner) skipString() error {
	if err := s.expect('"', "a string"); err != nil {
		return err
	}
	for {
		i := s.pos
		for i < s.end {
			c := s.buf[i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			i++
		}
		s.pos = i
		if s.pos == s.end {
			if !s.fill() {
				return s.eofErr("the end of a string")
			}
			continue
		}
		switch c := s.buf[s.pos]; {
		case c == '"':
			s.pos++
			return nil
		case c < 0x20:
			return s.errf(s.offset(), "control character 0x%02x inside a string (JSON needs it escaped)", c)
		}
		off := s.offset()
		s.pos++
		if !s.fill() {
			return s.eofErr("an escape sequence")
		}
		e := s.buf[s.pos]
		s.pos++
		switch e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if _, err := s.hex4(off); err != nil {
				return err
			}
		default:
			return s.errf(off, "invalid escape \\%s in a string", string(rune(e)))
		}
	}
}

// key reads an object key and the ':' after it.
func (s *scanner) key(scratch *[]byte) error {
	var err error
	if *scratch, err = s.string((*scratch)[:0]); err != nil {
		return err
	}
	return s.expect(':', "':' after an object key")
}
