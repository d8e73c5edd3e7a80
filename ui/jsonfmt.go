package ui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"linesman/wire"
)

// What the Detail pane folds (o unfolds): every "_meta" value, and strings
// longer than foldStringAt bytes (a base64 icon, an embedded file), which
// keep their first foldKeep bytes.
const (
	foldStringAt = 160
	foldKeep     = 48
)

// prettyJSON formats valid JSON text with two-space indentation and syntax
// colours, one styled string per line. It stops after maxLines lines and
// reports whether it did. Strings are rendered inert: JSON escapes stay as
// written (a \u001b shows as the six characters \u001b), and raw bytes that
// would act on a terminal become symbols.
//
// Long by design: one loop over the bytes whose state (depth, the bracket
// stack, whether a key comes next) lives in locals; split, that state would
// have to travel through a struct between the pieces.
func prettyJSON(st *Styles, text []byte, maxLines int) (lines []string, cut bool) {
	lines, cut, _ = prettyFolded(st, text, maxLines, false)
	return lines, cut
}

// prettyFolded is [prettyJSON] that, with fold set, folds what buries an
// answer: a "_meta" value becomes {…} or […] with its size, a long string
// its start and its size. folded counts the values folded.
func prettyFolded(st *Styles, text []byte, maxLines int, fold bool) (lines []string, cut bool, folded int) {
	var (
		cur    strings.Builder
		depth  int
		i      int
		n      = len(text)
		expect bool // after '{' or ',' inside an object: the next string is a key
		meta   bool // folding, and the key just written is "_meta"
		stack  []byte
	)
	newline := func() bool {
		lines = append(lines, cur.String())
		cur.Reset()
		cur.WriteString(strings.Repeat("  ", depth))
		return len(lines) >= maxLines
	}
	for i < n {
		c := text[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
		case '{', '[':
			// Empty object or array stays on one line.
			j := i + 1
			for j < n && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
				j++
			}
			if j < n && (text[j] == '}' || text[j] == ']') {
				cur.WriteString(st.JSONPunct.Render(string([]byte{c, text[j]})))
				i, meta = j+1, false
				continue
			}
			if meta {
				end := skipValue(text, i)
				cur.WriteString(st.JSONPunct.Render(string(c)+"…"+string(closer(c))) + foldLabel(st, end-i))
				i, meta = end, false
				folded++
				continue
			}
			cur.WriteString(st.JSONPunct.Render(string(c)))
			stack = append(stack, c)
			depth++
			expect = c == '{'
			i++
			if newline() {
				return lines, true, folded
			}
		case '}', ']':
			depth--
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if len(lines) > 0 || cur.Len() > 0 {
				// close on its own line
				s := strings.TrimRight(cur.String(), " ")
				cur.Reset()
				if s != "" {
					lines = append(lines, s)
					if len(lines) >= maxLines {
						return lines, true, folded
					}
				}
				cur.WriteString(strings.Repeat("  ", max(depth, 0)))
			}
			cur.WriteString(st.JSONPunct.Render(string(c)))
			i++
		case ',':
			cur.WriteString(st.JSONPunct.Render(","))
			i++
			expect = len(stack) > 0 && stack[len(stack)-1] == '{'
			if newline() {
				return lines, true, folded
			}
		case ':':
			cur.WriteString(st.JSONPunct.Render(":") + " ")
			i++
		case '"':
			j := stringEnd(text, i)
			if writeString(&cur, st, text[i:j], expect, fold) {
				folded++
			}
			meta = expect && fold && string(text[i:j]) == `"_meta"`
			expect = false
			i = j
		default:
			j := i
			for j < n && !strings.ContainsRune(" \t\r\n,:]}", rune(text[j])) {
				j++
			}
			if j == i {
				j++
			}
			tok := wire.Visible(text[i:j], wire.Pictures)
			meta = false
			if c == '-' || (c >= '0' && c <= '9') {
				cur.WriteString(st.JSONNumber.Render(tok))
			} else {
				cur.WriteString(st.JSONLiteral.Render(tok))
			}
			i = j
		}
	}
	if s := strings.TrimRight(cur.String(), " "); s != "" {
		lines = append(lines, s)
	}
	return lines, false, folded
}

// stringEnd is the end of the JSON string that starts at text[i].
func stringEnd(text []byte, i int) int {
	j := i + 1
	for j < len(text) && text[j] != '"' {
		if text[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, len(text))
}

// writeString writes the JSON string s, a key or a value, made inert; a
// long value is folded when fold is set (and writeString says so).
func writeString(cur *strings.Builder, st *Styles, s []byte, key, fold bool) bool {
	switch {
	case key:
		cur.WriteString(st.JSONKey.Render(wire.Visible(s, wire.Pictures)))
	case fold && len(s) > foldStringAt:
		cur.WriteString(st.JSONString.Render(wire.Visible(stringStart(s, foldKeep), wire.Pictures)+`…"`) + foldLabel(st, len(s)))
		return true
	default:
		cur.WriteString(st.JSONString.Render(wire.Visible(s, wire.Pictures)))
	}
	return false
}

// closer is the bracket that closes c.
func closer(c byte) byte {
	if c == '{' {
		return '}'
	}
	return ']'
}

// foldLabel says what a fold hides: its size, and the key that opens it.
func foldLabel(st *Styles, n int) string {
	return st.Subtle.Render(fmt.Sprintf(" (%s folded: o unfolds)", humanBytes(int64(n))))
}

// skipValue returns the end of the object or array that starts at b[i]
// (len(b) when it does not end).
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return len(b)
}

// stringStart is the start of the JSON string s (its quote included), at
// most keep bytes, cut between characters and escapes, never inside one.
func stringStart(s []byte, keep int) []byte {
	i := 1
	for i < len(s)-1 {
		n := 1
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == 'u':
			n = 6
		case s[i] == '\\':
			n = 2
		default:
			_, n = utf8.DecodeRune(s[i:])
		}
		if i+n > keep {
			break
		}
		i += n
	}
	return s[:min(i, len(s))]
}
