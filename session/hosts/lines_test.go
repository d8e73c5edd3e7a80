package hosts

import (
	"fmt"
	"strings"
	"testing"
)

// TestEntryLines: each entry knows the line of its name in the file, so a
// report can point at it (JSON keys, per-project lists, Codex tables).
func TestEntryLines(t *testing.T) {
	for _, c := range []struct {
		path, data string
		want       map[string]int
	}{
		{"claude_desktop_config.json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n\n    \"b\": {\n      \"command\": \"y\"\n    }\n  }\n}\n",
			map[string]int{"a": 3, "b": 5}},
		{"config.toml", "model = \"m\"\n\n[mcp_servers.alpha]\ncommand = \"x\"\n\n[mcp_servers.\"beta.v2\"]\ncommand = \"y\"\n[mcp_servers.alphabet]\ncommand = \"z\"\n",
			map[string]int{"alpha": 3, "beta.v2": 6, "alphabet": 8}},
	} {
		f, err := Parse(c.path, []byte(c.data), "")
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		got := map[string]int{}
		for _, e := range f.Entries {
			got[e.Name] = e.Line
		}
		for name, line := range c.want {
			if got[name] != line {
				t.Errorf("%s: %s on line %d, want %d (%v)", c.path, name, got[name], line, got)
			}
		}
	}
}

// A config of many servers is numbered in one pass: a Codex config.toml of
// 50,000 servers took more than 100 s (each entry split the whole file
// again), a JSON one counted lines from the start for each entry.
func TestEntryLinesOfManyServers(t *testing.T) {
	var toml, json strings.Builder
	json.WriteString(`{"mcpServers":{`)
	for i := range 50000 {
		fmt.Fprintf(&toml, "[mcp_servers.s%d]\ncommand = \"x\"\n", i)
		fmt.Fprintf(&json, "%s\n\"s%d\":{\"command\":\"x\"}", map[bool]string{true: ",", false: ""}[i > 0], i)
	}
	json.WriteString("}}")
	for path, c := range map[string]struct {
		data string
		line int
	}{"x/.codex/config.toml": {toml.String(), 99999}, "x/claude_desktop_config.json": {json.String(), 50001}} {
		f, err := Parse(path, []byte(c.data), "")
		if err != nil {
			t.Fatal(err)
		}
		if e, _ := f.Find("s49999"); e.Line != c.line {
			t.Errorf("%s: s49999 on line %d, want %d", path, e.Line, c.line)
		}
	}
}
