package hosts

import (
	"bytes"
	"strings"
)

// numberLines sets each entry's Line: the line of its name's key in a JSON
// file, of its [mcp_servers.NAME] table (or first dotted key) in a TOML one.
func (f *File) numberLines() {
	for i := range f.Entries {
		e := &f.Entries[i]
		switch {
		case f.toml:
			e.Line = tomlTableLine(f.Data, e.Name)
		case e.keyAt > 0 && e.keyAt <= len(f.Data):
			e.Line = 1 + bytes.Count(f.Data[:e.keyAt], []byte("\n"))
		}
	}
}

// tomlTableLine is the first line that names the Codex server name
// (mcp_servers.NAME, its name bare or quoted), or 0.
func tomlTableLine(data []byte, name string) int {
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "["))
		rest, ok := strings.CutPrefix(line, "mcp_servers.")
		if !ok {
			continue
		}
		for _, form := range []string{name, `"` + name + `"`, "'" + name + "'"} {
			if after, ok := strings.CutPrefix(rest, form); ok && (after == "" || strings.ContainsAny(after[:1], ".]= \t")) {
				return i + 1
			}
		}
	}
	return 0
}
