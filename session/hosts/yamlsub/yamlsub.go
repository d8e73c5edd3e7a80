// Package yamlsub reads the part of YAML that Continue's and Goose's config
// files use for their MCP servers, and the tests' GitHub Actions workflow (docs.continue.dev/reference, "mcpServers";
// block.github.io/goose/docs/guides/config-files, "extensions"): block
// mappings and sequences (an item may open a mapping on its own line),
// plain, single- and double-quoted scalars (keys too), one-line flow
// sequences and mappings ([a, "b"], {K: v}), literal and folded block
// scalars, comments, a leading "---". Anchors, aliases and tags are refused
// with their line. Scalars stay strings (true, 300, null as written); a
// mapping keeps its keys in order. Nothing is written back: a YAML file is
// read, and wrap says what to change by hand.
package yamlsub

import (
	"fmt"
	"strings"
)

// maxDepth bounds the nesting of blocks and flow collections, as the
// hosts' JSONC and TOML readers bound theirs.
const maxDepth = 200

// Map is a block or flow mapping, its keys in order.
type Map struct {
	Keys  []string
	Vals  map[string]any
	Lines map[string]int // the line of each key (1 for the first)
}

// Get is the value of key (nil when absent or null).
func (m *Map) Get(key string) any {
	if m == nil {
		return nil
	}
	return m.Vals[key]
}

// Str is the string value of key, "" when it is no scalar.
func (m *Map) Str(key string) string {
	s, _ := m.Get(key).(string)
	if s == "null" || s == "~" {
		return ""
	}
	return s
}

type yamlLine struct {
	no     int // from 1
	indent int
	text   string // without the indentation
}

type yamlParser struct {
	raw   []string // every line, for block scalars
	lines []yamlLine
	pos   int
	depth int // of the blocks open
}

// Parse parses a document whose root is a mapping.
func Parse(doc string) (*Map, error) {
	doc = strings.TrimPrefix(doc, "\ufeff")
	p := &yamlParser{raw: strings.Split(strings.ReplaceAll(doc, "\r\n", "\n"), "\n")}
	for i, l := range p.raw {
		body := strings.TrimLeft(l, " ")
		if strings.Contains(l[:len(l)-len(body)], "\t") || strings.HasPrefix(body, "\t") {
			return nil, fmt.Errorf("line %d: a tab in the indentation", i+1)
		}
		t := strings.TrimRight(body, " \t")
		if t == "" || strings.HasPrefix(t, "#") || len(p.lines) == 0 && (t == "---" || strings.HasPrefix(t, "%")) {
			continue
		}
		if t == "..." || t == "---" {
			return nil, fmt.Errorf("line %d: a second document (linesman reads the first's only when it is alone)", i+1)
		}
		p.lines = append(p.lines, yamlLine{no: i + 1, indent: len(l) - len(body), text: t})
	}
	if len(p.lines) == 0 {
		return &Map{Vals: map[string]any{}}, nil
	}
	if p.lines[0].indent != 0 {
		return nil, fmt.Errorf("line %d: the document does not start with a top-level mapping", p.lines[0].no)
	}
	v, err := p.block(0)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.lines) {
		return nil, fmt.Errorf("line %d: indented where nothing is open", p.lines[p.pos].no)
	}
	m, ok := v.(*Map)
	if !ok {
		return nil, fmt.Errorf("the document is not a mapping")
	}
	return m, nil
}

