package symbols

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// lexer is the small JSON scanner behind the v5 request parser. It works
// on the stream (a bufio.Reader over the body) and hands numbers out as
// bytes, so a frame costs no allocation; encoding/json's Decoder.Token
// boxed every number and took three quarters of a large request's time.
// Only strings with escapes or non-ASCII bytes go through encoding/json,
// which also validates them.
type lexer struct {
	r       *bufio.Reader
	scratch []byte
}

// maxSkipDepth bounds the nesting of skipped unknown values.
const maxSkipDepth = 64

// errEnd is the end of the input where a value may end; anywhere else it
// is reported as malformed JSON.
var errEnd = errors.New("end of request")

func syntaxf(format string, args ...any) error {
	return badf("invalid JSON: "+format, args...)
}

// peek returns the next byte that is not white space, without consuming it.
func (l *lexer) peek() (byte, error) {
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				return 0, errEnd
			}
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		l.r.UnreadByte()
		return c, nil
	}
}

func (l *lexer) advance() { l.r.ReadByte() }

// need is peek inside a value, where the input may not end.
func (l *lexer) need() (byte, error) {
	c, err := l.peek()
	if errors.Is(err, errEnd) {
		return 0, syntaxf("unexpected end of the request")
	}
	return c, err
}

func describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte %#x", c)
}

// delim consumes the expected opening delimiter.
func (l *lexer) delim(want byte, what string, args ...any) error {
	c, err := l.need()
	if err != nil {
		return err
	}
	if c != want {
		return badf("%s: want %q, found %s", fmt.Sprintf(what, args...), rune(want), describe(c))
	}
	l.advance()
	return nil
}

// elem steps to element i of an array (or member i of an object) whose
// opening delimiter was read: it consumes the comma before every element
// but the first, or the closing delimiter, and reports whether an element
// follows.
func (l *lexer) elem(close byte, i int) (bool, error) {
	c, err := l.need()
	if err != nil {
		return false, err
	}
	if c == close {
		l.advance()
		return false, nil
	}
	if i == 0 {
		return true, nil
	}
	if c != ',' {
		return false, syntaxf("want ',' or %q between elements, found %s", rune(close), describe(c))
	}
	l.advance()
	if c, err = l.need(); err != nil {
		return false, err
	}
	if c == close {
		return false, syntaxf("%q after a comma", rune(close))
	}
	return true, nil
}

// member steps to member i of an object and reads its key and colon.
func (l *lexer) member(close byte, i int) (string, bool, error) {
	ok, err := l.elem(close, i)
	if err != nil || !ok {
		return "", false, err
	}
	key, err := l.str("object key")
	if err != nil {
		return "", false, err
	}
	c, err := l.need()
	if err != nil {
		return "", false, err
	}
	if c != ':' {
		return "", false, syntaxf("want ':' after key %q, found %s", key, describe(c))
	}
	l.advance()
	return key, true, nil
}

// str reads a string value.
func (l *lexer) str(what string) (string, error) {
	c, err := l.need()
	if err != nil {
		return "", err
	}
	if c != '"' {
		return "", badf("%s: want a string, found %s", what, describe(c))
	}
	l.advance()
	b := l.scratch[:0]
	b = append(b, '"')
	plain := true
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				return "", syntaxf("unexpected end of the request in a string")
			}
			return "", err
		}
		b = append(b, c)
		switch {
		case c == '"':
			l.scratch = b
			if plain {
				return string(b[1 : len(b)-1]), nil
			}
			var s string
			if err := json.Unmarshal(b, &s); err != nil {
				return "", syntaxf("%v", err)
			}
			return s, nil
		case c == '\\':
			plain = false
			e, err := l.r.ReadByte()
			if err != nil {
				return "", syntaxf("unexpected end of the request in a string")
			}
			b = append(b, e)
		case c < 0x20:
			return "", syntaxf("control character %#x in a string", c)
		case c >= 0x80:
			plain = false
		}
	}
}

// num reads a number and returns its bytes, valid until the next call.
func (l *lexer) num(what string, args ...any) ([]byte, error) {
	c, err := l.need()
	if err != nil {
		return nil, err
	}
	if c != '-' && (c < '0' || c > '9') {
		return nil, badf("%s: want a number, found %s", fmt.Sprintf(what, args...), describe(c))
	}
	b := l.scratch[:0]
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				break
			}
			return nil, err
		}
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			l.r.UnreadByte()
			break
		}
		b = append(b, c)
	}
	l.scratch = b
	if _, plain := parseDecimal(b); !plain && !json.Valid(b) {
		return nil, syntaxf("%q is not a number", b)
	}
	return b, nil
}

// skip reads and discards one value of any kind.
func (l *lexer) skip() error {
	var closers []byte
	for {
		c, err := l.need()
		if err != nil {
			return err
		}
		switch {
		case c == '{' || c == '[':
			if len(closers) == maxSkipDepth {
				return badf("values nested deeper than %d", maxSkipDepth)
			}
			l.advance()
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			closers = append(closers, closer)
			if ok, err := l.open(closer); err != nil {
				return err
			} else if !ok {
				closers = closers[:len(closers)-1]
				goto next
			}
			continue
		case c == '"':
			if _, err := l.str("value"); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			if _, err := l.num("value"); err != nil {
				return err
			}
		case c == 't' || c == 'f' || c == 'n':
			if err := l.literal(); err != nil {
				return err
			}
		default:
			return syntaxf("unexpected %s", describe(c))
		}
	next:
		// After a value: close as many containers as end here, then
		// expect the next element of the innermost one still open.
		for len(closers) > 0 {
			closer := closers[len(closers)-1]
			c, err := l.need()
			if err != nil {
				return err
			}
			if c == closer {
				l.advance()
				closers = closers[:len(closers)-1]
				continue
			}
			if c != ',' {
				return syntaxf("want ',' or %q, found %s", rune(closer), describe(c))
			}
			l.advance()
			if closer == '}' {
				if err := l.key(); err != nil {
					return err
				}
			}
			break
		}
		if len(closers) == 0 {
			return nil
		}
	}
}

// open is called after a container's opening delimiter: it reports
// whether a first element follows (reading an object's first key).
func (l *lexer) open(closer byte) (bool, error) {
	c, err := l.need()
	if err != nil {
		return false, err
	}
	if c == closer {
		l.advance()
		return false, nil
	}
	if closer == '}' {
		return true, l.key()
	}
	return true, nil
}

func (l *lexer) key() error {
	if _, err := l.str("object key"); err != nil {
		return err
	}
	c, err := l.need()
	if err != nil {
		return err
	}
	if c != ':' {
		return syntaxf("want ':' after an object key, found %s", describe(c))
	}
	l.advance()
	return nil
}

func (l *lexer) literal() error {
	b := l.scratch[:0]
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				break
			}
			return err
		}
		if c < 'a' || c > 'z' {
			l.r.UnreadByte()
			break
		}
		b = append(b, c)
	}
	l.scratch = b
	switch string(b) {
	case "true", "false", "null":
		return nil
	}
	return syntaxf("unknown literal %q", b)
}
