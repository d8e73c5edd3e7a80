package wire

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// The scanner's strings: finding a string's end, checking its UTF-8 and
// escapes, and decoding it.

// plain marks the ASCII bytes that may appear raw inside a string without
// ending it or starting an escape.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// oneByteEscape marks the bytes that may follow a backslash to make a
// complete escape.
var oneByteEscape = func() (t [256]bool) {
	for _, c := range []byte{'"', '\\', '/', 'b', 'f', 'n', 'r', 't'} {
		t[c] = true
	}
	return t
}()

// inString marks every byte that may appear raw inside a string (UTF-8
// validity aside).
var inString = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str scans a string at s.i (which must be '"'). It returns the offset just
// past the closing quote and whether the string has escapes.
//
// A tight loop goes over the bytes that need no attention, eight at a time;
// each byte that does starts one of the string's other states: the closing
// quote, an escape ([scanner.escape]), a run of non-ASCII text
// ([scanner.nonASCII]), or a control byte, which is an error. Invalid UTF-8
// is recorded, not rejected. A DEL byte is legal JSON; classify looks for it
// separately.
func (s *scanner) str() (end int, esc bool, ok bool) {
	b := s.s
	i := s.i + 1
	for {
		run := i // where this run of plain bytes started
		// The mask's lowest set bit marks the first byte that needs
		// attention, so both long strings (base64 blobs, file contents)
		// and short keys skip the byte-by-byte loop. It stays in this
		// function: a call per run of plain bytes would cost short keys.
		for i+16 <= len(b) {
			m0 := stop8(binary.LittleEndian.Uint64(b[i:]))
			m1 := stop8(binary.LittleEndian.Uint64(b[i+8:]))
			if m0|m1 != 0 {
				if m0 != 0 {
					i += bits.TrailingZeros64(m0) >> 3
				} else {
					i += 8 + bits.TrailingZeros64(m1)>>3
				}
				goto attention
			}
			i += 16
			if i-run >= longRun {
				goto long
			}
		}
		if i+8 <= len(b) {
			if m := stop8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto attention
			}
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		goto attention
	long:
		i = plainRun(b, i)
	attention:
		if i >= len(b) {
			s.i = i
			return 0, false, s.fail(errEOF)
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return i + 1, esc, true
		case c >= 0x80:
			s.high = true
			i = s.nonASCII(b, i)
		case c == '\\':
			esc = true
			// A one-byte escape (\" above all, in JSON written into a
			// string) is stepped over here; \u and errors go to escape.
			if i+1 < len(b) && oneByteEscape[b[i+1]] {
				i += 2
			} else if i, ok = s.escape(b, i); !ok {
				return 0, false, false
			}
		default: // a control byte: not allowed raw in a string
			s.i = i
			return 0, false, s.fail(errSyntax)
		}
	}
}

// nonASCII checks the run of text starting at b[i] (a byte >= 0x80) and
// returns the offset after it: where eight ASCII bytes in a row, a byte
// that needs attention, or the end of b came. Non-Latin text is checked here
// in one go, the spaces and punctuation between its words included, rather
// than re-entering [scanner.str]'s eight-byte loop at every word. The first invalid UTF-8 byte
// is recorded in s.badUTF8.
func (s *scanner) nonASCII(b []byte, i int) int {
	ascii := 0
	for i < len(b) && ascii < 8 {
		if b[i] < 0x80 {
			if !plain[b[i]] {
				break
			}
			ascii++
			i++
			continue
		}
		ascii = 0
		// Two-byte (Latin, Greek, Cyrillic, …) and common three-byte
		// (most of the BMP: CJK, symbols) sequences inline.
		if c := b[i]; c >= 0xC2 && c <= 0xDF {
			if i+1 < len(b) && b[i+1]&0xC0 == 0x80 {
				i += 2
				continue
			}
		} else if c >= 0xE1 && c <= 0xEC || c == 0xEE || c == 0xEF {
			if i+2 < len(b) && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80 {
				i += 3
				continue
			}
		}
		if n := utf8Seq(b, i); n > 0 {
			i += n
		} else {
			if s.badUTF8 == 0 {
				s.badUTF8 = i + 1
			}
			i++
		}
	}
	return i
}

// escape scans the escape whose backslash is at b[i] and returns the offset
// after it; on a bad escape or the end of b it fails at the offending byte.
func (s *scanner) escape(b []byte, i int) (int, bool) {
	i++
	if i >= len(b) {
		s.i = i
		return 0, s.fail(errEOF)
	}
	switch {
	case oneByteEscape[b[i]]:
		return i + 1, true
	case b[i] == 'u':
		i++
		for k := 0; k < 4; k++ {
			if i >= len(b) {
				s.i = i
				return 0, s.fail(errEOF)
			}
			if !isHex(b[i]) {
				s.i = i
				return 0, s.fail(errSyntax)
			}
			i++
		}
		return i, true
	default:
		s.i = i
		return 0, s.fail(errSyntax)
	}
}

