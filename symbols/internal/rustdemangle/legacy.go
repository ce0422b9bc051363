package rustdemangle

// legacy demangles the part of a legacy name after "_ZN": length-prefixed
// identifiers ending with a 17h<16 hex> hash segment and 'E', optionally
// followed by ".suffix" parts (.llvm.NNN and the like), which are dropped.
func (d *demangler) legacy(sym string) bool {
	for i := 0; i < len(sym); i++ {
		if classes[sym[i]]&cLegacy == 0 {
			return false
		}
	}
	// Strip suffixes: the name ends at the last 'E' that is the end of
	// the string or is followed by '.'.
	n := len(sym)
	dotNext := true
	for n > 0 && !(dotNext && sym[n-1] == 'E') {
		dotNext = sym[n-1] == '.'
		n--
	}
	if n == 0 {
		return false
	}
	n--
	// Cheap filter for C++ names before parsing anything.
	if n <= 19 || sym[n-19:n-16] != "17h" {
		return false
	}
	s := sym[:n]
	pos := 0
	var last string
	for {
		id, ok := legacyIdent(s, &pos)
		if !ok || id == "" {
			return false
		}
		last = id
		if pos >= len(s) {
			break
		}
	}
	if !isLegacyHash(last) {
		return false
	}
	s = s[:n-19] // the hash is not printed without DMGL_VERBOSE
	pos = 0
	for {
		if pos > 0 {
			d.print("::")
		}
		id, ok := legacyIdent(s, &pos)
		if !ok {
			return false
		}
		d.printLegacyIdent(id)
		if pos >= len(s) {
			break
		}
	}
	return !d.errored
}

// legacyIdent reads a decimal length and that many bytes at *pos.
func legacyIdent(s string, pos *int) (string, bool) {
	p := *pos
	if p >= len(s) || !isDigit(s[p]) {
		return "", false
	}
	c := s[p]
	p++
	n := uint64(c - '0')
	if c != '0' {
		for p < len(s) && isDigit(s[p]) {
			n = n*10 + uint64(s[p]-'0') // wraps like binutils' size_t
			p++
		}
	}
	if n > uint64(len(s)-p) {
		return "", false
	}
	*pos = p + int(n)
	return s[p:*pos], true
}

// isLegacyHash reports whether id is "h" and 16 lowercase hex digits
// using at least 5 distinct digits, binutils' test for the hash segment.
func isLegacyHash(id string) bool {
	if len(id) != 17 || id[0] != 'h' {
		return false
	}
	var seen uint16
	for i := 1; i < 17; i++ {
		v := hexNibble(id[i])
		if v < 0 {
			return false
		}
		seen |= 1 << v
	}
	count := 0
	for ; seen != 0; seen &= seen - 1 {
		count++
	}
	return count >= 5
}

func (d *demangler) printLegacyIdent(id string) {
	// The mangler prefixes '_' so an identifier starts with XID_Start.
	if len(id) >= 2 && id[0] == '_' && id[1] == '$' {
		id = id[1:]
	}
	for len(id) > 0 {
		var n int
		switch id[0] {
		case '$':
			c, l := legacyEscape(id)
			if c == 0 {
				// An unknown escape: the rest is printed as is.
				d.print(id)
				return
			}
			d.printByte(c)
			n = l
		case '.':
			if len(id) >= 2 && id[1] == '.' {
				d.print("::")
				n = 2
			} else {
				d.printByte('.')
				n = 1
			}
		default:
			for n < len(id) && id[n] != '$' && id[n] != '.' {
				n++
			}
			d.print(id[:n])
		}
		id = id[n:]
	}
}

// legacyEscape decodes the "$...$" escape at the start of e, returning
// the byte and the escape's length, or 0.
func legacyEscape(e string) (byte, int) {
	if len(e) < 3 || e[0] != '$' {
		return 0, 0
	}
	e = e[1:]
	var c byte
	n := 0
	if e[0] == 'C' {
		c, n = ',', 1
	} else if len(e) > 2 {
		n = 2
		switch e[:2] {
		case "SP":
			c = '@'
		case "BP":
			c = '*'
		case "RF":
			c = '&'
		case "LT":
			c = '<'
		case "GT":
			c = '>'
		case "LP":
			c = '('
		case "RP":
			c = ')'
		default:
			if e[0] == 'u' && len(e) > 3 {
				n = 3
				hi, lo := hexNibble(e[1]), hexNibble(e[2])
				// Only printable ASCII.
				if hi < 0 || lo < 0 || hi > 7 || hi<<4|lo < 0x20 {
					return 0, 0
				}
				c = byte(hi<<4 | lo)
			}
		}
	}
	if c == 0 || len(e) <= n || e[n] != '$' {
		return 0, 0
	}
	return c, n + 2
}
