package hosts

import "testing"

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
