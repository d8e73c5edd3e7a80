package yamlsub

import (
	"reflect"
	"strings"
	"testing"
)

// TestParse reads each form the package takes, and keeps keys in order with
// their lines.
func TestParse(t *testing.T) {
	doc := "---\n# servers\nmcpServers:\n  - name: \"a b\"\n    command: npx\n    args: [-y, 'pkg@1']\n    env: {TOKEN: x, EMPTY: \"\"}\n  - name: c\n    note: |\n      one\n      two\nextensions:\n  git:\n    enabled: false\n"
	m, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Keys, []string{"mcpServers", "extensions"}) || m.Lines["extensions"] != 12 {
		t.Fatalf("keys %q, lines %v", m.Keys, m.Lines)
	}
	servers, _ := m.Get("mcpServers").([]any)
	if len(servers) != 2 {
		t.Fatalf("servers %#v", m.Get("mcpServers"))
	}
	a := servers[0].(*Map)
	if a.Str("name") != "a b" || a.Str("command") != "npx" || !reflect.DeepEqual(a.Get("args"), []any{"-y", "pkg@1"}) {
		t.Errorf("first server %#v", a.Vals)
	}
	if env := a.Get("env").(*Map); env.Str("TOKEN") != "x" || !reflect.DeepEqual(env.Keys, []string{"TOKEN", "EMPTY"}) {
		t.Errorf("env %#v", env)
	}
	if c := servers[1].(*Map); c.Str("note") != "one\ntwo\n" {
		t.Errorf("block scalar %q", c.Str("note"))
	}
	if git := m.Get("extensions").(*Map).Get("git").(*Map); git.Str("enabled") != "false" {
		t.Errorf("git %#v", git.Vals)
	}
}

// TestParseRefuses: what the package does not read is refused with its
// line, never read wrong.
func TestParseRefuses(t *testing.T) {
	for doc, want := range map[string]string{
		"a:\n\tb: 1\n":      "line 2: a tab in the indentation",
		"a: 1\na: 2\n":      `line 2: key "a" repeated`,
		"a: &x 1\nb: *x\n":  "line 1: anchors, aliases and tags",
		"a: 'open\n":        "line 1: an unterminated single-quoted scalar",
		"a: [1, 2\n":        "line 1: a flow collection is not closed on its line",
		"a: 1\n  b: 2\n":    "line 2: indented under a key that has a value",
		"- a\n":             "not a mapping",
		"a: 1\n---\nb: 2\n": "line 2: a second document",
		"a: " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n": "nested too deeply",
	} {
		if _, err := Parse(doc); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", doc, err, want)
		}
	}
}
