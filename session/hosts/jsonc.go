package hosts

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// node is one JSON value of a config file with the byte range it occupies,
// so that an edit can replace exactly one value and leave every other byte
// (comments, spacing, key order, trailing commas) as it was.
type node struct {
	kind       byte // '{', '[', '"', 'n' (number), 't', 'f', 'z' (null)
	start, end int  // the value's bytes are src[start:end]
	str        string
	members    []member // for '{', in file order
	elems      []*node  // for '['
}

type member struct {
	key      string
	keyStart int
	value    *node
}

// get returns the member value named key (the last one, as JSON.parse
// would), or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	var v *node
	for _, m := range n.members {
		if m.key == key {
			v = m.value
		}
	}
	return v
}

// SyntaxError says where a config file stops being JSON (with comments).
type SyntaxError struct {
	Offset    int
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// parser reads JSON with the JSONC extensions VS Code accepts in its
// settings files: // and /* */ comments, and trailing commas.
type parser struct {
	src []byte
	pos int
}

// parseJSONC parses src into a tree of nodes with their byte ranges.
func parseJSONC(src []byte) (*node, error) {
	p := &parser{src: src}
	p.skip()
	if p.pos < len(p.src) && p.src[p.pos] == 0xEF && len(p.src) >= 3 && string(p.src[:3]) == "\xEF\xBB\xBF" {
		p.pos += 3
		p.skip()
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.pos != len(p.src) {
		return nil, p.fail("unexpected text after the top-level value")
	}
	return n, nil
}

func (p *parser) fail(msg string) error {
	line, col := 1, 1
	for _, c := range p.src[:min(p.pos, len(p.src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Offset: p.pos, Line: line, Col: col, Msg: msg}
}

// skip passes whitespace and comments.
func (p *parser) skip() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := -1
			for i := p.pos + 2; i+1 < len(p.src); i++ {
				if p.src[i] == '*' && p.src[i+1] == '/' {
					end = i + 2
					break
				}
			}
			if end < 0 {
				p.pos = len(p.src)
				return
			}
			p.pos = end
		default:
			return
		}
	}
}

const maxDepth = 200

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.fail("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return nil, p.fail("unexpected end of file")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		for _, lit := range []struct {
			word string
			kind byte
		}{{"true", 't'}, {"false", 'f'}, {"null", 'z'}} {
			if len(p.src)-p.pos >= len(lit.word) && string(p.src[p.pos:p.pos+len(lit.word)]) == lit.word {
				n := &node{kind: lit.kind, start: p.pos, end: p.pos + len(lit.word)}
				p.pos = n.end
				return n, nil
			}
		}
		return nil, p.fail(fmt.Sprintf("unexpected %q", rune(c)))
	}
}

func (p *parser) object(depth int) (*node, error) {
	n := &node{kind: '{', start: p.pos}
	p.pos++
	for {
		p.skip()
		if p.pos >= len(p.src) {
			return nil, p.fail("unterminated object")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if p.src[p.pos] != '"' {
			return nil, p.fail("expected a member name in double quotes")
		}
		keyStart := p.pos
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.skip()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.fail("expected ':' after a member name")
		}
		p.pos++
		p.skip()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: k.str, keyStart: keyStart, value: v})
		p.skip()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			continue
		}
		return nil, p.fail("expected ',' or '}' in an object")
	}
}

func (p *parser) array(depth int) (*node, error) {
	n := &node{kind: '[', start: p.pos}
	p.pos++
	for {
		p.skip()
		if p.pos >= len(p.src) {
			return nil, p.fail("unterminated array")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.skip()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			continue
		}
		return nil, p.fail("expected ',' or ']' in an array")
	}
}

func (p *parser) string() (*node, error) {
	start := p.pos
	i := p.pos + 1
	for i < len(p.src) && p.src[i] != '"' {
		if p.src[i] == '\\' {
			i++
		} else if p.src[i] < 0x20 {
			p.pos = i
			return nil, p.fail("control character in a string")
		}
		i++
	}
	if i >= len(p.src) {
		return nil, p.fail("unterminated string")
	}
	raw := p.src[start : i+1]
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || !utf8.Valid(raw) {
		return nil, p.fail("invalid string")
	}
	p.pos = i + 1
	return &node{kind: '"', start: start, end: p.pos, str: s}, nil
}

func (p *parser) number() (*node, error) {
	start := p.pos
	for p.pos < len(p.src) && (p.src[p.pos] == '-' || p.src[p.pos] == '+' || p.src[p.pos] == '.' ||
		p.src[p.pos] == 'e' || p.src[p.pos] == 'E' || p.src[p.pos] >= '0' && p.src[p.pos] <= '9') {
		p.pos++
	}
	text := string(p.src[start:p.pos])
	if _, err := strconv.ParseFloat(text, 64); err != nil {
		p.pos = start
		return nil, p.fail("invalid number " + strconv.Quote(text))
	}
	return &node{kind: 'n', start: start, end: p.pos, str: text}, nil
}

// quote is s as a JSON string, with no HTML escaping (a path stays
// readable in the file), and with what encoding/json leaves raw that a
// terminal acts on or that reorders text (DEL, C1, bidi and other format
// controls) escaped, so that a file wrap writes shows as it reads.
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	q := strings.TrimSuffix(b.String(), "\n")
	if !strings.ContainsFunc(q, escapedInFile) {
		return q
	}
	var out strings.Builder
	for _, r := range q {
		if !escapedInFile(r) {
			out.WriteRune(r)
			continue
		}
		if r > 0xffff {
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&out, "\\u%04x\\u%04x", hi, lo)
			continue
		}
		fmt.Fprintf(&out, "\\u%04x", r)
	}
	return out.String()
}

// escapedInFile reports whether quote writes r as a \u escape.
func escapedInFile(r rune) bool {
	return r == 0x7f || r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r)
}
