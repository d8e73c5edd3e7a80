package hosts

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A reader for the part of TOML that Codex's config.toml uses for its MCP
// servers (developers.openai.com/codex/mcp; docs/config.md):
//
//	[mcp_servers.docs]
//	command = "npx"
//	args = ["-y", "@upstash/context7-mcp"]
//	env = { "API_KEY" = "value" }
//	[mcp_servers.docs.env]
//	OTHER = "x"
//
// Tables and dotted keys, basic and literal strings (multi-line ones too),
// arrays (over several lines), inline tables, booleans; numbers and dates
// are skipped over as opaque words. The result is every value by its full
// dotted path. Nothing is written back: wrapping a TOML file is left to
// the user, with the exact lines to change.

// tomlValue is a string, a list, an inline table, a boolean, or a word.
type tomlValue struct {
	kind  byte // '"' string, '[' list, '{' inline table, 'b' boolean, 'w' any other word
	str   string
	list  []tomlValue
	table map[string]tomlValue
	b     bool
}

type tomlReader struct {
	src   string
	i     int
	line  int
	depth int // of the arrays and inline tables open
}

func (r *tomlReader) errf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", r.line, fmt.Sprintf(format, args...))
}

// parseTOML returns every key/value of data by its full dotted path.
func parseTOML(data []byte) (map[string]tomlValue, error) {
	// A byte order mark (Notepad's) is passed over, as Codex's toml_edit
	// parser passes it over.
	r := &tomlReader{src: strings.TrimPrefix(string(data), "\ufeff"), line: 1}
	out := map[string]tomlValue{}
	var table []string
	arrays := 0 // the arrays of tables read so far
	for {
		r.skipBlank()
		if r.i >= len(r.src) {
			return out, nil
		}
		switch {
		case strings.HasPrefix(r.src[r.i:], "[["):
			// An array of tables ([[skills.config]], which real Codex
			// configs hold): Codex keeps no MCP server in one, so its
			// tables are read under a path of their own, apart from
			// mcp_servers, and left alone.
			r.i += 2
			path, err := r.keyPath(']')
			if err != nil {
				return nil, err
			}
			if !strings.HasPrefix(r.src[r.i:], "]]") {
				return nil, r.errf("expected \"]]\" after the key %q", strings.Join(path, "."))
			}
			r.i += 2
			if path[0] == "mcp_servers" {
				return nil, r.errf("[[%s]] is an array of tables; Codex wants each server as a [mcp_servers.NAME] table", strings.Join(path, "."))
			}
			arrays++
			table = append([]string{fmt.Sprintf("\x01[[%d]]", arrays)}, path...)
		case r.src[r.i] == '[':
			r.i++
			path, err := r.keyPath(']')
			if err != nil {
				return nil, err
			}
			r.i++ // ]
			table = path
		default:
			path, err := r.keyPath('=')
			if err != nil {
				return nil, err
			}
			r.i++ // =
			r.skipSpace()
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			out[strings.Join(append(append([]string(nil), table...), path...), "\x00")] = v
		}
		r.skipSpace()
		if r.i < len(r.src) && r.src[r.i] == '#' {
			r.skipComment()
		}
		if r.i < len(r.src) && r.src[r.i] != '\n' && r.src[r.i] != '\r' {
			return nil, r.errf("unexpected %q after a value", r.src[r.i])
		}
	}
}

func (r *tomlReader) skipSpace() {
	for r.i < len(r.src) && (r.src[r.i] == ' ' || r.src[r.i] == '\t') {
		r.i++
	}
}

func (r *tomlReader) skipComment() {
	for r.i < len(r.src) && r.src[r.i] != '\n' {
		r.i++
	}
}

// skipBlank skips spaces, line ends and comments.
func (r *tomlReader) skipBlank() {
	for r.i < len(r.src) {
		switch r.src[r.i] {
		case ' ', '\t', '\r':
			r.i++
		case '\n':
			r.i++
			r.line++
		case '#':
			r.skipComment()
		default:
			return
		}
	}
}

