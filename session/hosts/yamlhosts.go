package hosts

import (
	"cmp"
	"fmt"
	"strings"

	"linesman/session/hosts/yamlsub"
)

// parseYAMLConfig reads a YAML config: Continue's (config.yaml, or a block
// of .continue/mcpServers/, with a top-level "mcpServers" list) or Goose's
// (config.yaml with its "extensions"). h "" tells which from the contents.
func parseYAMLConfig(path string, data []byte, h Host) (*File, error) {
	root, err := yamlsub.Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	guessed := ""
	if h == "" {
		switch {
		case root.Get("mcpServers") != nil:
			h, guessed = Continue, "read as Continue's YAML (a top-level \"mcpServers\" list); --host says otherwise"
		case root.Get("extensions") != nil:
			h, guessed = Goose, "read as Goose's config.yaml (its \"extensions\"); --host says otherwise"
		default:
			return nil, fmt.Errorf("%s: %w: linesman reads the YAML of Continue (\"mcpServers\") and Goose (\"extensions\"), and this file has neither; give the server's command after -- instead", path, ErrNoServers)
		}
	}
	f := &File{Path: path, Host: h, Data: data, yaml: true, Guessed: guessed}
	switch h {
	case Continue:
		if _, ok := root.Get("mcpServers").(*yamlsub.Map); ok {
			return nil, fmt.Errorf("%s: its \"mcpServers\" is a mapping; Continue's config.yaml wants a list, an item a server (- name: NAME, command: …)", path)
		}
		f.Entries = continueEntries(root)
	case Goose:
		f.Entries = gooseEntries(root)
	}
	if len(f.Entries) == 0 {
		return f, fmt.Errorf("%s: %w (no %q)", path, ErrNoServers, h.serversKey())
	}
	return f, nil
}

// continueEntries reads Continue's "mcpServers" list: each item a mapping
// with name, command, args, env, cwd, and type and url for a remote one
// (docs.continue.dev/customize/deep-dives/mcp), or a Hub block ("uses:").
func continueEntries(root *yamlsub.Map) []Entry {
	list, _ := root.Get("mcpServers").([]any)
	var out []Entry
	for i, item := range list {
		m, _ := item.(*yamlsub.Map)
		e := Entry{Host: Continue, Transport: "stdio", Name: m.Str("name")}
		if m != nil {
			e.Line = m.Lines["name"]
		}
		switch {
		case m == nil:
			e.Name, e.Note = fmt.Sprintf("#%d", i+1), "not a mapping"
		case m.Str("uses") != "":
			e.Name = cmp.Or(e.Name, m.Str("uses"))
			e.Line = m.Lines["uses"]
			e.Note = "a Continue Hub block (uses: …), which Continue fetches: linesman cannot start it"
			e.extension = true
		default:
			e.Name = cmp.Or(e.Name, fmt.Sprintf("#%d", i+1))
			yamlCommand(&e, m, "command", "env")
			if typ := transportType(m.Str("type")); typ == "http" || typ == "sse" || typ == "" && m.Str("url") != "" && e.Command == "" {
				e.Transport = cmp.Or(typ, "http")
				e.Note = "a remote (" + e.Transport + ") server: linesman speaks stdio only; skipped"
			} else if e.Command == "" {
				e.Note = "no command"
			}
		}
		out = append(out, e)
	}
	return out
}

// gooseEntries reads Goose's "extensions": NAME -> {enabled, type, cmd,
// args, envs, env_keys, uri, ...} (the config flattened into the entry, as
// Goose writes it, or under "config"). env_keys name secrets Goose reads
// from the environment first, then its keyring: passed on from linesman's
// environment when set.
func gooseEntries(root *yamlsub.Map) []Entry {
	exts, _ := root.Get("extensions").(*yamlsub.Map)
	if exts == nil {
		return nil
	}
	var out []Entry
	for _, name := range exts.Keys {
		m, _ := exts.Get(name).(*yamlsub.Map)
		e := Entry{Name: name, Host: Goose, Transport: "stdio", Line: exts.Lines[name]}
		if m == nil {
			e.Note = "not a mapping"
			out = append(out, e)
			continue
		}
		e.Disabled = strings.EqualFold(m.Str("enabled"), "false")
		if c, ok := m.Get("config").(*yamlsub.Map); ok {
			m = c
		}
		yamlCommand(&e, m, "cmd", "envs")
		for _, k := range yamlStrings(m.Get("env_keys")) {
			e.Forward = append(e.Forward, k)
		}
		switch typ := m.Str("type"); transportType(typ) {
		case "":
			e.Note = "no type (Goose wants type: stdio, with cmd and args)"
		case "stdio":
			if e.Command == "" {
				e.Note = "no command (cmd)"
			}
		case "http", "sse":
			e.Transport = transportType(typ)
			e.Note = "a remote (" + e.Transport + ") server: linesman speaks stdio only; skipped"
		default:
			e.Note = fmt.Sprintf("a Goose %s extension, which Goose runs itself: linesman cannot start it", cmp.Or(typ, "builtin"))
			e.extension = true
		}
		out = append(out, e)
	}
	return out
}

// yamlCommand reads an entry's command, args, the env mapping named env
// and cwd.
func yamlCommand(e *Entry, m *yamlsub.Map, cmd, env string) {
	e.Command, e.Cwd = m.Str(cmd), m.Str("cwd")
	e.Args = yamlStrings(m.Get("args"))
	if vars, ok := m.Get(env).(*yamlsub.Map); ok {
		for _, k := range vars.Keys {
			e.Env = append(e.Env, EnvVar{Name: k, Value: vars.Str(k)})
		}
	}
}

// yamlStrings is a sequence's scalars (another item becomes "").
func yamlStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// yamlWrapHint says how to route a server of a YAML config through the
// tap by hand: linesman reads Continue's and Goose's YAML but does not
// rewrite it (its comments and layout would not survive linesman's
// rewrite).
func yamlWrapHint(e Entry, linesman, tapDir string) Change {
	c := Change{Name: e.Name}
	if e.Note != "" {
		c.Why = e.Note
		return c
	}
	key := "command"
	if e.Host == Goose {
		key = "cmd"
	}
	c.Why = fmt.Sprintf("linesman does not rewrite YAML; to tap it, set its %s: %s and put %s at the start of its args",
		key, quote(linesman), tapPrefix(e.Name, tapDir, quote(e.Command)))
	return c
}

// continueTemplate reports a Continue ${{ secrets.NAME }} or ${{ inputs.NAME }}
// in s, which Continue fills from its Hub or .env files: linesman does not
// guess it.
func continueTemplate(field, server, s string) error {
	i := strings.Index(s, "${{")
	if i < 0 {
		return nil
	}
	form := s[i:]
	if j := strings.Index(form, "}}"); j >= 0 {
		form = form[:j+2]
	}
	return &UnresolvedError{Server: server, Field: field, Form: form,
		Reason: "is a Continue secret or input, which Continue fills from its Hub or its .env files; linesman does not guess it — give the server's command after -- and the value with -e NAME=VALUE"}
}
