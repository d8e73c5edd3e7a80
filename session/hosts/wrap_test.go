package hosts

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Every realistic config, respaced every way its host's format allows
// (compact, spaced, one member per line, CRLF and tabs) and with its args
// as written, emptied ("args": []) and spaced or spread over lines,
// wraps (with and without a pinned tap directory) into a file that parses
// with each entry behind the tap, and unwraps to itself byte for byte.
func TestWrapUnwrapRoundTripOverVariants(t *testing.T) {
	files := append(slices.Clone(fixtures), struct {
		path string
		host Host
	}{"testdata/other/cline_mcp_settings.json", ""})
	n := 0
	for _, fx := range files {
		f, err := Read(fx.path, fx.host)
		if err != nil {
			t.Fatal(err)
		}
		for _, base := range [][]byte{f.Data, emptiedArgs(t, f)} {
			for _, style := range respacings {
				data := respace(base, style)
				n++
				t.Run(fmt.Sprintf("%s/%s/%d", fx.path, style.name, n), func(t *testing.T) {
					roundTrip(t, fx.path, fx.host, data)
				})
			}
		}
	}
}

// roundTrip wraps and unwraps data, pinned and not, and checks both ways.
func roundTrip(t *testing.T, path string, h Host, data []byte) {
	t.Helper()
	f, err := Parse(path, data, h)
	if err != nil {
		t.Fatalf("the variant does not parse: %v\n%s", err, data)
	}
	for _, dir := range []string{"", "/home/me/state/linesman taps"} {
		wrapped, changes := f.WrapPinned("/opt/linesman", dir, nil)
		wf, err := Parse(path, wrapped, f.Host)
		if err != nil {
			t.Fatalf("wrapped does not parse: %v\n%s", err, wrapped)
		}
		for _, c := range changes {
			if !c.Done {
				continue
			}
			e, _ := f.Find(c.Name)
			we, _ := wf.Find(c.Name)
			want := []string{"/opt/linesman", "tap", "--name", c.Name}
			if dir != "" {
				want = append(want, "--dir", dir)
			}
			want = append(append(want, "--", e.Command), e.Args...)
			if got := append([]string{we.Command}, we.Args...); !slices.Equal(got, want) {
				t.Errorf("%s wrapped as %q, want %q", c.Name, got, want)
			}
		}
		back, _ := wf.Unwrap(nil)
		if string(back) != string(data) {
			t.Errorf("dir %q: unwrap is not the file:\n%s\n--- the variant:\n%s", dir, Diff(path, data, back), data)
		}
	}
}

// emptiedArgs is f's data with every entry's args array made empty (an
// argv command cut to the program alone).
func emptiedArgs(t *testing.T, f *File) []byte {
	var edits []edit
	for _, e := range f.Entries {
		switch a := e.obj.get("args"); {
		case e.obj == nil:
		case e.argv:
			if c := e.obj.get("command"); c != nil && c.kind == '[' && len(c.elems) > 0 {
				edits = append(edits, edit{c.start, c.end, "[" + string(f.Data[c.elems[0].start:c.elems[0].end]) + "]"})
			}
		case a != nil && a.kind == '[':
			edits = append(edits, edit{a.start, a.end, "[]"})
		}
	}
	if len(edits) == 0 {
		t.Fatalf("%s: no args to empty", f.Path)
	}
	return apply(f.Data, edits)
}

// A respacing says what goes between two tokens of a JSONC file.
type respacing struct {
	name string
	// sep returns what goes between tokens a and b (b "" at the end);
	// old is the whitespace the file had there.
	sep func(a, b, old string) string
}

var respacings = []respacing{
	{"as-written", func(a, b, old string) string { return old }},
	{"compact", func(a, b, old string) string { return "" }},
	{"spaced", func(a, b, old string) string {
		switch {
		case a == "," || a == ":" || a == "[" || a == "{" || b == "]" || b == "}":
			return " "
		}
		return ""
	}},
	{"lines", lineSep("\n", "  ")},
	{"crlf-tabs", lineSep("\r\n", "\t")},
}

// lineSep puts a line break (and indentation) after every opening bracket
// and comma and before every closing one.
func lineSep(nl, ind string) func(a, b, old string) string {
	return func(a, b, old string) string {
		switch {
		case a == "," || a == "[" || a == "{" || b == "]" || b == "}":
			return nl + ind
		case a == ":":
			return " "
		}
		return ""
	}
}

// respace rewrites the whitespace between the tokens of data (JSON with
// comments) by style; a line comment keeps the line break that ends it.
func respace(data []byte, style respacing) []byte {
	toks, gaps := tokens(string(data))
	var b strings.Builder
	b.WriteString(gaps[0])
	for i, tok := range toks {
		b.WriteString(tok)
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		sep := style.sep(tok, next, gaps[i+1])
		if strings.HasPrefix(tok, "//") && !strings.Contains(sep, "\n") {
			sep += "\n"
		}
		if next == "" {
			sep = gaps[i+1]
		}
		b.WriteString(sep)
	}
	return []byte(b.String())
}

// tokens splits JSONC text into its tokens (strings, comments, literals,
// punctuation) and the whitespace around them: gaps[i] precedes toks[i].
func tokens(s string) (toks, gaps []string) {
	gap := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		gaps = append(gaps, s[gap:i])
		j := i + 1
		switch {
		case c == '"':
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j++
		case strings.HasPrefix(s[i:], "//"):
			j = i + strings.IndexByte(s[i:]+"\n", '\n')
		case strings.HasPrefix(s[i:], "/*"):
			j = i + strings.Index(s[i:], "*/") + 2
		case strings.IndexByte("{}[],:", c) < 0:
			for j < len(s) && strings.IndexByte("{}[],: \t\r\n/", s[j]) < 0 {
				j++
			}
		}
		toks = append(toks, s[i:j])
		i, gap = j, j
	}
	return toks, append(gaps, s[gap:])
}