// block reads the mapping or sequence whose lines start at indent.
func (p *yamlParser) block(indent int) (any, error) {
	if p.depth >= maxDepth {
		return nil, fmt.Errorf("line %d: nested too deeply", p.lines[p.pos].no)
	}
	p.depth++
	defer func() { p.depth-- }()
	if isItem(p.lines[p.pos].text) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func isItem(t string) bool { return t == "-" || strings.HasPrefix(t, "- ") }

// sequence reads "- item" lines at indent.
func (p *yamlParser) sequence(indent int) ([]any, error) {
	out := []any{}
	for p.pos < len(p.lines) && p.lines[p.pos].indent == indent && isItem(p.lines[p.pos].text) {
		l := p.lines[p.pos]
		rest := strings.TrimLeft(strings.TrimPrefix(l.text, "-"), " ")
		if rest == "" {
			p.pos++
			v, err := p.nested(indent)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		// The item's content starts further in: read it as if it had a
		// line of its own there.
		p.lines[p.pos] = yamlLine{no: l.no, indent: indent + len(l.text) - len(rest), text: rest}
		_, _, isKey, err := cutKey(rest, l.no)
		if err != nil {
			return nil, err
		}
		if isKey || isItem(rest) {
			v, err := p.block(p.lines[p.pos].indent)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		var v any
		if strings.HasPrefix(rest, "|") || strings.HasPrefix(rest, ">") {
			p.pos++
			v, err = p.blockScalar(rest, indent, l.no)
		} else {
			v, err = p.value(rest, indent, l.no)
			p.pos++
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
		return nil, fmt.Errorf("line %d: indented inside a sequence item that holds a scalar", p.lines[p.pos].no)
	}
	return out, nil
}

// mapping reads "key: value" lines at indent.
func (p *yamlParser) mapping(indent int) (*Map, error) {
	m := &Map{Vals: map[string]any{}, Lines: map[string]int{}}
	for p.pos < len(p.lines) && p.lines[p.pos].indent == indent && !isItem(p.lines[p.pos].text) {
		l := p.lines[p.pos]
		key, val, ok, err := cutKey(l.text, l.no)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			return nil, fmt.Errorf("line %d: %q is not \"key: value\"", l.no, l.text)
		}
		if _, dup := m.Vals[key]; dup {
			return nil, fmt.Errorf("line %d: key %q repeated", l.no, key)
		}
		p.pos++
		var v any
		switch {
		case val == "":
			v, err = p.nested(indent)
		case strings.HasPrefix(val, "|") || strings.HasPrefix(val, ">"):
			v, err = p.blockScalar(val, indent, l.no)
		default:
			v, err = p.value(val, indent, l.no)
		}
		if err != nil {
			return nil, err
		}
		m.Keys = append(m.Keys, key)
		m.Vals[key], m.Lines[key] = v, l.no
	}
	if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
		return nil, fmt.Errorf("line %d: indented under a key that has a value", p.lines[p.pos].no)
	}
	return m, nil
}

// value reads a value written on one line: a flow collection or a scalar.
func (p *yamlParser) value(s string, indent, no int) (any, error) {
	if strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{") {
		f := &flowReader{s: s, no: no}
		v, err := f.value()
		if err != nil {
			return nil, err
		}
		if rest := strings.TrimSpace(f.s[f.i:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return nil, fmt.Errorf("line %d: %q after a flow collection", no, rest)
		}
		return v, nil
	}
	return scalar(s, no)
}

// nested reads the block below a key or "-" at indent: deeper lines, or
// (for a key) a sequence at the same indent, as YAML allows; else null.
func (p *yamlParser) nested(indent int) (any, error) {
	if p.pos >= len(p.lines) {
		return nil, nil
	}
	next := p.lines[p.pos]
	if next.indent > indent || next.indent == indent && isItem(next.text) {
		return p.block(next.indent)
	}
	return nil, nil
}

// blockScalar reads the lines of a | or > scalar opened on line no.
func (p *yamlParser) blockScalar(style string, indent, no int) (string, error) {
	style = strings.TrimSpace(strings.SplitN(style, "#", 2)[0])
	var body []string
	i, inner := no, -1 // raw index of the next line
	for ; i < len(p.raw); i++ {
		l := p.raw[i]
		t := strings.TrimLeft(l, " ")
		if strings.TrimSpace(t) == "" {
			body = append(body, "")
			continue
		}
		ind := len(l) - len(t)
		if ind <= indent {
			break
		}
		if inner < 0 {
			inner = ind
		}
		if ind < inner {
			return "", fmt.Errorf("line %d: less indented than the block scalar's first line", i+1)
		}
		body = append(body, strings.TrimRight(l[inner:], "\r"))
	}
	for p.pos < len(p.lines) && p.lines[p.pos].no <= i {
		p.pos++
	}
	for len(body) > 0 && body[len(body)-1] == "" {
		body = body[:len(body)-1]
	}
	sep := "\n"
	if strings.HasPrefix(style, ">") {
		sep = " "
	}
	text := strings.Join(body, sep)
	if !strings.HasSuffix(style, "-") && text != "" {
		text += "\n"
	}
	return text, nil
}

// cutKey splits "key: value" (or "key:"), the key plain or quoted; ok is
// false for a line that is no mapping entry.
func cutKey(s string, no int) (key, val string, ok bool, err error) {
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'") {
		q, n, err := quoted(s, no)
		if err != nil {
			return "", "", false, err
		}
		rest := s[n:]
		if rest == ":" || strings.HasPrefix(rest, ": ") {
			return q, strings.TrimSpace(rest[1:]), true, nil
		}
		return "", "", false, nil
	}
	if strings.ContainsAny(s[:1], "[{&*!|>%@`") {
		if strings.ContainsAny(s[:1], "&*!") {
			return "", "", false, fmt.Errorf("line %d: anchors, aliases and tags are not read by linesman", no)
		}
		return "", "", false, nil
	}
	if k, ok := strings.CutSuffix(s, ":"); ok && !strings.Contains(k, ": ") {
		return k, "", k != "", nil
	}
	k, v, ok := strings.Cut(s, ": ")
	if ok && strings.Contains(k, " #") {
		return "", "", false, nil
	}
	return strings.TrimSpace(k), strings.TrimSpace(v), ok && k != "", nil
}

// quoted reads the quoted scalar s starts with, and how many bytes it took.
func quoted(s string, no int) (string, int, error) {
	if s[0] == '\'' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				return b.String(), i + 1, nil
			}
			b.WriteByte(s[i])
		}
		return "", 0, fmt.Errorf("line %d: an unterminated single-quoted scalar", no)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				break
			}
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'e':
				b.WriteByte(0x1b)
			case 'a':
				b.WriteByte(7)
			case 'b':
				b.WriteByte(8)
			case 'v':
				b.WriteByte(11)
			case 'f':
				b.WriteByte(12)
			case 'N':
				b.WriteString("\u0085")
			case '_':
				b.WriteString("\u00a0")
			case 'L':
				b.WriteString("\u2028")
			case 'P':
				b.WriteString("\u2029")
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				var r rune
				if i+n >= len(s) || !isHex(s[i+1:i+1+n], &r) {
					return "", 0, fmt.Errorf("line %d: a bad \\%c escape", no, e)
				}
				b.WriteRune(r)
				i += n
			default:
				b.WriteByte(e) // \" \\ \/ and the rest as themselves
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("line %d: an unterminated double-quoted scalar", no)
}

