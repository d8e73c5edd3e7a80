package hosts

import "fmt"

// The forms of a server list that are one host's own: Gemini CLI's
// allowed and excluded servers, Zed's and opencode's entries, Codex's TOML.

// geminiAllowed marks disabled the entries Gemini CLI's settings keep it
// from starting: those its "mcp": {"excluded": [...]} names, and, when
// "mcp": {"allowed": [...]} is there, those it does not name
// (geminicli.com/docs/tools/mcp-server: "allowed: a list of MCP server
// names to allow", "excluded: a list of MCP server names to exclude");
// the settings of Gemini CLI before 0.3 spelt them allowMCPServers and
// excludeMCPServers at the top.
func geminiAllowed(root *node, entries []Entry) {
	names := func(v *node) (map[string]bool, bool) {
		if v == nil || v.kind != '[' {
			return nil, false
		}
		set := map[string]bool{}
		for _, el := range v.elems {
			if el.kind == '"' {
				set[el.str] = true
			}
		}
		return set, len(set) > 0 // an empty allowed list limits nothing
	}
	mcp := root.get("mcp")
	allowed, limited := names(mcp.get("allowed"))
	if !limited {
		allowed, limited = names(root.get("allowMCPServers"))
	}
	excluded, _ := names(mcp.get("excluded"))
	old, _ := names(root.get("excludeMCPServers"))
	for i := range entries {
		n := entries[i].Name
		if excluded[n] || old[n] || limited && !allowed[n] {
			entries[i].Disabled = true
		}
	}
}

// zedEntry reads what is Zed's own in an entry of its context_servers:
// "enabled": false turns a server off; a server an extension provides
// ("source": "extension", no command) is started by Zed from the
// extension, out of linesman's reach; and Zed's older form nests the
// command as {"command": {"path", "args", "env"}}, read (and wrapped) in
// that inner object. done says e is final.
func zedEntry(e Entry, obj *node) (Entry, bool) {
	if v := obj.get("enabled"); v != nil && v.kind == 'f' {
		e.Disabled = true
	}
	cmd := obj.get("command")
	if cmd != nil && cmd.kind == '{' {
		e.obj, e.cmdKey = cmd, "path"
		return e, false
	}
	if src := obj.get("source"); cmd == nil && obj.get("url") == nil && src != nil && src.kind == '"' && src.str == "extension" {
		e.Note = "provided by a Zed extension, which supplies its command: linesman cannot start or wrap it"
		e.extension = true
		return e, true
	}
	return e, false
}

// openCodeEntry reads an entry of opencode's "mcp": {"type": "local",
// "command": ["npx", "-y", "srv"], "environment": {...}, "enabled": bool}
// or {"type": "remote", "url": ...}.
func openCodeEntry(e Entry, obj *node) Entry {
	e.argv = true
	if v := obj.get("enabled"); v != nil && v.kind == 'f' {
		e.Disabled = true
	}
	if v := obj.get("environment"); v != nil && v.kind == '{' {
		for _, m := range v.members {
			e.Env = append(e.Env, EnvVar{Name: m.key, Value: m.value.str})
		}
	}
	typ := ""
	if v := obj.get("type"); v != nil && v.kind == '"' {
		typ = v.str
	}
	cmd := obj.get("command")
	switch {
	case typ == "remote" || typ == "" && obj.get("url") != nil && cmd == nil:
		e.Transport = "http"
		e.Note = "a remote (http) server: linesman speaks stdio only; skipped"
	case cmd == nil || cmd.kind != '[' || len(cmd.elems) == 0:
		e.Note = "no command (opencode wants \"command\": [\"program\", \"arg\", ...])"
	default:
		e.Command = cmd.elems[0].str
		for _, a := range cmd.elems[1:] {
			e.Args = append(e.Args, a.str)
		}
		if typ != "local" {
			e.Note = fmt.Sprintf("type %q: opencode starts a command only for \"local\"", typ)
		}
	}
	return e
}

// parseCodex reads a Codex config.toml: its [mcp_servers.NAME] tables.
func parseCodex(path string, data []byte) (*File, error) {
	values, err := parseTOML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &File{Path: path, Host: Codex, Data: data, toml: true, Entries: codexEntries(values)}
	f.numberLines()
	if len(f.Entries) == 0 {
		return f, fmt.Errorf("%s: %w (no [mcp_servers.NAME] table)", path, ErrNoServers)
	}
	return f, nil
}
