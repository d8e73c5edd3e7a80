package hosts

import (
	"fmt"
	"sort"
	"strings"
)

// Wrapping an entry routes it through `linesman tap`:
//
//	"command": "npx", "args": ["-y", "srv"]
//	"command": "/abs/linesman", "args": ["tap", "--name", "NAME", "--", "npx", "-y", "srv"]
//
// Only two places change: the command's value is replaced, and the tap's
// arguments and the old command (its bytes as written) are inserted right
// after the args array's "[" (or, when there was no args member, a new one
// is inserted right after the command's value). Unwrapping removes exactly
// those bytes and puts the old command back, so wrap then unwrap gives the
// file back byte for byte.

// Change says what Wrap or Unwrap did to one entry, or why it did not.
type Change struct {
	Name, Scope string
	Done        bool
	Why         string // when not done: "already wrapped", "a remote (http) server ...", ...
}

type edit struct {
	start, end int
	text       string
}

func apply(src []byte, edits []edit) []byte {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// wanted reports whether e is selected by names (none: every entry).
func wanted(e Entry, names []string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == e.Name {
			return true
		}
	}
	return false
}

// tapped returns the args node of an entry that runs through the tap.
func tapped(e Entry) (*node, bool) {
	if e.argv {
		return tappedArgv(e)
	}
	args := e.obj.get("args")
	if args == nil || args.kind != '[' || len(args.elems) < 5 {
		return nil, false
	}
	el := args.elems
	if el[0].str != "tap" || el[1].str != "--name" || el[3].str != "--" || el[2].kind != '"' || el[4].kind != '"' {
		return nil, false
	}
	return args, true
}

// IsWrapped reports whether e already runs through `linesman tap`.
func IsWrapped(e Entry) bool {
	if e.obj == nil {
		return false
	}
	_, ok := tapped(e)
	return ok
}

// Wrap returns the file's bytes with the entries named (none: all)
// routed through `linesman tap`, linesman being the absolute path of the
// binary, and what it did to each.
func (f *File) Wrap(linesman string, names []string) ([]byte, []Change) {
	var edits []edit
	var changes []Change
	for _, e := range f.Entries {
		if !wanted(e, names) {
			continue
		}
		if f.toml {
			changes = append(changes, tomlWrapHint(e, linesman))
			continue
		}
		c := Change{Name: e.Name, Scope: e.Scope}
		cmd, args := e.obj.get(e.commandKey()), e.obj.get("args")
		switch {
		case e.Note != "":
			c.Why = e.Note
		case IsWrapped(e):
			c.Why = "already wrapped"
		case e.argv:
			c.Done = true
			edits = append(edits, edit{cmd.start + 1, cmd.start + 1, argvPrefix(linesman, e.Name)})
		case cmd == nil || cmd.kind != '"':
			c.Why = "its command is not a string"
		case args != nil && args.kind != '[':
			c.Why = "its args is not an array"
		default:
			c.Done = true
			prefix := `"tap", "--name", ` + quote(e.Name) + `, "--", ` + string(f.Data[cmd.start:cmd.end])
			edits = append(edits, edit{cmd.start, cmd.end, quote(linesman)})
			switch {
			case args == nil:
				edits = append(edits, edit{cmd.end, cmd.end, `, "args": [` + prefix + `]`})
			case len(args.elems) == 0:
				edits = append(edits, edit{args.start + 1, args.start + 1, prefix})
			default:
				edits = append(edits, edit{args.start + 1, args.start + 1, prefix + ", "})
			}
		}
		changes = append(changes, c)
	}
	return apply(f.Data, edits), changes
}

// Unwrap returns the file's bytes with the entries named (none: all) that
// run through the tap put back as they were, and what it did to each.
func (f *File) Unwrap(names []string) ([]byte, []Change) {
	var edits []edit
	var changes []Change
	for _, e := range f.Entries {
		if !wanted(e, names) {
			continue
		}
		if f.toml {
			changes = append(changes, Change{Name: e.Name, Why: "linesman does not rewrite TOML; put back the command and args of [mcp_servers." + e.Name + "] by hand (they follow the \"--\" of its args)"})
			continue
		}
		c := Change{Name: e.Name, Scope: e.Scope}
		args, ok := tapped(e)
		cmd := e.obj.get(e.commandKey())
		switch {
		case e.obj == nil || !ok:
			c.Why = "not wrapped"
		case e.argv:
			c.Done = true
			edits = append(edits, f.unwrapArgv(args))
		case cmd == nil || cmd.kind != '"':
			c.Why = "its command is not a string"
		default:
			c.Done = true
			edits = append(edits, f.unwrapEdits(cmd, args)...)
		}
		changes = append(changes, c)
	}
	return apply(f.Data, edits), changes
}