func isHex(s string, r *rune) bool {
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			*r = *r<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			*r = *r<<4 | (c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			*r = *r<<4 | (c - 'A' + 10)
		default:
			return false
		}
	}
	return true
}

// scalar reads a one-line scalar: quoted, or plain with any " #" comment cut.
func scalar(s string, no int) (string, error) {
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'") {
		v, n, err := quoted(s, no)
		if err != nil {
			return "", err
		}
		if rest := strings.TrimSpace(s[n:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return "", fmt.Errorf("line %d: %q after a quoted scalar", no, rest)
		}
		return v, nil
	}
	if strings.ContainsAny(s[:1], "&*!") {
		return "", fmt.Errorf("line %d: anchors, aliases and tags are not read by linesman", no)
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s), nil
}

// flowReader reads a one-line flow collection: [a, "b", {K: v}].
type flowReader struct {
	s     string
	i     int
	no    int
	depth int // of the collections open
}

func (f *flowReader) space() {
	for f.i < len(f.s) && (f.s[f.i] == ' ' || f.s[f.i] == '\t') {
		f.i++
	}
}

func (f *flowReader) value() (any, error) {
	f.space()
	if f.i >= len(f.s) {
		return nil, fmt.Errorf("line %d: a flow collection is not closed on its line", f.no)
	}
	if c := f.s[f.i]; c == '[' || c == '{' {
		if f.depth >= maxDepth {
			return nil, fmt.Errorf("line %d: nested too deeply", f.no)
		}
		f.depth++
		defer func() { f.depth-- }()
	}
	switch f.s[f.i] {
	case '[':
		f.i++
		out := []any{}
		for {
			f.space()
			if f.i < len(f.s) && f.s[f.i] == ']' {
				f.i++
				return out, nil
			}
			v, err := f.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			if err := f.next(']'); err != nil {
				return nil, err
			}
		}
	case '{':
		f.i++
		m := &Map{Vals: map[string]any{}, Lines: map[string]int{}}
		for {
			f.space()
			if f.i < len(f.s) && f.s[f.i] == '}' {
				f.i++
				return m, nil
			}
			k, err := f.scalar(":")
			if err != nil {
				return nil, err
			}
			if f.i >= len(f.s) || f.s[f.i] != ':' {
				return nil, fmt.Errorf("line %d: a flow mapping's key without a value", f.no)
			}
			f.i++
			v, err := f.value()
			if err != nil {
				return nil, err
			}
			if _, dup := m.Vals[k]; !dup {
				m.Keys = append(m.Keys, k)
			}
			m.Vals[k], m.Lines[k] = v, f.no
			if err := f.next('}'); err != nil {
				return nil, err
			}
		}
	}
	return f.scalar("")
}

// next passes over the "," between two members, or stops before end.
func (f *flowReader) next(end byte) error {
	f.space()
	switch {
	case f.i < len(f.s) && f.s[f.i] == ',':
		f.i++
		return nil
	case f.i < len(f.s) && f.s[f.i] == end:
		return nil
	}
	return fmt.Errorf("line %d: a flow collection is not closed on its line", f.no)
}

// scalar reads a quoted or plain scalar of a flow collection, a plain one
// up to a ",", "]", "}" or one of stops.
func (f *flowReader) scalar(stops string) (string, error) {
	f.space()
	if f.i < len(f.s) && (f.s[f.i] == '"' || f.s[f.i] == '\'') {
		v, n, err := quoted(f.s[f.i:], f.no)
		f.i += n
		f.space()
		return v, err
	}
	j := f.i
	for j < len(f.s) && !strings.ContainsRune(",]}"+stops, rune(f.s[j])) {
		j++
	}
	v := strings.TrimSpace(f.s[f.i:j])
	f.i = j
	if v != "" && strings.ContainsAny(v[:1], "&*!") {
		return "", fmt.Errorf("line %d: anchors, aliases and tags are not read by linesman", f.no)
	}
	return v, nil
}
