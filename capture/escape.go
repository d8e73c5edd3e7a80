package capture

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// How a capture writes a string: as JSON, with the bytes that could drive
// a terminal escaped (appendString), plain runs crossed in words and long
// ones at once (plainRun), and the bidi controls found (hasBidi).

const hexDigits = "0123456789abcdef"

// plain[c] is true for the bytes appendString copies as they are.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\' && c != 0x7f && c != 0xC2 && c != 0xE2 && c != 0xD8
	}
	return t
}()

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// onlyPrintableASCII reports whether every byte of b is printable ASCII, 0x20
// to 0x7e, 8 bytes at a time: a byte below 0x20 borrows into its high bit
// when 0x20 is taken off, a byte above 0x7e carries into it when 1 is
// added (or has it already).
func onlyPrintableASCII(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if ((x-ones*0x20)&^x|(x+ones)|x)&highs != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 || b[i] > 0x7e {
			return false
		}
	}
	return true
}

// attention is non-zero when one of the 8 bytes in x may need more than a
// plain copy: below 0x20, a quote, a backslash, DEL, or not ASCII. It may
// say so of a byte that does not (the byte loop then decides), never the
// reverse: for each test, the lowest matching byte sets its high bit with
// no borrow from below.
func attention(x uint64) uint64 {
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	del := x ^ (ones * 0x7f)
	return ((x - ones*0x20) | (quote - ones) | (backslash - ones) | (del - ones) | x) & highs
}

// appendString appends s, which must be valid UTF-8, as a JSON string.
// Besides what JSON requires (quote, backslash, C0 controls), it escapes DEL
// and the C1 controls, so that a capture shown with cat or less cannot drive
// the terminal: servers write escape sequences, and a capture keeps them.
// It is the hot loop of a recording: it skips plain text 8 bytes at a time.
func appendString(buf []byte, s []byte) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		run := i
		for i+8 <= len(s) && attention(binary.LittleEndian.Uint64(s[i:])) == 0 {
			if i += 8; i-run >= longRun {
				i = plainRun(s, i)
				break
			}
		}
		if i >= len(s) {
			break
		}
		if plain[s[i]] {
			i++
			continue
		}
		c := s[i]
		if c == 0xC2 {
			// C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F in UTF-8.
			if i+1 < len(s) && s[i+1] < 0xA0 {
				buf = append(buf, s[start:i]...)
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[s[i+1]>>4], hexDigits[s[i+1]&0xF])
				i += 2
				start = i
				continue
			}
			i++
			continue
		}
		if c == 0xE2 || c == 0xD8 {
			if r, n := bidiAt(s, i); n > 0 {
				buf = append(buf, s[start:i]...)
				buf = append(buf, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
				i += n
				start = i
				continue
			}
			i++
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// longRun is how many bytes in a row that need no attention make a run
// long enough for plainRun: text, a blob, or a tap's gap between the
// quotes of its messages.
const longRun = 64

// plainRun returns the offset of the first byte at or after s[i] that
// attention marks (a quote, a backslash, a byte below 0x20, DEL, or not
// ASCII), or len(s). It is for long runs: the first quote and the first
// backslash before it are found by bytes.IndexByte, in vector code, and
// only the bytes before them are checked for the others, four words a
// round (unprintable). Each round looks at a window that starts small and
// doubles while no byte needs attention, so that text with a quote every
// line (a gap of messages) pays for a short window at each, and a blob
// for few long ones. (wire's plainRun is the same for the scanner's set.)
func plainRun(s []byte, i int) int {
	for window := 256; i < len(s); window = min(2*window, 8<<10) {
		w := s[i:min(len(s), i+window)]
		end := len(w)
		if q := bytes.IndexByte(w, '"'); q >= 0 {
			w = w[:q]
		}
		if k := bytes.IndexByte(w, '\\'); k >= 0 {
			w = w[:k]
		}
		if k := unprintable(w); k >= 0 {
			return i + k
		}
		i += len(w)
		if len(w) < end {
			return i // at the quote or the backslash
		}
	}
	return i
}

// unprintable returns the index of the first byte of w that is not
// printable ASCII (below 0x20, DEL, or above), or -1. In a word, a byte
// borrows (below 0x20) or carries (0xff) only into the bytes above it, so
// the lowest mark is exact.
func unprintable(w []byte) int {
	mark := func(v uint64) uint64 { return (v | (v - ones*0x20) | (v + ones)) & highs }
	j := 0
	for ; j+32 <= len(w); j += 32 {
		x := w[j : j+32 : j+32]
		if mark(binary.LittleEndian.Uint64(x[0:]))|mark(binary.LittleEndian.Uint64(x[8:]))|
			mark(binary.LittleEndian.Uint64(x[16:]))|mark(binary.LittleEndian.Uint64(x[24:])) != 0 {
			break // the word loop finds which byte
		}
	}
	for ; j+8 <= len(w); j += 8 {
		if m := mark(binary.LittleEndian.Uint64(w[j:])); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < len(w); j++ {
		if w[j] < 0x20 || w[j] > 0x7e {
			return j
		}
	}
	return -1
}

// bidiAt reports whether s[i:] starts with a bidirectional control
// (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), which can
// reorder what a terminal or an editor shows of a capture; it returns the
// rune and its length in bytes (0 when it is none).
func bidiAt(s []byte, i int) (rune, int) {
	switch {
	case i+1 < len(s) && s[i] == 0xD8 && s[i+1] == 0x9C:
		return 0x061C, 2
	case i+2 < len(s) && s[i] == 0xE2 && s[i+1] == 0x80 && (s[i+2] == 0x8E || s[i+2] == 0x8F || s[i+2] >= 0xAA && s[i+2] <= 0xAE):
		return 0x2000 | rune(s[i+2]&0x3F), 3
	case i+2 < len(s) && s[i] == 0xE2 && s[i+1] == 0x81 && s[i+2] >= 0xA6 && s[i+2] <= 0xA9:
		return 0x2040 | rune(s[i+2]&0x3F), 3
	}
	return 0, 0
}

// hasBidi reports whether b holds a bidirectional control.
func hasBidi(b []byte) bool {
	for _, lead := range []byte{0xE2, 0xD8} {
		for i := 0; ; i++ {
			j := bytes.IndexByte(b[i:], lead)
			if j < 0 {
				break
			}
			i += j
			if _, n := bidiAt(b, i); n > 0 {
				return true
			}
		}
	}
	return false
}
