package rustdemangle

// printPunycode prints an identifier with non-ASCII characters: ascii,
// with the code points the RFC 3492 deltas in puny insert. Like binutils
// it keeps every code point as a 4-byte slot (leading zero bytes unused),
// here in the tail of the output buffer, then squeezes the zero bytes
// out; so decoding allocates nothing beyond growing that buffer. Code
// points are not validated: what binutils' encoder emits for an
// out-of-range value is emitted here too. A delta cut short prints
// nothing for the identifier but, as in binutils, is not an error.
func (d *demangler) printPunycode(ascii, puny string) {
	const (
		base = 36
		tMin = 1
		tMax = 26
		skew = 38
	)
	start := len(d.out)
	if len(d.out)-d.base+d.n+4*(len(ascii)+len(puny)) > MaxOutput {
		d.errored = true
		return
	}
	measured := len(ascii) // with d.measure: the bytes the name will take
	if !d.measure {
		for i := 0; i < len(ascii); i++ {
			d.out = append(d.out, 0, 0, 0, ascii[i])
		}
	}
	var (
		damp   uint64 = 700
		bias   uint64 = 72
		i      uint64
		c      uint32 = 0x80
		length        = uint64(len(ascii))
		pos           = 0
	)
	for pos < len(puny) {
		var delta, k uint64
		w := uint64(1)
		for {
			k += base
			t := uint64(0)
			if k >= bias {
				t = k - bias
			}
			t = min(max(t, tMin), tMax)
			if pos >= len(puny) {
				d.out = d.out[:start]
				return
			}
			ch := puny[pos]
			pos++
			var dg uint64
			switch {
			case isLower(ch):
				dg = uint64(ch - 'a')
			case isDigit(ch):
				dg = 26 + uint64(ch-'0')
			default:
				d.errored = true
				d.out = d.out[:start]
				return
			}
			delta += dg * w
			w *= base - t
			if dg < t {
				break
			}
		}
		length++
		i += delta
		c += uint32(i / length)
		i %= length

		if d.measure {
			switch {
			case c >= 0x10000:
				measured += 4
			case c >= 0x800:
				measured += 3
			default:
				measured += 2
			}
		} else {
			d.insertCodePoint(start, int(i), c)
		}

		if pos == len(puny) {
			break
		}
		i++
		delta /= damp
		damp = 2
		delta += delta / length
		k = 0
		for delta > ((base-tMin)*tMax)/2 {
			delta /= base - tMin
			k += base
		}
		bias = k + ((base-tMin+1)*delta)/(delta+skew)
	}
	if d.measure {
		d.grow(measured)
		return
	}
	j := start
	for _, b := range d.out[start:] {
		if b != 0 {
			d.out[j] = b
			j++
		}
	}
	d.out = d.out[:j]
}

// insertCodePoint inserts c, as a 4-byte slot holding its UTF-8 bytes
// right-aligned, before slot i of the slots starting at start.
func (d *demangler) insertCodePoint(start, i int, c uint32) {
	d.out = append(d.out, 0, 0, 0, 0)
	p := start + i*4
	copy(d.out[p+4:], d.out[p:len(d.out)-4])
	slot := d.out[p : p+4]
	slot[0], slot[1] = 0, 0
	if c >= 0x10000 {
		slot[0] = byte(0xf0 | c>>18)
	}
	if c >= 0x800 {
		hi := uint32(0x80)
		if c < 0x10000 {
			hi = 0xe0
		}
		slot[1] = byte(hi | (c>>12)&0x3f)
	}
	mid := uint32(0x80)
	if c < 0x800 {
		mid = 0xc0
	}
	slot[2] = byte(mid | (c>>6)&0x3f)
	slot[3] = byte(0x80 | c&0x3f)
}
