package wire

import (
	"strings"
	"unicode/utf8"
)

// Everything a server writes is untrusted. Visible turns its bytes into text
// that is inert on a terminal: no byte below 0x20, no DEL, no C1 control, no
// invalid UTF-8 and no bidirectional override survives; each becomes a
// visible symbol. The UI, the human reports and the capture transcript all
// show server bytes through it, so one function decides what is safe.

// VisibleMode chooses how unsafe bytes are shown.
type VisibleMode uint8

const (
	// Pictures: control characters as Unicode control pictures (␛, ␇, ␀, ␉),
	// DEL as ␡, invalid bytes as U+FFFD, C1 controls and bidi overrides as
	// <U+XXXX> — compact, for lists, stderr lines and reports.
	Pictures VisibleMode = iota
	// Notation: every unsafe byte in \xNN notation, tab as \t, CR as \r, LF
	// as \n and a backslash doubled — exact, for the raw-bytes view that
	// teaches framing.
	Notation
)

// Visible returns b made inert for a terminal in the given mode. The result
// never contains a rune that a terminal interprets as a control.
func Visible(b []byte, mode VisibleMode) string {
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c < 0x7f { // printable ASCII: the common case
			if mode == Notation && c == '\\' {
				sb.WriteString(`\\`)
			} else {
				sb.WriteByte(c)
			}
			i++
			continue
		}
		if c < 0x80 { // C0 control or DEL
			writeControl(&sb, rune(c), mode)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			if mode == Notation {
				sb.WriteString(hexByte(c))
			} else {
				sb.WriteRune(utf8.RuneError)
			}
			i++
			continue
		}
		if unsafeRune(r) {
			if mode == Notation {
				for _, x := range b[i : i+n] {
					sb.WriteString(hexByte(x))
				}
			} else {
				sb.WriteString(runeNotation(r))
			}
		} else {
			sb.Write(b[i : i+n])
		}
		i += n
	}
	return sb.String()
}

// VisibleString is Visible for text already held as a string (decoded JSON
// strings, messages built from server data). Safe text comes back as is.
func VisibleString(s string, mode VisibleMode) string {
	if IsInert(s) && (mode == Pictures || !strings.ContainsRune(s, '\\')) {
		return s
	}
	return Visible([]byte(s), mode)
}

// IsInert reports whether s can go to a terminal as it is: valid UTF-8 with
// no control character, DEL, C1 control or bidirectional override.
func IsInert(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			if c < 0x80 {
				return false
			}
			// Non-ASCII: decide rune by rune.
			for j, r := range s[i:] {
				if r == utf8.RuneError {
					if _, n := utf8.DecodeRuneInString(s[i+j:]); n <= 1 {
						return false
					}
				}
				if r < 0x20 || r == 0x7f || unsafeRune(r) {
					return false
				}
			}
			return true
		}
	}
	return true
}

func writeControl(sb *strings.Builder, r rune, mode VisibleMode) {
	if mode == Notation {
		switch r {
		case '\t':
			sb.WriteString(`\t`)
		case '\r':
			sb.WriteString(`\r`)
		case '\n':
			sb.WriteString(`\n`)
		default:
			sb.WriteString(hexByte(byte(r)))
		}
		return
	}
	if r == 0x7f {
		sb.WriteRune('␡')
		return
	}
	sb.WriteRune(0x2400 + r) // the Control Pictures block mirrors C0
}

// unsafeRune reports runes that are valid UTF-8 but still act on a terminal
// or reorder text: C1 controls (0x80–0x9f, including the 8-bit CSI and OSC),
// the bidirectional marks, overrides and isolates, and the invisible BOM.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0xfeff:
		return true
	}
	return false
}

const hexDigits = "0123456789abcdef"

func hexByte(c byte) string {
	return string([]byte{'\\', 'x', hexDigits[c>>4], hexDigits[c&15]})
}

func runeNotation(r rune) string {
	const digits = "0123456789ABCDEF"
	return "<U+" + string([]byte{digits[(r>>12)&15], digits[(r>>8)&15], digits[(r>>4)&15], digits[r&15]}) + ">"
}
