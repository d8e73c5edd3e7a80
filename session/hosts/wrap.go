package hosts

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Wrapping an entry routes it through `linesman tap`:
//
//	"command": "npx", "args": ["-y", "srv"]
//	"command": "/abs/linesman", "args": ["tap", "--name", "NAME", "--", "npx", "-y", "srv"]
//
// ("--dir", "DIR" follow the name when the tap directory is pinned: see
// [File.WrapPinned].) Only two places change: the command's value is
// replaced, and the tap's arguments and the old command (its bytes as
// written) are inserted right after the args array's "[" — followed by
// ", " before the first old argument, or by " " in an empty array — or,
// when there was no args member, a new one is inserted right after the
// command's value. Unwrapping removes exactly those bytes and puts the old
// command back, so wrap then unwrap gives the file back byte for byte. The
// " " is what tells an empty args array (`"command": "x", "args": []`)
// from an args member wrap added, whose bytes would otherwise be the same.

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

// apply returns src with each edit's range replaced by its text, as if
// they were made from the last to the first (of two at the same start, the
// later one's text comes first). It writes the result in one pass: a
// redaction edits every string of a file, and making each edit on a copy
// of the rest took minutes on a ~/.claude.json of 76 MB.
func apply(src []byte, edits []edit) []byte {
	sorted := slices.Clone(edits)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].start > sorted[j].start })
	slices.Reverse(sorted) // by start, the later of two at the same start first
	var out bytes.Buffer
	out.Grow(len(src))
	at := 0
	for _, e := range sorted {
		if e.start < at { // overlapping edits: none are made, but keep their meaning
			return applyInTurn(src, edits)
		}
		out.Write(src[at:e.start])
		out.WriteString(e.text)
		at = e.end
	}
	out.Write(src[at:])
	return out.Bytes()
}

