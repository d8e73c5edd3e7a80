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
	p := &folder{st: st, text: text, maxLines: maxLines, fold: fold}
	for p.i < len(text) && !p.cut {
		switch c := text[p.i]; c {
		case ' ', '\t', '\n', '\r':
			p.i++
		case '{', '[':
			p.open(c)
		case '}', ']':
			p.close(c)
		case ',':
			p.cur.WriteString(st.JSONPunct.Render(","))
			p.i++
			p.expect = len(p.stack) > 0 && p.stack[len(p.stack)-1] == '{'
			p.newline()
		case ':':
			p.cur.WriteString(st.JSONPunct.Render(":") + " ")
			p.i++
		case '"':
			p.str()
		default:
			p.scalar(c)
		}
	}
	if p.cut {
		return p.lines, true, p.folded
	}
	if s := strings.TrimRight(p.cur.String(), " "); s != "" {
		p.lines = append(p.lines, s)
	}
	return p.lines, false, p.folded
}

// folder is the state of one [prettyFolded]: the text, where it stands in
// it, the line being written and the lines written.
type folder struct {
	st       *Styles
	text     []byte
	i        int
	maxLines int
	fold     bool

	cur    strings.Builder
	lines  []string
	depth  int
	stack  []byte
	expect bool // after '{' or ',' inside an object: the next string is a key
	meta   bool // folding, and the key just written is "_meta"
	folded int
	cut    bool // maxLines reached
}

// newline ends the line being written and indents the next one.
func (p *folder) newline() {
	p.lines = append(p.lines, p.cur.String())
	p.cur.Reset()
	p.cur.WriteString(strings.Repeat("  ", p.depth))
	p.cut = len(p.lines) >= p.maxLines
}

// open writes an object or array's opening: an empty one on one line, a
// folded "_meta" value as its size, else the bracket and a new line.
func (p *folder) open(c byte) {
	text, n := p.text, len(p.text)
	j := p.i + 1
	for j < n && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
		j++
	}
	if j < n && (text[j] == '}' || text[j] == ']') {
		p.cur.WriteString(p.st.JSONPunct.Render(string([]byte{c, text[j]})))
		p.i, p.meta = j+1, false
		return
	}
	if p.meta {
		end := skipValue(text, p.i)
		p.cur.WriteString(p.st.JSONPunct.Render(string(c)+"…"+string(closer(c))) + foldLabel(p.st, end-p.i))
		p.i, p.meta = end, false
		p.folded++
		return
	}
	p.cur.WriteString(p.st.JSONPunct.Render(string(c)))
	p.stack = append(p.stack, c)
	p.depth++
	p.expect = c == '{'
	p.i++
	p.newline()
}

// close writes an object or array's closing bracket on a line of its own.
func (p *folder) close(c byte) {
	p.depth--
	if len(p.stack) > 0 {
		p.stack = p.stack[:len(p.stack)-1]
	}
	if len(p.lines) > 0 || p.cur.Len() > 0 {
		s := strings.TrimRight(p.cur.String(), " ")
		p.cur.Reset()
		if s != "" {
			p.lines = append(p.lines, s)
			if len(p.lines) >= p.maxLines {
				p.cut = true
				return
			}
		}
		p.cur.WriteString(strings.Repeat("  ", max(p.depth, 0)))
	}
	p.cur.WriteString(p.st.JSONPunct.Render(string(c)))
	p.i++
}

// str writes a string (a key or a value, folded when long).
func (p *folder) str() {
	j := stringEnd(p.text, p.i)
	if writeString(&p.cur, p.st, p.text[p.i:j], p.expect, p.fold) {
		p.folded++
	}
	p.meta = p.expect && p.fold && string(p.text[p.i:j]) == `"_meta"`
	p.expect = false
	p.i = j
}

// scalar writes a number or a literal (or a stray byte), made visible.
func (p *folder) scalar(c byte) {
	text, n := p.text, len(p.text)
	j := p.i
	for j < n && !strings.ContainsRune(" \t\r\n,:]}", rune(text[j])) {
		j++
	}
	if j == p.i {
		j++
	}
	tok := wire.Visible(text[p.i:j], wire.Pictures)
	p.meta = false
	if c == '-' || (c >= '0' && c <= '9') {
		p.cur.WriteString(p.st.JSONNumber.Render(tok))
	} else {
		p.cur.WriteString(p.st.JSONLiteral.Render(tok))
	}
	p.i = j
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
