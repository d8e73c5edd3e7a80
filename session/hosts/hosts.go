// Package hosts reads the MCP server lists of the hosts people use —
// Claude Desktop, Claude Code, VS Code, Cursor, Windsurf, Zed, Gemini CLI,
// opencode, Roo Code, Codex (TOML), Continue and Goose (YAML) — resolves an
// entry into the command, environment and directory its host would start
// it with, and rewrites entries to run through `linesman tap` and back
// ([WriteWithBackup] keeps the file as it was beside it). It also reads a
// plain list of servers, one a line ([ReadPlainList]).
//
// It stands alone: it imports nothing of linesman's, starts nothing, and
// never prints. Environment values read from a config are secrets: they are
// returned to be passed to a server, never put in an error or a listing
// (names only). Edits replace the byte ranges of single values, so a
// JSONC file keeps its comments, spacing and trailing commas, and
// unwrapping restores the bytes that wrapping changed.
package hosts

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Host is a host application whose config format this package reads.
type Host string

// The hosts whose formats were checked against their documentation (see
// docs/hosts.md, "Host configs").
const (
	ClaudeDesktop Host = "claude-desktop"
	ClaudeCode    Host = "claude-code"
	VSCode        Host = "vscode"
	Cursor        Host = "cursor"
	Windsurf      Host = "windsurf"
	Zed           Host = "zed"
	GeminiCLI     Host = "gemini-cli"
	OpenCode      Host = "opencode"
	Codex         Host = "codex"
	Continue      Host = "continue"
	Goose         Host = "goose"
	RooCode       Host = "roo-code"
)

// Hosts lists every host, in the order listings use.
var Hosts = []Host{ClaudeDesktop, ClaudeCode, VSCode, Cursor, Windsurf, Zed, GeminiCLI, OpenCode, Codex, Continue, Goose, RooCode}

// ParseHost accepts a host's name as --host takes it.
func ParseHost(s string) (Host, error) {
	for _, h := range Hosts {
		if string(h) == s {
			return h, nil
		}
	}
	names := make([]string, len(Hosts))
	for i, h := range Hosts {
		names[i] = string(h)
	}
	return "", fmt.Errorf("unknown host %q (want one of %s)", s, strings.Join(names, ", "))
}

// serversKey is the member that holds a host's servers.
func (h Host) serversKey() string {
	switch h {
	case VSCode:
		return "servers"
	case Zed:
		return "context_servers"
	case OpenCode:
		return "mcp"
	case Goose:
		return "extensions"
	}
	return "mcpServers"
}

// Entry is one server of a config file, as written (nothing resolved).
type Entry struct {
	Name string
	Host Host
	// Scope is "" for the file's own list, or the project directory of a
	// per-project list in ~/.claude.json.
	Scope string
	// Transport is "stdio", or "http"/"sse" for a remote server (listed,
	// never started: Note says so).
	Transport string
	Command   string
	Args      []string
	Env       []EnvVar
	EnvFile   string
	Cwd       string
	Disabled  bool
	Note      string // why the entry cannot be started, when it cannot
	// Line is the line of the file where the entry's name stands (1 for
	// the first; 0 when not known): where a report points at the entry.
	Line int

	keyAt int // the offset of the entry's name in the file (JSON files)

	obj *node // the entry's object in the file (Zed's older form: its "command" object)
	// cmdKey is the member of obj that holds the command: "command", or
	// "path" in the "command" object of Zed's older form.
	cmdKey string
	// argv: the command member is the whole command line as an array
	// (opencode's "command": ["npx", "-y", "srv"]), there is no "args".
	argv bool
	// Forward names variables passed on from the host's own environment
	// (Codex's env_vars).
	Forward []string
	// extension: the host starts it from an extension that supplies its
	// command (Zed's "source": "extension"): not a server to check.
	extension bool
}

// ProvidedByExtension reports whether the host starts e from an extension
// that supplies its command (Zed's "source": "extension"): it is listed,
// and skipped by whatever would start or wrap it, not failed.
func (e Entry) ProvidedByExtension() bool { return e.extension }

// commandKey is the member of the entry's object that holds the command.
func (e Entry) commandKey() string { return cmp.Or(e.cmdKey, "command") }

// EnvVar is one variable an entry sets, as written (Value may hold
// ${...} forms still). Never print Value.
type EnvVar struct {
	Name, Value string
}

