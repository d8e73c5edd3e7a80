package ui

import (
	"strings"

	"linesman/wire"
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
	var (
		cur    strings.Builder
		depth  int
		i      int
		n      = len(text)
		expect bool // after '{' or ',' inside an object: the next string is a key
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
				i = j + 1
				continue
			}
			cur.WriteString(st.JSONPunct.Render(string(c)))
			stack = append(stack, c)
			depth++
			expect = c == '{'
			i++
			if newline() {
				return lines, true
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
						return lines, true
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
				return lines, true
			}
		case ':':
			cur.WriteString(st.JSONPunct.Render(":") + " ")
			i++
		case '"':
			j := i + 1
			for j < n && text[j] != '"' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, n)
			s := wire.Visible(text[i:j], wire.Pictures)
			if expect {
				cur.WriteString(st.JSONKey.Render(s))
				expect = false
			} else {
				cur.WriteString(st.JSONString.Render(s))
			}
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
	return lines, false
}
