package analysis

import "strconv"

// FormatTime prints a duration as Tracy's TimeToString does ("623.27 ms",
// "967.5 ms", "1:02.3", "2:03:04", "1d02:03:04"), so gotracy's summaries
// read like the real tools' and can be compared with them as text.
func FormatTime(ns int64) string {
	var b []byte
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = -u
	}
	const (
		us  = 1000
		ms  = 1000 * us
		sec = 1000 * ms
		mn  = 60 * sec
		hr  = 60 * mn
		day = 24 * hr
	)
	switch {
	case u < us:
		b = strconv.AppendUint(b, u, 10)
		b = append(b, " ns"...)
	case u < ms:
		b = appendIntFrac(b, u)
		b = append(b, " \u03bcs"...)
	case u < sec:
		b = appendIntFrac(b, u/1000)
		b = append(b, " ms"...)
	case u < mn:
		b = appendIntFrac(b, u/1000_000)
		b = append(b, " s"...)
	case u < hr:
		m := u / mn
		s := (u - m*mn) / 1000_000
		b = strconv.AppendUint(b, m, 10)
		b = append(b, ':')
		in, fr := s/1000, s%1000
		if fr >= 950 {
			b = append2(b, in+1)
		} else {
			b = append2(b, in)
			if fr > 50 {
				b = append(b, '.', byte('0'+(fr+50)/100))
			}
		}
	case u < day:
		h := u / hr
		m := u/mn - h*60
		s := u/sec - h*3600 - m*60
		b = strconv.AppendUint(b, h, 10)
		b = append(b, ':')
		b = append2(b, m)
		b = append(b, ':')
		b = append2(b, s)
	default:
		d := u / day
		h := u/hr - d*24
		m := u/mn - d*24*60 - h*60
		s := u/sec - d*86400 - h*3600 - m*60
		b = strconv.AppendUint(b, d, 10)
		b = append(b, 'd')
		b = append2(b, h)
		b = append(b, ':')
		b = append2(b, m)
		b = append(b, ':')
		b = append2(b, s)
	}
	return string(b)
}

// appendIntFrac prints v/1000 with up to two decimals, trailing zero
// dropped, rounding as Tracy's PrintSmallIntFrac.
func appendIntFrac(b []byte, v uint64) []byte {
	in, fr := v/1000, v%1000
	if fr >= 995 {
		return strconv.AppendUint(b, in+1, 10)
	}
	b = strconv.AppendUint(b, in, 10)
	if fr > 5 {
		w := fr + 5
		b = append(b, '.')
		if w/10%10 == 0 {
			b = append(b, byte('0'+w/100))
		} else {
			b = append2(b, w/10)
		}
	}
	return b
}

// append2 prints v (< 100) with two digits.
func append2(b []byte, v uint64) []byte {
	return append(b, byte('0'+v/10%10), byte('0'+v%10))
}