// unwrapEdits undoes what Wrap inserted, exactly when the bytes are still
// as Wrap wrote them, and element by element otherwise.
func (f *File) unwrapEdits(cmd, args *node) []edit {
	el := args.elems
	old := string(f.Data[el[4].start:el[4].end])
	edits := []edit{{cmd.start, cmd.end, old}}
	added := `, "args": [`
	if len(el) == 5 && args.start == cmd.end+len(added)-1 && strings.HasPrefix(string(f.Data[cmd.end:]), added) &&
		args.end == el[4].end+1 {
		// Wrap added the whole args member.
		return append(edits, edit{cmd.end, args.end, ""})
	}
	switch {
	case len(el) == 5:
		return append(edits, edit{el[0].start, el[4].end, ""})
	case strings.HasPrefix(string(f.Data[el[4].end:]), ", ") && el[0].start == args.start+1:
		return append(edits, edit{el[0].start, el[4].end + 2, ""})
	default:
		return append(edits, edit{el[0].start, el[5].start, ""})
	}
}

// Summary is one line per change, for the user.
func Summary(verb string, changes []Change) string {
	var b strings.Builder
	for _, c := range changes {
		where := c.Name
		if c.Scope != "" {
			where += " (project " + c.Scope + ")"
		}
		if c.Done {
			fmt.Fprintf(&b, "%s %s\n", verb, where)
		} else {
			fmt.Fprintf(&b, "left %s alone: %s\n", where, c.Why)
		}
	}
	return b.String()
}

// An argv entry (opencode's "command": [...]) is wrapped by inserting the
// tap's part of the command line at the array's start:
//
//	"command": ["npx", "-y", "srv"]
//	"command": ["/abs/linesman", "tap", "--name", "NAME", "--", "npx", "-y", "srv"]

// argvPrefix is what Wrap inserts after the "[" of an argv command.
func argvPrefix(linesman, name string) string {
	return quote(linesman) + `, "tap", "--name", ` + quote(name) + `, "--", `
}

// tappedArgv returns the command array of an argv entry that runs
// through the tap.
func tappedArgv(e Entry) (*node, bool) {
	cmd := e.obj.get("command")
	if cmd == nil || cmd.kind != '[' || len(cmd.elems) < 6 {
		return nil, false
	}
	el := cmd.elems
	if el[1].str != "tap" || el[2].str != "--name" || el[4].str != "--" || el[3].kind != '"' {
		return nil, false
	}
	return cmd, true
}

// unwrapArgv removes the tap's part of an argv command: exactly the bytes
// Wrap inserted when they are still as it wrote them, else the five
// elements and what separates them from the sixth.
func (f *File) unwrapArgv(cmd *node) edit {
	el := cmd.elems
	inserted := argvPrefix(el[0].str, el[3].str)
	if strings.HasPrefix(string(f.Data[cmd.start+1:]), inserted) {
		return edit{cmd.start + 1, cmd.start + 1 + len(inserted), ""}
	}
	return edit{el[0].start, el[5].start, ""}
}

// tomlWrapHint says how to route a server of a TOML config through the
// tap by hand: linesman reads Codex's config.toml but does not rewrite it
// (a TOML file's comments and layout would not survive a rewrite of
// linesman's making).
func tomlWrapHint(e Entry, linesman string) Change {
	c := Change{Name: e.Name, Scope: e.Scope}
	if e.Note != "" {
		c.Why = e.Note
		return c
	}
	prefix := []string{"tap", "--name", e.Name, "--", e.Command}
	quoted := make([]string, len(prefix))
	for i, a := range prefix {
		quoted[i] = quote(a)
	}
	c.Why = fmt.Sprintf("linesman does not rewrite TOML; to tap it, set in [mcp_servers.%s] command = %s and put %s at the start of its args",
		e.Name, quote(linesman), strings.Join(quoted, ", "))
	return c
}
