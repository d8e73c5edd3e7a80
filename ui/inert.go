package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Everything the server wrote is untrusted: the UI puts server bytes on
// screen only through wire.Visible / wire.VisibleString, which turn every
// control, escape, invalid byte and bidirectional override into a visible
// symbol. The helpers here size text that is already inert.

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
