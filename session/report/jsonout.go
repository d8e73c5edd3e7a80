package report

import (
	"bytes"
	"encoding/json"
	"io"

	"linesman/wire"
)

// indentDepth is how many levels of a JSON document linesman writes are
// indented; deeper values stay compact. encoding/json's indentation re-indents
// every level, embedded raw values (a server's definitions) included, so a
// 20 KB listing holding a schema nested 9,990 deep took ~100 bytes of
// spaces per line on each of its 20,000 lines: a 200 MB report. Past this
// depth a line costs what its bytes cost, and a report stays a small
// multiple of what the server sent; no report of linesman's own nests this
// deep, so what people read is laid out as before.
const indentDepth = 24

// MarshalIndented is v as indented, inert JSON (see [indentDepth] and
// [wire.InertJSON]) ending in a newline: the one way linesman writes a
// JSON document of its own (reports, SARIF, baselines).
func MarshalIndented(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := shallowIndent(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), indentDepth)
	return wire.InertJSON(append(out, '\n')), nil
}

// writeIndented writes v as [MarshalIndented] does.
func writeIndented(w io.Writer, v any) error {
	b, err := MarshalIndented(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// shallowIndent lays out compact JSON as json.Indent(dst, src, "", "  ")
// would, down to maxDepth levels; values deeper than that are copied as
// they are.
func shallowIndent(src []byte, maxDepth int) []byte {
	dst := make([]byte, 0, len(src)+len(src)/4)
	newline := func(depth int) {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			dst = append(dst, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			dst = append(dst, c)
		case '{', '[':
			dst = append(dst, c)
			if depth < maxDepth && i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1]) // {} and [] stay on one line
				i++
				continue
			}
			depth++
			if depth <= maxDepth {
				newline(depth)
			}
		case '}', ']':
			depth--
			if depth < maxDepth {
				newline(depth)
			}
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			if depth <= maxDepth {
				newline(depth)
			}
		case ':':
			dst = append(dst, c)
			if depth <= maxDepth {
				dst = append(dst, ' ')
			}
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
