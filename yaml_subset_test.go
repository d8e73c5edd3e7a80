package main

// A parser for the subset of YAML a GitHub Actions workflow like the one
// in docs/ci.md uses, for its tests: block mappings and sequences (a sequence
// item may open a mapping on its own line), plain, single- and
// double-quoted scalars, literal (|) and folded (>, >-) block scalars,
// empty values (null), and comments. It refuses what a workflow linter
// refuses and this subset does not read: tabs in indentation, a line
// indented where its parent allows nothing, a duplicate key, an
// unterminated quote, flow collections, anchors and tags. go.mod has no
// YAML library, and one is not worth a dependency for a test.

import (
	"fmt"
	"strings"
)

// yamlMap is a block mapping, its keys in order.
type yamlMap struct {
	keys []string
	vals map[string]any
}

// get is the value of key, and whether the mapping has it.
func (m *yamlMap) get(key string) (any, bool) {
	v, ok := m.vals[key]
	return v, ok
}

// yamlLine is a line of the document that is not blank or a comment.
type yamlLine struct {
	no     int // from 1
	indent int
	text   string // without the indentation
}

// yamlParser reads lines in turn.
type yamlParser struct {
	raw   []string // every line, for block scalars
	lines []yamlLine
	pos   int
}

// parseYAML parses a document of the subset: its root is a mapping.
func parseYAML(doc string) (*yamlMap, error) {
	p := &yamlParser{raw: strings.Split(doc, "\n")}
	for i, l := range p.raw {
		body := strings.TrimLeft(l, " ")
		if strings.HasPrefix(body, "\t") || strings.Contains(l[:len(l)-len(body)], "\t") {
			return nil, fmt.Errorf("line %d: a tab in the indentation", i+1)
		}
		if strings.TrimSpace(body) == "" || strings.HasPrefix(body, "#") {
			continue
		}
		p.lines = append(p.lines, yamlLine{no: i + 1, indent: len(l) - len(body), text: strings.TrimRight(body, " ")})
	}
	if len(p.lines) == 0 || p.lines[0].indent != 0 {
		return nil, fmt.Errorf("the document does not start with a top-level mapping")
	}
	v, err := p.block(0)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.lines) {
		return nil, fmt.Errorf("line %d: indented where nothing is open", p.lines[p.pos].no)
	}
	m, ok := v.(*yamlMap)
	if !ok {
		return nil, fmt.Errorf("the document is not a mapping")
	}
	return m, nil
}