// keyPath reads a dotted key up to end ('=' or ']'), not consuming it.
func (r *tomlReader) keyPath(end byte) ([]string, error) {
	var path []string
	for {
		r.skipSpace()
		if r.i >= len(r.src) {
			return nil, r.errf("a key ends the file")
		}
		var k string
		switch c := r.src[r.i]; {
		case c == '"' || c == '\'':
			v, err := r.str()
			if err != nil {
				return nil, err
			}
			k = v
		default:
			j := r.i
			for j < len(r.src) && (isBareKey(r.src[j])) {
				j++
			}
			if j == r.i {
				return nil, r.errf("expected a key, found %q", r.src[r.i])
			}
			k, r.i = r.src[r.i:j], j
		}
		path = append(path, k)
		r.skipSpace()
		if r.i < len(r.src) && r.src[r.i] == '.' {
			r.i++
			continue
		}
		if r.i >= len(r.src) || r.src[r.i] != end {
			return nil, r.errf("expected %q after the key %q", end, strings.Join(path, "."))
		}
		return path, nil
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isBareKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value reads one value.
func (r *tomlReader) value() (tomlValue, error) {
	if r.i >= len(r.src) {
		return tomlValue{}, r.errf("a value is missing")
	}
	switch c := r.src[r.i]; c {
	case '"', '\'':
		s, err := r.str()
		return tomlValue{kind: '"', str: s}, err
	case '[', '{':
		if r.depth >= maxDepth {
			return tomlValue{}, r.errf("nested too deeply")
		}
		r.depth++
		defer func() { r.depth-- }()
		if c == '[' {
			return r.list()
		}
		return r.inlineTable()
	}
	j := r.i
	for j < len(r.src) && !strings.ContainsRune(" \t\r\n,]}#", rune(r.src[j])) {
		j++
	}
	// A date and a time may stand apart, by one space (1979-05-27 07:32:00).
	if j-r.i == 10 && r.src[r.i+4] == '-' && r.src[r.i+7] == '-' && j+3 < len(r.src) && r.src[j] == ' ' &&
		isDigit(r.src[j+1]) && isDigit(r.src[j+2]) && r.src[j+3] == ':' {
		for j++; j < len(r.src) && !strings.ContainsRune(" \t\r\n,]}#", rune(r.src[j])); j++ {
		}
	}
	w := r.src[r.i:j]
	r.i = j
	switch w {
	case "true", "false":
		return tomlValue{kind: 'b', b: w == "true"}, nil
	case "":
		return tomlValue{}, r.errf("a value is missing")
	}
	return tomlValue{kind: 'w', str: w}, nil
}

func (r *tomlReader) list() (tomlValue, error) {
	r.i++ // [
	v := tomlValue{kind: '['}
	for {
		r.skipBlank()
		if r.i >= len(r.src) {
			return v, r.errf("an array is not closed")
		}
		if r.src[r.i] == ']' {
			r.i++
			return v, nil
		}
		e, err := r.value()
		if err != nil {
			return v, err
		}
		v.list = append(v.list, e)
		r.skipBlank()
		if r.i < len(r.src) && r.src[r.i] == ',' {
			r.i++
		}
	}
}

func (r *tomlReader) inlineTable() (tomlValue, error) {
	r.i++ // {
	v := tomlValue{kind: '{', table: map[string]tomlValue{}}
	for {
		r.skipSpace()
		if r.i < len(r.src) && r.src[r.i] == '}' {
			r.i++
			return v, nil
		}
		path, err := r.keyPath('=')
		if err != nil {
			return v, err
		}
		r.i++
		r.skipSpace()
		e, err := r.value()
		if err != nil {
			return v, err
		}
		v.table[strings.Join(path, ".")] = e
		r.skipSpace()
		if r.i < len(r.src) && r.src[r.i] == ',' {
			r.i++
		}
	}
}

// str reads a basic ("...", """...""") or literal ('...', ”'...”') string.
func (r *tomlReader) str() (string, error) {
	q := r.src[r.i]
	triple := strings.HasPrefix(r.src[r.i:], strings.Repeat(string(q), 3))
	if triple {
		r.i += 3
		if strings.HasPrefix(r.src[r.i:], "\n") { // a line end right after the opening is trimmed
			r.i++
			r.line++
		} else if strings.HasPrefix(r.src[r.i:], "\r\n") {
			r.i += 2
			r.line++
		}
	} else {
		r.i++
	}
	var b strings.Builder
	for r.i < len(r.src) {
		c := r.src[r.i]
		switch {
		case triple && strings.HasPrefix(r.src[r.i:], strings.Repeat(string(q), 3)):
			r.i += 3
			return b.String(), nil
		case !triple && c == q:
			r.i++
			return b.String(), nil
		case !triple && c == '\n':
			return "", r.errf("a string is not closed on its line")
		case c == '\\' && q == '"':
			if err := r.escape(&b); err != nil {
				return "", err
			}
			continue
		case c == '\n':
			r.line++
		}
		b.WriteByte(c)
		r.i++
	}
	return "", r.errf("a string is not closed")
}

// escape reads one escape of a basic string into b.
func (r *tomlReader) escape(b *strings.Builder) error {
	if r.i+1 >= len(r.src) {
		return r.errf("a string ends in a backslash")
	}
	c := r.src[r.i+1]
	r.i += 2
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 't':
		b.WriteByte('\t')
	case 'n':
		b.WriteByte('\n')
	case 'f':
		b.WriteByte('\f')
	case 'r':
		b.WriteByte('\r')
	case 'e':
		b.WriteByte(0x1b)
	case '"', '\\':
		b.WriteByte(c)
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		if r.i+n > len(r.src) {
			return r.errf("a \\%c escape is cut short", c)
		}
		v, err := strconv.ParseUint(r.src[r.i:r.i+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return r.errf("a \\%c escape is not a character", c)
		}
		b.WriteRune(rune(v))
		r.i += n
	case '\n', ' ', '\t', '\r': // a line-ending backslash: skip the whitespace that follows
		for r.i < len(r.src) && strings.ContainsRune(" \t\r\n", rune(r.src[r.i])) {
			if r.src[r.i] == '\n' {
				r.line++
			}
			r.i++
		}
	default:
		return r.errf("unknown escape \\%c", c)
	}
	return nil
}

// codexEntries returns the servers of a Codex config.toml.
func codexEntries(values map[string]tomlValue) []Entry {
	byName := map[string]map[string]tomlValue{}
	for path, v := range values {
		parts := strings.Split(path, "\x00")
		if len(parts) < 3 || parts[0] != "mcp_servers" {
			continue
		}
		fields := byName[parts[1]]
		if fields == nil {
			fields = map[string]tomlValue{}
			byName[parts[1]] = fields
		}
		fields[strings.Join(parts[2:], ".")] = v
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Entry
	for _, name := range names {
		out = append(out, codexEntry(name, byName[name]))
	}
	return out
}

func codexEntry(name string, fields map[string]tomlValue) Entry {
	e := Entry{Name: name, Host: Codex, Transport: "stdio", Command: fields["command"].str, Cwd: fields["cwd"].str}
	for _, a := range fields["args"].list {
		e.Args = append(e.Args, a.str)
	}
	env := map[string]string{}
	for k, v := range fields["env"].table {
		env[k] = v.str
	}
	for k, v := range fields {
		if name, ok := strings.CutPrefix(k, "env."); ok {
			env[name] = v.str
		}
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e.Env = append(e.Env, EnvVar{Name: k, Value: env[k]})
	}
	for _, v := range fields["env_vars"].list {
		e.Forward = append(e.Forward, v.str)
	}
	if en, ok := fields["enabled"]; ok && en.kind == 'b' && !en.b {
		e.Disabled = true
	}
	switch {
	case fields["url"].kind == '"':
		e.Transport = "http"
		e.Note = "a remote (http) server: linesman speaks stdio only; skipped"
	case e.Command == "":
		e.Note = "no command"
	}
	return e
}
