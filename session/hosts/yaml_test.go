package hosts

import (
	"strings"
	"testing"
)

// Whatever a YAML config holds, reading it ends in entries or an error,
// never a panic or a hang.
func FuzzParseYAMLConfig(f *testing.F) {
	for _, seed := range []string{
		"mcpServers:\n  - name: a\n    command: x\n    args: [\"-y\", 'b', {k: v}]\n    env: {A: \"\\u00e9\"}\n",
		"extensions:\n  g:\n    cmd: npx\n    args:\n    - -y\n    envs: {}\n    type: stdio\n",
		"a:\n  - |\n    text\n  - >-\n    more\nb: [\n",
		"- x\n", "k: 'it''s'\n", "\"q\": [[], {}]\n", "x:\n\t- 1\n", "---\na: &x 1\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		for _, name := range []string{"x/.continue/config.yaml", "x/goose/config.yaml", "x/any.yaml"} {
			if file, err := Parse(name, []byte(doc), ""); err == nil {
				for _, e := range file.Entries {
					file.Resolve(e, Env{})
				}
			}
		}
	})
}

// The same of a TOML config (Codex's) and a JSONC one, wrapped and
// unwrapped too.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		"[mcp_servers.a]\ncommand = \"x\"\nargs = [\"-y\", '''b''']\nenv = { K = \"v\" }\n[[skills.config]]\npath = \"p\"\n",
		`{"mcpServers": {"a": {"command": "x", "args": ["y"], /* c */ "env": {"K": "${env:V}"},},}}`,
		`{"context_servers": {"z": {"command": {"path": "p", "args": []}}}}`,
		`{"mcp": {"o": {"type": "local", "command": ["a", "{env:X}"]}}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		for _, name := range []string{"x/.codex/config.toml", "x/mcp.json", "x/.zed/settings.json", "x/opencode.json"} {
			file, err := Parse(name, []byte(doc), "")
			if err != nil {
				continue
			}
			out, _ := file.Wrap("/opt/linesman", nil)
			if wrapped, err := Parse(name, out, file.Host); err == nil {
				back, _ := wrapped.Unwrap(nil)
				if string(back) != doc {
					t.Fatalf("wrap then unwrap of %q gave %q", doc, back)
				}
			}
		}
	})
}

// Collections nested millions deep (a config is read up to 16 MiB) are
// refused with their line: read recursively, they overflowed the stack
// and killed linesman.
func TestDeepNestingIsRefused(t *testing.T) {
	const n = 3_000_000
	for name, doc := range map[string]string{
		"x/.codex/config.toml":        "[mcp_servers.a]\nargs = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n",
		"x/.continue/config.yaml":     "mcpServers: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n",
		"y/.continue/config.yaml":     "mcpServers:\n" + strings.Repeat("- ", n) + "x\n",
		"z/.continue/config.yaml":     "mcpServers:\n  - name: a\n    env: " + strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) + "\n",
		"x/goose/config.yaml":         "extensions: " + strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) + "\n",
		"x/.codex/inline/config.toml": "a = " + strings.Repeat("{b = ", n) + "1" + strings.Repeat("}", n) + "\n",
	} {
		if _, err := Parse(name, []byte(doc), ""); err == nil || !strings.Contains(err.Error(), "nested too deeply") || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