// utf8Seq returns the length of the valid UTF-8 sequence starting at b[i]
// (a byte >= 0x80), or 0 if there is none.
func utf8Seq(b []byte, i int) int {
	c := b[i]
	switch {
	case c >= 0xC2 && c <= 0xDF:
		if i+1 < len(b) && b[i+1]&0xC0 == 0x80 {
			return 2
		}
	case c >= 0xE0 && c <= 0xEF:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xE0 {
			lo = 0xA0 // no overlong forms
		} else if c == 0xED {
			hi = 0x9F // no surrogates
		}
		if i+2 < len(b) && b[i+1] >= lo && b[i+1] <= hi && b[i+2]&0xC0 == 0x80 {
			return 3
		}
	case c >= 0xF0 && c <= 0xF4:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F // nothing above U+10FFFF
		}
		if i+3 < len(b) && b[i+1] >= lo && b[i+1] <= hi && b[i+2]&0xC0 == 0x80 && b[i+3]&0xC0 == 0x80 {
			return 4
		}
	}
	return 0
}

// firstInvalid returns the offset of the first byte of b that is not part
// of valid UTF-8, or -1. Unlike utf8.Valid, which goes byte by byte after
// the first non-ASCII byte, it returns to eight bytes at a time after each
// multi-byte sequence.
func firstInvalid(b []byte) int {
	i := 0
	for i < len(b) {
		if i+8 <= len(b) {
			v := binary.LittleEndian.Uint64(b[i:])
			if v&highs == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(v&highs) >> 3
		}
		if b[i] < 0x80 {
			i++
			continue
		}
		n := utf8Seq(b, i)
		if n == 0 {
			return i
		}
		i += n
	}
	return -1
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// longRun is how many plain bytes in a row make a string long enough for
// plainRun.
const longRun = 256

// plainRun returns the offset of the first byte at or after b[i] that
// needs attention inside a string (a quote, a backslash, a control byte
// or non-ASCII: what [stop8] marks), or len(b). It is for long strings
// (text, blobs): the quote and the first backslash before it are found by
// bytes.IndexByte, in vector code, and only the bytes before them are
// checked for control bytes and non-ASCII, four words a round. Each round
// looks at a window that starts small and doubles while no byte needs
// attention, so that text with an escape every line (a file's contents)
// pays for a short window at each, and a blob for few long ones.
func plainRun(b []byte, i int) int {
	for window := 512; i < len(b); window = min(2*window, 8<<10) {
		w := b[i:min(len(b), i+window)]
		end := len(w)
		if q := bytes.IndexByte(w, '"'); q >= 0 {
			w = w[:q]
		}
		if k := bytes.IndexByte(w, '\\'); k >= 0 {
			w = w[:k]
		}
		if k := controlOrHigh(w); k >= 0 {
			return i + k
		}
		i += len(w)
		if len(w) < end {
			return i // at the quote or the backslash
		}
	}
	return i
}

// controlOrHigh returns the index of the first byte of w below 0x20 or
// above 0x7f, or -1. Within a word, only bytes above a true one can be
// marked falsely (a borrow runs upwards), so the lowest mark is exact.
func controlOrHigh(w []byte) int {
	j := 0
	for ; j+32 <= len(w); j += 32 {
		x := w[j : j+32 : j+32]
		v0 := binary.LittleEndian.Uint64(x[0:])
		v1 := binary.LittleEndian.Uint64(x[8:])
		v2 := binary.LittleEndian.Uint64(x[16:])
		v3 := binary.LittleEndian.Uint64(x[24:])
		if (v0|(v0-0x20*ones)|v1|(v1-0x20*ones)|v2|(v2-0x20*ones)|v3|(v3-0x20*ones))&highs != 0 {
			break // the word loop finds which byte
		}
	}
	for ; j+8 <= len(w); j += 8 {
		v := binary.LittleEndian.Uint64(w[j:])
		if m := (v | (v - 0x20*ones)) & highs; m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < len(w); j++ {
		if w[j] < 0x20 || w[j] >= 0x80 {
			return j
		}
	}
	return -1
}

// stop8 returns a mask whose lowest set bit is the high bit of the first
// byte of v (little-endian) that is a quote, a backslash, a control byte
// (< 0x20) or non-ASCII; 0 when there is none. Each term can only have false
// positives above a true one (a borrow runs upwards), so the lowest set bit
// is exact.
func stop8(v uint64) uint64 {
	q := v ^ ('"' * ones)
	e := v ^ ('\\' * ones)
	return (v | (v - 0x20*ones) | ((q - ones) &^ q) | ((e - ones) &^ e)) & highs
}
func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// unescape decodes the body of a JSON string (without quotes). Invalid
// surrogates become U+FFFD; invalid UTF-8 bytes are kept as they are.
func unescape(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw, i+1)
			if !ok {
				out = append(out, '\\', 'u')
				continue
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					r2, ok2 = hex4(raw, i+3)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/'
			out = append(out, raw[i])
		}
	}
	return string(out)
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
