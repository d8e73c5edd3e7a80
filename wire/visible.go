package wire

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Everything a server writes is untrusted. Visible turns its bytes into text
// that is inert on a terminal: no byte below 0x20, no DEL, no C1 control, no
// invalid UTF-8, no bidirectional control and no other invisible format
// control (Unicode category Cf: zero-width spaces and joiners, the BOM, tag
// characters) or line/paragraph separator survives; each becomes a visible
// symbol. Text meant for a terminal goes through Visible, VisibleString or
// VisibleText; JSON meant for a terminal goes through InertJSON. The UI, the human reports and the capture transcript all
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
// or hide or reorder text: C1 controls (0x80–0x9f, including the 8-bit CSI
// and OSC), every format control (category Cf: the bidirectional marks,
// embeddings, overrides and isolates, zero-width spaces and joiners, the
// invisible BOM, tag characters) and the line and paragraph separators.
func unsafeRune(r rune) bool {
	switch {
	case r < 0xa0:
		return r >= 0x80
	case r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// VisibleText is Visible in Pictures mode for text of several lines: line
// feeds and tabs stay as they are, everything else unsafe is shown. It is
// the renderer of linesman's own diagnostics and errors, which quote file
// names and server text.
func VisibleText(s string) string {
	if IsInert(s) {
		return s
	}
	var sb strings.Builder
	for {
		i := strings.IndexAny(s, "\n\t")
		if i < 0 {
			sb.WriteString(VisibleString(s, Pictures))
			return sb.String()
		}
		sb.WriteString(VisibleString(s[:i], Pictures))
		sb.WriteByte(s[i])
		s = s[i+1:]
	}
}

const hexDigits = "0123456789abcdef"

func hexByte(c byte) string {
	return string([]byte{'\\', 'x', hexDigits[c>>4], hexDigits[c&15]})
}

// runeNotation writes r as <U+XXXX>, with as many hex digits as it needs
// beyond four (tag characters are U+E00xx).
func runeNotation(r rune) string {
	const digits = "0123456789ABCDEF"
	b := []byte("<U+")
	shift := 12
	for r>>(shift+4) != 0 {
		shift += 4
	}
	for ; shift >= 0; shift -= 4 {
		b = append(b, digits[(r>>shift)&15])
	}
	return string(append(b, '>'))
}
