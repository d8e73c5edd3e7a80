package wire

import "unicode/utf8"

// InertJSON returns the JSON document b with every rune a terminal would act
// on written as a \u escape: encoding/json escapes C0 controls, but leaves
// DEL, C1 controls (U+0080–U+009F, the 8-bit CSI and OSC among them) and
// bidirectional and other format controls raw, so `check --json` printed to
// a terminal could still drive it or reorder what it shows. The escapes keep
// the document's meaning: a decoder reads the same strings. Outside strings
// a JSON document holds only ASCII, so the rewrite needs no parser. A byte
// that is not UTF-8 becomes \ufffd, as encoding/json itself would write it.
func InertJSON(b []byte) []byte {
	clean := true
	for _, c := range b {
		if c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = appendU(out, utf8.RuneError)
		case r == 0x7f || unsafeRune(r):
			if r > 0xffff { // a surrogate pair, as JSON spells it
				r -= 0x10000
				out = appendU(out, 0xd800+(r>>10))
				out = appendU(out, 0xdc00+(r&0x3ff))
			} else {
				out = appendU(out, r)
			}
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[(r>>12)&15], hexDigits[(r>>8)&15], hexDigits[(r>>4)&15], hexDigits[r&15])
}
