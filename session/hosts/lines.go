package hosts

import (
	"bytes"
	"sort"
	"strings"
)

// numberLines sets each entry's Line: the line of its name's key in a JSON
// file, of its [mcp_servers.NAME] table (or first dotted key) in a TOML one.
// It reads the file once, however many entries it has.
func (f *File) numberLines() {
	if f.toml {
		lines := tomlTableLines(f.Data)
		for i := range f.Entries {
			f.Entries[i].Line = lines[f.Entries[i].Name]
		}
		return
	}
	order := make([]int, 0, len(f.Entries))
	for i, e := range f.Entries {
		if e.keyAt > 0 && e.keyAt <= len(f.Data) {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(a, b int) bool { return f.Entries[order[a]].keyAt < f.Entries[order[b]].keyAt })
	line, at := 1, 0
	for _, i := range order {
		e := &f.Entries[i]
		line += bytes.Count(f.Data[at:e.keyAt], []byte("\n"))
		at = e.keyAt
		e.Line = line
	}
}

// tomlTableLines maps each Codex server the file names (mcp_servers.NAME,
// its name bare or quoted, in a table header or a dotted key) to the first
// line that names it.
func tomlTableLines(data []byte) map[string]int {
	out := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "["))
		rest, ok := strings.CutPrefix(line, "mcp_servers.")
		if !ok || rest == "" {
			continue
		}
		var name string
		switch q := rest[0]; q {
		case '"', '\'':
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				continue
			}
			name = rest[1 : 1+end]
		default:
			end := strings.IndexAny(rest, ".]= \t")
			if end < 0 {
				end = len(rest)
			}
			name = rest[:end]
		}
		if _, seen := out[name]; !seen {
			out[name] = i + 1
		}
	}
	return out
}