// block reads the mapping or sequence whose lines start at indent.
func (p *yamlParser) block(indent int) (any, error) {
	if strings.HasPrefix(p.lines[p.pos].text, "- ") || p.lines[p.pos].text == "-" {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

// sequence reads "- item" lines at indent.
func (p *yamlParser) sequence(indent int) ([]any, error) {
	var out []any
	for p.pos < len(p.lines) && p.lines[p.pos].indent == indent && strings.HasPrefix(p.lines[p.pos].text+" ", "- ") {
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
		// The item's content starts a column further in: read it as if
		// it had a line of its own there.
		p.lines[p.pos] = yamlLine{no: l.no, indent: indent + len(l.text) - len(rest), text: rest}
		if _, _, isKey := cutKey(rest); isKey {
			v, err := p.mapping(p.lines[p.pos].indent)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		v, err := scalar(rest, l.no)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.pos++
	}
	if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
		return nil, fmt.Errorf("line %d: indented inside a sequence item that holds a scalar", p.lines[p.pos].no)
	}
	return out, nil
}

// mapping reads "key: value" lines at indent.
func (p *yamlParser) mapping(indent int) (*yamlMap, error) {
	m := &yamlMap{vals: map[string]any{}}
	for p.pos < len(p.lines) && p.lines[p.pos].indent == indent {
		l := p.lines[p.pos]
		key, val, ok := cutKey(l.text)
		switch {
		case strings.HasPrefix(l.text, "- "):
			return nil, fmt.Errorf("line %d: a sequence item where a key of the mapping belongs", l.no)
		case !ok:
			return nil, fmt.Errorf("line %d: %q is not \"key: value\"", l.no, l.text)
		}
		if _, dup := m.vals[key]; dup {
			return nil, fmt.Errorf("line %d: key %q repeated", l.no, key)
		}
		p.pos++
		v, err := p.value(val, indent, l.no)
		if err != nil {
			return nil, err
		}
		m.keys = append(m.keys, key)
		m.vals[key] = v
	}
	if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
		return nil, fmt.Errorf("line %d: indented under a key that has a value", p.lines[p.pos].no)
	}
	return m, nil
}

// value is what follows "key:" on line no: a block scalar, a scalar, or
// (when nothing follows) the nested block below, or null.
func (p *yamlParser) value(val string, indent, no int) (any, error) {
	switch {
	case val == "|" || val == "|-" || val == ">" || val == ">-":
		return p.blockScalar(val, indent, no)
	case val != "":
		return scalar(val, no)
	}
	return p.nested(indent)
}

// nested reads the block below a key or "-" at indent: deeper lines, or
// (for a key) a sequence at the same indent, as YAML allows; else null.
func (p *yamlParser) nested(indent int) (any, error) {
	if p.pos >= len(p.lines) {
		return nil, nil
	}
	next := p.lines[p.pos]
	if next.indent > indent || next.indent == indent && strings.HasPrefix(next.text, "- ") {
		return p.block(next.indent)
	}
	return nil, nil
}

// blockScalar reads the lines of a | or > scalar opened on line no: those
// indented deeper than the key (blank lines kept), folded for >.
func (p *yamlParser) blockScalar(style string, indent, no int) (string, error) {
	var body []string
	i, inner := no, -1 // raw index of the next line
	for ; i < len(p.raw); i++ {
		l := p.raw[i]
		t := strings.TrimLeft(l, " ")
		if t == "" {
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
		body = append(body, l[inner:])
	}
	for p.pos < len(p.lines) && p.lines[p.pos].no <= i {
		p.pos++
	}
	for len(body) > 0 && body[len(body)-1] == "" {
		body = body[:len(body)-1]
	}
	if inner < 0 {
		return "", fmt.Errorf("line %d: an empty block scalar", no)
	}
	sep := "\n"
	if strings.HasPrefix(style, ">") {
		sep = " "
	}
	text := strings.Join(body, sep)
	if !strings.HasSuffix(style, "-") {
		text += "\n"
	}
	return text, nil
}

// cutKey splits "key: value" (or "key:"); ok is false for a line that is
// no mapping entry.
func cutKey(s string) (key, val string, ok bool) {
	if strings.HasPrefix(s, "\"") || strings.HasPrefix(s, "'") || strings.HasPrefix(s, "- ") {
		return "", "", false
	}
	if k, ok := strings.CutSuffix(s, ":"); ok && !strings.Contains(k, ": ") {
		return k, "", k != ""
	}
	k, v, ok := strings.Cut(s, ": ")
	return k, strings.TrimSpace(v), ok && k != "" && !strings.ContainsAny(k, "{}[]")
}

// scalar reads a one-line scalar: quoted, or plain with any " #" comment
// cut; flow collections, anchors, aliases and tags are refused.
func scalar(s string, no int) (string, error) {
	switch {
	case strings.HasPrefix(s, "'"):
		end := strings.LastIndex(s, "'")
		if end == 0 || strings.TrimSpace(strings.SplitN(s[end+1:], "#", 2)[0]) != "" {
			return "", fmt.Errorf("line %d: an unterminated single-quoted scalar", no)
		}
		return strings.ReplaceAll(s[1:end], "''", "'"), nil
	case strings.HasPrefix(s, `"`):
		end := strings.LastIndex(s, `"`)
		if end == 0 || strings.TrimSpace(strings.SplitN(s[end+1:], "#", 2)[0]) != "" {
			return "", fmt.Errorf("line %d: an unterminated double-quoted scalar", no)
		}
		return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n").Replace(s[1:end]), nil
	case strings.ContainsAny(s[:1], "{[&*!|>%@`"):
		return "", fmt.Errorf("line %d: %q: flow collections, anchors, tags and reserved indicators are not in the subset", no, s)
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s), nil
}