// applyInTurn makes edits one by one from the last, each on the result of
// the one before.
func applyInTurn(src []byte, edits []edit) []byte {
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

// tapped returns the args node of an entry that runs through the tap,
// and the index in it of the old command (after "--").
func tapped(e Entry) (*node, int, bool) {
	if e.argv {
		return tappedArgv(e)
	}
	args := e.obj.get("args")
	if args == nil || args.kind != '[' {
		return nil, 0, false
	}
	k, ok := tapArgsEnd(args.elems, 0)
	return args, k, ok
}

// tapArgsEnd reads the tap's arguments in el from index i: "tap",
// "--name", NAME, optionally "--dir", DIR, then "--" and the old command.
// It returns the old command's index.
func tapArgsEnd(el []*node, i int) (int, bool) {
	str := func(j int, want string) bool {
		return j < len(el) && el[j].kind == '"' && (want == "" || el[j].str == want)
	}
	if !str(i, "tap") || !str(i+1, "--name") || !str(i+2, "") {
		return 0, false
	}
	k := i + 3
	if str(k, "--dir") && str(k+1, "") {
		k += 2
	}
	if !str(k, "--") || !str(k+1, "") {
		return 0, false
	}
	return k + 1, true
}

// tapDirOf returns the --dir of a wrapped entry's tap arguments ("" when
// there is none); k is the old command's index.
func tapDirOf(el []*node, k int) string {
	if k >= 2 && el[k-3].str == "--dir" {
		return el[k-2].str
	}
	return ""
}

// tapPrefix is the tap's part of a wrapped command line as Wrap writes it,
// ending with the old command's bytes.
func tapPrefix(name, dir, oldCmd string) string {
	s := `"tap", "--name", ` + quote(name) + `, `
	if dir != "" {
		s += `"--dir", ` + quote(dir) + `, `
	}
	return s + `"--", ` + oldCmd
}

// IsWrapped reports whether e already runs through `linesman tap`.
func IsWrapped(e Entry) bool {
	if e.obj == nil {
		return false
	}
	_, _, ok := tapped(e)
	return ok
}

// Wrap returns the file's bytes with the entries named (none: all)
// routed through `linesman tap`, linesman being the absolute path of the
// binary, and what it did to each.
func (f *File) Wrap(linesman string, names []string) ([]byte, []Change) {
	return f.WrapPinned(linesman, "", names)
}

// WrapPinned is Wrap with the tap's directory written into each entry
// ("--dir", tapDir) when tapDir is not "": a host starts its servers with
// an environment of its own choosing (the SDKs' stdio clients pass only
// HOME, LOGNAME, PATH, SHELL, TERM and USER), where the user's
// LINESMAN_TAP_DIR or XDG_STATE_HOME would be lost.
func (f *File) WrapPinned(linesman, tapDir string, names []string) ([]byte, []Change) {
	var edits []edit
	var changes []Change
	for _, e := range f.Entries {
		if !wanted(e, names) {
			continue
		}
		if f.yaml {
			changes = append(changes, yamlWrapHint(e, linesman, tapDir))
			continue
		}
		if f.toml {
			changes = append(changes, tomlWrapHint(e, linesman, tapDir))
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
			edits = append(edits, edit{cmd.start + 1, cmd.start + 1, quote(linesman) + ", " + tapPrefix(e.Name, tapDir, "")})
		case cmd == nil || cmd.kind != '"':
			c.Why = "its command is not a string"
		case args != nil && args.kind != '[':
			c.Why = "its args is not an array"
		default:
			c.Done = true
			prefix := tapPrefix(e.Name, tapDir, string(f.Data[cmd.start:cmd.end]))
			edits = append(edits, edit{cmd.start, cmd.end, quote(linesman)})
			switch {
			case args == nil:
				edits = append(edits, edit{cmd.end, cmd.end, addedArgs(prefix)})
			case len(args.elems) == 0:
				edits = append(edits, edit{args.start + 1, args.start + 1, prefix + " "})
			default:
				edits = append(edits, edit{args.start + 1, args.start + 1, prefix + ", "})
			}
		}
		changes = append(changes, c)
	}
	return apply(f.Data, edits), changes
}

// addedArgs is the args member Wrap adds to an entry that had none.
func addedArgs(prefix string) string { return `, "args": [` + prefix + `]` }

// Unwrap returns the file's bytes with the entries named (none: all) that
// run through the tap put back as they were, and what it did to each.
func (f *File) Unwrap(names []string) ([]byte, []Change) {
	var edits []edit
	var changes []Change
	for _, e := range f.Entries {
		if !wanted(e, names) {
			continue
		}
		if f.toml || f.yaml {
			why := "not wrapped"
			if len(e.Args) > 0 && e.Args[0] == "tap" && slices.Contains(e.Args, "--") {
				why = "linesman does not rewrite TOML; put back the command and args of [mcp_servers." + tomlKey(e.Name) + "] by hand (they follow the \"--\" of its args)"
				if f.yaml {
					why = "linesman does not rewrite YAML; put back its command and args by hand (they follow the \"--\" of its args)"
				}
			}
			changes = append(changes, Change{Name: e.Name, Why: why})
			continue
		}
		c := Change{Name: e.Name, Scope: e.Scope}
		args, k, ok := tapped(e)
		cmd := e.obj.get(e.commandKey())
		switch {
		case e.obj == nil || !ok:
			c.Why = "not wrapped"
		case e.argv:
			c.Done = true
			edits = append(edits, f.unwrapArgv(args, k))
		case cmd == nil || cmd.kind != '"':
			c.Why = "its command is not a string"
		default:
			c.Done = true
			edits = append(edits, f.unwrapEdits(cmd, args, k)...)
		}
		changes = append(changes, c)
	}
	return apply(f.Data, edits), changes
}

// unwrapEdits undoes what Wrap inserted, exactly when the bytes are still
// as Wrap wrote them, and element by element otherwise; k is the old
// command's index in args.
func (f *File) unwrapEdits(cmd, args *node, k int) []edit {
	el := args.elems
	old := string(f.Data[el[k].start:el[k].end])
	edits := []edit{{cmd.start, cmd.end, old}}
	prefix := tapPrefix(el[2].str, tapDirOf(el, k), old)
	// Compared in place: a copy of the rest of the file for each entry made
	// unwrap quadratic (87 s for 50,000 entries).
	after := f.Data[args.start+1:]
	switch {
	case len(el) == k+1 && bytes.HasPrefix(f.Data[cmd.end:], []byte(addedArgs(prefix))) &&
		args.end == cmd.end+len(addedArgs(prefix)):
		return append(edits, edit{cmd.end, args.end, ""}) // Wrap added the whole args member
	case len(el) == k+1 && bytes.HasPrefix(after, []byte(prefix+" ")):
		return append(edits, edit{args.start + 1, args.start + 1 + len(prefix) + 1, ""})
	case len(el) > k+1 && bytes.HasPrefix(after, []byte(prefix+", ")):
		return append(edits, edit{args.start + 1, args.start + 1 + len(prefix) + 2, ""})
	case len(el) == k+1:
		return append(edits, edit{el[0].start, el[k].end, ""})
	default:
		return append(edits, edit{el[0].start, el[k+1].start, ""})
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

// tappedArgv returns the command array of an argv entry that runs
// through the tap, and the old command's index in it.
func tappedArgv(e Entry) (*node, int, bool) {
	cmd := e.obj.get("command")
	if cmd == nil || cmd.kind != '[' || len(cmd.elems) == 0 || cmd.elems[0].kind != '"' {
		return nil, 0, false
	}
	k, ok := tapArgsEnd(cmd.elems, 1)
	return cmd, k, ok
}

// unwrapArgv removes the tap's part of an argv command: exactly the bytes
// Wrap inserted when they are still as it wrote them, else the elements up
// to the old command (index k) and what separates them from it.
func (f *File) unwrapArgv(cmd *node, k int) edit {
	el := cmd.elems
	inserted := quote(el[0].str) + ", " + tapPrefix(el[3].str, tapDirOf(el, k), "")
	if bytes.HasPrefix(f.Data[cmd.start+1:], []byte(inserted)) {
		return edit{cmd.start + 1, cmd.start + 1 + len(inserted), ""}
	}
	return edit{el[0].start, el[k].start, ""}
}

// tomlWrapHint says how to route a server of a TOML config through the
// tap by hand: linesman reads Codex's config.toml but does not rewrite it
// (a TOML file's comments and layout would not survive a rewrite of
// linesman's making).
func tomlWrapHint(e Entry, linesman, tapDir string) Change {
	c := Change{Name: e.Name, Scope: e.Scope}
	if e.Note != "" {
		c.Why = e.Note
		return c
	}
	c.Why = fmt.Sprintf("linesman does not rewrite TOML; to tap it, set in [mcp_servers.%s] command = %s and put %s at the start of its args",
		tomlKey(e.Name), quote(linesman), tapPrefix(e.Name, tapDir, quote(e.Command)))
	return c
}

// tomlKey is name as a TOML key: bare when it can be, else quoted, so a
// server named "name.with.dots" is [mcp_servers."name.with.dots"], not
// three nested tables.
func tomlKey(name string) string {
	for i := 0; i < len(name); i++ {
		if !isBareKey(name[i]) {
			return quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}
