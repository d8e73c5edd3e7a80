package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Everything the server wrote is untrusted. These functions turn its bytes
// into text that is inert on a terminal: no byte below 0x20, no DEL, no C1
// control, no invalid UTF-8 and no bidirectional override survives; each is
// replaced by a visible symbol. Nothing else in the UI puts server bytes on
// screen, so nothing the server wrote can clear the screen, move the cursor,
// set the title or write the clipboard.

// inertMode chooses how unsafe bytes are shown.
type inertMode uint8

const (
	// pictures: control characters as Unicode control pictures (␛, ␇, ␀),
	// invalid bytes as U+FFFD — compact, for lists and stderr.
	pictures inertMode = iota
	// notation: every unsafe byte in \xNN notation, tab as \t, CR as \r —
	// exact, for the raw-bytes view that teaches framing.
	notation
)

// inert returns b made safe for the terminal in the given mode. The result
// never contains a byte that a terminal interprets as a control.
func inert(b []byte, mode inertMode) string {
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c < 0x7f { // printable ASCII: the common case
			if mode == notation && c == '\\' {
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
			if mode == notation {
				sb.WriteString(hexByte(c))
			} else {
				sb.WriteRune('\uFFFD')
			}
			i++
			continue
		}
		if unsafeRune(r) {
			if mode == notation {
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

// inertString is inert for text already held as a string (decoded JSON
// strings, messages built from server data).
func inertString(s string, mode inertMode) string {
	if isSafe(s) {
		return s
	}
	return inert([]byte(s), mode)
}

// isSafe reports whether s needs no replacement (fast path).
func isSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			if c < 0x80 {
				return false
			}
			// Non-ASCII: decide rune by rune.
			for _, r := range s[i:] {
				if r == utf8.RuneError || r < 0x20 || r == 0x7f || unsafeRune(r) {
					return false
				}
			}
			return true
		}
	}
	return true
}

func writeControl(sb *strings.Builder, r rune, mode inertMode) {
	if mode == notation {
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
	switch {
	case r == 0x7f:
		sb.WriteRune('␡')
	case r == 0x1b:
		sb.WriteRune('␛')
	default:
		sb.WriteRune(0x2400 + r) // the Control Pictures block mirrors C0
	}
}

// unsafeRune reports runes that are valid UTF-8 but still act on a terminal
// or reorder text: C1 controls (0x80–0x9f, including the 8-bit CSI and OSC)
// and the bidirectional overrides and isolates.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0xfeff: // BOM / zero-width no-break space: invisible
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

// fit pads or truncates s (already inert, possibly styled) to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// truncate cuts s (inert, possibly styled) to at most w cells.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// wrapCells hard-wraps plain inert text at w cells, keeping wide characters whole.
func wrapCells(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	var out []string
	for len(s) > 0 {
		part := ansi.Truncate(s, w, "")
		if part == "" { // a character wider than w: take it anyway
			_, n := utf8.DecodeRuneInString(s)
			part = s[:n]
		}
		out = append(out, part)
		s = s[len(part):]
	}
	return out
}