// File is a config file read whole: its bytes and its entries.
type File struct {
	Path    string
	Host    Host
	Data    []byte
	Entries []Entry
	// Guessed says, when the file's name did not tell its host, how its
	// contents were read instead (for the user: pass --host to say).
	Guessed string
	// NotStrict says, for a host that reads strict JSON, where the file
	// stops being strict JSON (a comment, a trailing comma): the host
	// would refuse the whole file and start none of its servers, where
	// linesman, reading leniently, goes on.
	NotStrict string
	// toml: the file is TOML (Codex's config.toml), read but never rewritten.
	toml bool
	// yaml: the file is YAML (Continue's, Goose's), read but never rewritten.
	yaml bool
}

// ErrNoServers is returned (wrapped) by Read for a file without a server list.
var ErrNoServers = errors.New("no MCP server list")

// Read reads the config file at path as host h writes it ("" = guess from
// the file's name).
func Read(path string, h Host) (*File, error) {
	data, err := ReadFileLimited(path, "a config file", maxConfigSize(path))
	if err != nil {
		return nil, err
	}
	return Parse(path, data, h)
}

// Parse is Read of bytes already in hand. With h "" the host is told from
// the file's name, or, when the name says nothing (cline_mcp_settings.json,
// a file of one's own), from its contents: see [guessFromContents].
func Parse(path string, data []byte, h Host) (*File, error) {
	if h == Codex || h == "" && strings.EqualFold(filepath.Ext(path), ".toml") {
		return parseCodex(path, data)
	}
	if ext := strings.ToLower(filepath.Ext(path)); h == Continue || h == Goose || h == "" && (ext == ".yaml" || ext == ".yml") {
		if g, _ := GuessHost(path); h == "" && (g == Continue || g == Goose) {
			h = g
		}
		return parseYAMLConfig(path, data, h)
	}
	root, err := parseJSONC(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if root.kind != '{' {
		return nil, fmt.Errorf("%s: the top level is not an object", path)
	}
	guessed := ""
	if h == "" {
		g, ok := GuessHost(path)
		if !ok {
			if g, guessed = sharedFormatFile(path, root); g == "" {
				g, guessed = guessFromContents(root)
			}
		} else if g == ClaudeCode && root.get("mcpServers") == nil && root.get("projects") == nil && root.get("servers") != nil {
			// A .mcp.json with a "servers" list is Visual Studio's (2022
			// 17.14 and later read %USERPROFILE%\.mcp.json and the
			// solution's .mcp.json in VS Code's format), not Claude Code's.
			g, guessed = VSCode, "read as Visual Studio's .mcp.json, VS Code's format (a \"servers\" list, no \"mcpServers\"); --host says otherwise"
		}
		if g == "" {
			return nil, fmt.Errorf("%s: %w (no \"mcpServers\" or \"servers\" member), and its name does not say which host's file it is; say which with --host", path, ErrNoServers)
		}
		h = g
	}
	f := &File{Path: path, Host: h, Data: data, Guessed: guessed}
	if guessed == "" {
		f.NotStrict = strictness(h, data)
	}
	servers := root.get(h.serversKey())
	if h == VSCode && servers == nil {
		if servers = root.get("mcpServers"); servers == nil {
			servers = root.get("mcp").get("servers") // settings.json's "mcp" section
		}
	}
	f.Entries = append(f.Entries, entriesOf(servers, h, "")...)
	if h == GeminiCLI {
		geminiAllowed(root, f.Entries)
	}
	if h == ClaudeCode { // ~/.claude.json: per-project lists too
		if projects := root.get("projects"); projects != nil && projects.kind == '{' {
			for _, m := range projects.members {
				f.Entries = append(f.Entries, entriesOf(m.value.get("mcpServers"), h, m.key)...)
			}
		}
	}
	f.numberLines()
	if len(f.Entries) == 0 && servers == nil && root.get("projects") == nil {
		return f, fmt.Errorf("%s: %w (no %q member)", path, ErrNoServers, h.serversKey())
	}
	return f, nil
}

// strictness says where data stops being strict JSON, for the hosts that
// parse their files with JSON.parse: Claude Desktop ("There was an error
// reading or parsing claude_desktop_config.json: Unexpected token ','
// ...") and Claude Code (a file with a trailing comma is "Invalid or
// malformed JSON" and skipped entirely). "" for the others (VS Code reads
// JSONC), and for a file that is strict JSON. A UTF-8 byte order mark
// (what Notepad and PowerShell 5.1's Set-Content -Encoding UTF8 write)
// fails Claude Desktop's parse too, which then starts none of the servers
// and may rewrite the file without its mcpServers (reported in
// tradesdontlie/tradingview-mcp#406, homeassistant-ai/ha-mcp#281, 2025-12
// to 2026-07); Claude Code's CLI reads it (anthropics/claude-code#81355,
// 2.1.219), so there it passes.
func strictness(h Host, data []byte) string {
	if h != ClaudeDesktop && h != ClaudeCode {
		return ""
	}
	if h == ClaudeDesktop && bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return "Claude Desktop reads this file as strict JSON and refuses one that starts with a UTF-8 byte order mark (EF BB BF), as this one does: it would start none of its servers, and may rewrite the file without them; save it as UTF-8 without BOM (linesman read it leniently)"
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if err == nil || !errors.As(err, &se) {
		return ""
	}
	at := int(se.Offset) - 1 // the offending byte
	at = max(0, min(at, len(data)-1))
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(data[:at], '\n')
	where := fmt.Sprintf("line %d, column %d", line, col)
	what := "it stops being strict JSON at " + where
	switch {
	case bytes.HasPrefix(data[at:], []byte("//")) || bytes.HasPrefix(data[at:], []byte("/*")):
		what = "a comment at " + where
	case data[at] == '}' || data[at] == ']':
		what = fmt.Sprintf("a trailing comma before the %q at %s", data[at], where)
	}
	return hostTitle(h) + " reads this file as strict JSON and would refuse it whole, starting none of its servers: " +
		what + " (linesman read it leniently)"
}

// hostTitle is a host's name in prose.
func hostTitle(h Host) string {
	switch h {
	case ClaudeDesktop:
		return "Claude Desktop"
	case ClaudeCode:
		return "Claude Code"
	case VSCode:
		return "VS Code"
	case Cursor:
		return "Cursor"
	case RooCode:
		return "Roo Code"
	case Windsurf:
		return "Windsurf"
	case Zed:
		return "Zed"
	case GeminiCLI:
		return "Gemini CLI"
	case OpenCode:
		return "opencode"
	case Codex:
		return "Codex"
	case Continue:
		return "Continue"
	case Goose:
		return "Goose"
	}
	return string(h)
}

// guessFromContents tells the format of a config file whose name says
// nothing from its members: "servers" (or a settings.json "mcp" section)
// is VS Code's; "projects" at the top is ~/.claude.json's; "mcpServers" is
// the format most hosts share (Claude Desktop, Cline, Roo Code, Gemini
// CLI, ...), read as Claude Desktop reads it: every value taken literally,
// no variables expanded. It returns "" when there is no server list.
func guessFromContents(root *node) (Host, string) {
	switch {
	case root.get("mcpServers") == nil && root.get("context_servers") != nil:
		return Zed, "read as Zed's settings (a \"context_servers\" list); --host says otherwise"
	case root.get("mcpServers") == nil && (root.get("servers") != nil || root.get("mcp").get("servers") != nil):
		return VSCode, "read as VS Code's format (a \"servers\" list); --host says otherwise"
	case root.get("projects") != nil && root.get("mcpServers") == nil:
		return ClaudeCode, "read as Claude Code's ~/.claude.json (its \"projects\" member); --host says otherwise"
	case root.get("mcpServers") != nil:
		return ClaudeDesktop, "read as a plain \"mcpServers\" file, values taken literally as Claude Desktop takes them (no ${...} expanded); --host names a host that expands them"
	}
	return "", ""
}

// sharedFormatFile tells the file of a host that writes another's format
// ("mcpServers", as Claude Desktop and Cursor do) from its name and place,
// and says how it is read: "" when path is none of them, or the file has
// no "mcpServers".
func sharedFormatFile(path string, root *node) (Host, string) {
	if root.get("mcpServers") == nil {
		return "", ""
	}
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	up := filepath.Base(filepath.Dir(filepath.Dir(path)))
	switch {
	case base == "cline_mcp_settings.json":
		return ClaudeDesktop, "read as Cline's MCP settings, values taken literally as Cline takes them; --host says otherwise"
	case base == "mcp.json" && dir == "settings" && up == ".kiro":
		// kiro.dev/docs/mcp/security: "Kiro only expands environment
		// variables that are explicitly approved", an approval linesman
		// cannot see.
		return ClaudeDesktop, "read as Kiro's mcp.json, values taken literally: Kiro expands a ${VAR} only when the variable is approved in its settings; --host claude-code expands every ${VAR}"
	}
	return "", ""
}

func entriesOf(servers *node, h Host, scope string) []Entry {
	if servers == nil || servers.kind != '{' {
		return nil
	}
	// Of two servers of one name, the host keeps the later: JSON.parse and
	// the JSONC readers build an object, where the last member wins.
	last := map[string]int{}
	for i, m := range servers.members {
		last[m.key] = i
	}
	var out []Entry
	for i, m := range servers.members {
		if last[m.key] != i {
			continue
		}
		e := entryOf(m.key, m.value, h, scope)
		e.keyAt = m.keyStart
		out = append(out, e)
	}
	return out
}

func entryOf(name string, obj *node, h Host, scope string) Entry {
	e := Entry{Name: name, Host: h, Scope: scope, obj: obj, Transport: "stdio"}
	if obj.kind != '{' {
		e.Note = "not an object"
		return e
	}
	switch h {
	case Zed:
		var done bool
		if e, done = zedEntry(e, obj); done {
			return e
		}
		obj = e.obj
	case OpenCode:
		return openCodeEntry(e, obj)
	}
	str := func(key string) string {
		if v := obj.get(key); v != nil && v.kind == '"' {
			return v.str
		}
		return ""
	}
	e.Command, e.EnvFile, e.Cwd = str(e.commandKey()), str("envFile"), str("cwd")
	badArgs := false // the hosts' schemas want an array of strings, and refuse the server else
	if v := obj.get("args"); v != nil && v.kind == '[' {
		for _, a := range v.elems {
			e.Args = append(e.Args, a.str)
			badArgs = badArgs || a.kind != '"'
		}
	} else if v != nil && v.kind != 'z' {
		badArgs = true
	}
	if v := obj.get("env"); v != nil && v.kind == '{' {
		for _, m := range v.members {
			e.Env = append(e.Env, EnvVar{Name: m.key, Value: m.value.str})
		}
	}
	if v := obj.get("disabled"); v != nil && v.kind == 't' {
		e.Disabled = true
	}
	typ := transportType(cmp.Or(str("type"), str("transportType")))
	url := cmp.Or(str("url"), str("serverUrl"), str("httpUrl")) // serverUrl: Windsurf; httpUrl: Gemini CLI
	if h == GeminiCLI && typ == "" && url != "" {
		// Gemini CLI picks the transport by the first of httpUrl
		// (streamable HTTP), url (SSE), command (stdio) an entry has
		// (docs/tools/mcp-server.md, "Transport selection").
		typ = "sse"
		if str("httpUrl") != "" {
			typ = "http"
		}
	}
	switch {
	case typ == "http" || typ == "sse" || (typ == "" && url != "" && e.Command == ""):
		e.Transport = "http"
		if typ == "sse" {
			e.Transport = "sse"
		}
		e.Note = "a remote (" + e.Transport + ") server: linesman speaks stdio only; skipped"
	case strings.TrimSpace(e.Command) == "":
		e.Note = "no command"
	case typ != "" && typ != "stdio":
		e.Note = fmt.Sprintf("unknown type %q", typ)
	case badArgs:
		e.Note = "its \"args\" is not an array of strings, which the host refuses"
	}
	return e
}

// typeSeparators are taken out of a type's spelling (one replacer for all:
// building one costs more than using it).
var typeSeparators = strings.NewReplacer("-", "", "_", "")

// transportType is an entry's "type" as one of "stdio", "http" or "sse",
// whatever its spelling in the hosts' files ("streamable-http",
// "streamableHttp", "streamable_http" are all HTTP; Copilot CLI's
// "local" is stdio, docs.github.com "Adding MCP servers for GitHub
// Copilot CLI"); another type is
// returned as written, lower-cased.
func transportType(t string) string {
	switch n := typeSeparators.Replace(strings.ToLower(t)); n {
	case "stdio", "http", "sse":
		return n
	case "local": // GitHub Copilot CLI's ~/.copilot/mcp-config.json: "type": "local" (or "stdio")
		return "stdio"
	case "streamablehttp", "https":
		return "http"
	}
	return strings.ToLower(t)
}

// Find returns the entry named name (in any scope, the file's own first).
func (f *File) Find(name string) (Entry, bool) {
	for _, e := range f.Entries {
		if e.Name == name && e.Scope == "" {
			return e, true
		}
	}
	for _, e := range f.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// FindIn is [File.Find] for a run in the project directory workspace: the
// entry of that project's own list in ~/.claude.json comes first, as
// Claude Code's local scope wins over its user scope ("local-scoped
// servers first, followed by project-scoped servers, and finally
// user-scoped servers": code.claude.com/docs/en/mcp, "Scope hierarchy and
// precedence").
func (f *File) FindIn(name, workspace string) (Entry, bool) {
	if workspace != "" {
		for _, e := range f.Entries {
			if e.Name == name && e.Scope != "" && filepath.Clean(filepath.FromSlash(e.Scope)) == filepath.Clean(workspace) {
				return e, true
			}
		}
	}
	return f.Find(name)
}

// Names returns the names of the entries, sorted, each once.
func (f *File) Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range f.Entries {
		if !seen[e.Name] {
			seen[e.Name] = true
			out = append(out, e.Name)
		}
	}
	sort.Strings(out)
	return out
}
