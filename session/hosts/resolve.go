package hosts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Server is an entry resolved the way its host would start it.
type Server struct {
	Name    string
	Command []string // argv
	// Env holds the variables the entry sets (envFile first, then env),
	// KEY=VALUE, to put on top of the inherited environment. Never print
	// the values: EnvNames are for showing.
	Env      []string
	EnvNames []string
	Dir      string // "" = the current directory
}

// UnresolvedError says that a value uses a form linesman cannot resolve
// without guessing (a VS Code ${input:...} prompt, an unset variable with
// no default, ...). It names the field and the form, never a value.
type UnresolvedError struct {
	Server string
	Field  string // "command", "args[2]", "env.API_KEY", "cwd", "envFile"
	Form   string // the ${...} as written
	Reason string
}

func (e *UnresolvedError) Error() string {
	return fmt.Sprintf("server %q: %s: %s %s", e.Server, e.Field, e.Form, e.Reason)
}

// Resolve turns e, read from f, into the server its host would start,
// expanding the variable forms that host documents.
func (f *File) Resolve(e Entry, env Env) (Server, error) {
	if e.Note != "" {
		return Server{}, fmt.Errorf("server %q: %s", e.Name, e.Note)
	}
	r := resolver{host: e.Host, env: env, server: e.Name, workspace: f.workspace(e, env), configDir: filepath.Dir(f.Path)}
	s := Server{Name: e.Name}
	cmd, err := r.expand("command", e.Command)
	if err != nil {
		return Server{}, err
	}
	s.Command = append(s.Command, cmd)
	for i, a := range e.Args {
		v, err := r.expand(fmt.Sprintf("args[%d]", i), a)
		if err != nil {
			return Server{}, err
		}
		s.Command = append(s.Command, v)
	}
	if e.Cwd == "" && e.Host == RooCode {
		s.Dir = r.workspace // Roo Code starts a server in the first workspace folder when no cwd says
	}
	if e.Cwd != "" {
		if s.Dir, err = r.expand("cwd", e.Cwd); err != nil {
			return Server{}, err
		}
		if !filepath.IsAbs(s.Dir) && r.workspace != "" {
			s.Dir = filepath.Join(r.workspace, s.Dir)
		}
	}
	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	if e.EnvFile != "" {
		if err := r.envFile(e.EnvFile, set); err != nil {
			return Server{}, err
		}
	}
	for _, name := range e.Forward {
		if v, ok := r.getenv(name); ok {
			set(name, v)
		}
	}
	for _, kv := range e.Env {
		v, err := r.expand("env."+kv.Name, kv.Value)
		if err != nil {
			return Server{}, err
		}
		set(kv.Name, v)
	}
	for _, k := range order {
		s.Env = append(s.Env, k+"="+vars[k])
		s.EnvNames = append(s.EnvNames, k)
	}
	return s, nil
}

// workspace is the folder ${workspaceFolder} means for e: the project of a
// project file, the project a ~/.claude.json list belongs to, else env's.
func (f *File) workspace(e Entry, env Env) string {
	if e.Scope != "" {
		return e.Scope
	}
	path, err := filepath.Abs(f.Path)
	if err != nil {
		path = f.Path
	}
	dir := filepath.Dir(path)
	switch base := filepath.Base(dir); {
	case filepath.Base(path) == ".mcp.json":
		return dir
	case base == ".vscode" || base == ".cursor" || base == ".roo":
		return filepath.Dir(dir)
	}
	if env.Workspace != "" {
		return env.Workspace
	}
	wd, _ := os.Getwd()
	return wd
}

type resolver struct {
	host      Host
	env       Env
	server    string
	workspace string
	configDir string // the directory of the config file (opencode's {file:...})
}

func (r *resolver) getenv(name string) (string, bool) {
	if r.env.Getenv != nil {
		return r.env.Getenv(name)
	}
	return os.LookupEnv(name)
}

// expand replaces every ${...} form of s that r's host documents.
func (r *resolver) expand(field, s string) (string, error) {
	switch r.host {
	case GeminiCLI:
		return r.expandGemini(s), nil
	case OpenCode:
		return r.expandOpenCode(field, s)
	case RooCode:
		return r.expandRoo(s), nil
	}
	if r.host == Continue {
		return s, continueTemplate(field, r.server, s)
	}
	if r.host == ClaudeDesktop || r.host == Zed || r.host == Codex || r.host == Goose || !strings.Contains(s, "${") {
		return s, nil // Claude Desktop, Zed, Codex and Goose document no expansion: values are literal
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		form := s[i : i+j+1]
		v, err := r.variable(form[2 : len(form)-1])
		if err != nil {
			err.Server, err.Field, err.Form = r.server, field, form
			return "", err
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// variable resolves the inside of one ${...} form for r's host.
func (r *resolver) variable(in string) (string, *UnresolvedError) {
	if r.host == ClaudeCode { // ${VAR} and ${VAR:-default}
		name, def, hasDef := strings.Cut(in, ":-")
		if v, ok := r.getenv(name); ok {
			return v, nil
		}
		if name == "CLAUDE_PLUGIN_ROOT" {
			// A plugin's .mcp.json, at the plugin's root: Claude Code sets
			// it to that directory for the plugin's servers
			// (code.claude.com/docs/en/plugins-reference, "Environment variables").
			if abs, err := filepath.Abs(r.configDir); err == nil {
				return abs, nil
			}
			return r.configDir, nil
		}
		if hasDef {
			return def, nil
		}
		return "", &UnresolvedError{Reason: "names a variable that is not set and has no default (${VAR:-default}); Claude Code would not start this server either"}
	}
	kind, arg, _ := strings.Cut(in, ":")
	switch kind {
	case "env":
		if v, ok := r.getenv(arg); ok {
			return v, nil
		}
		return "", nil // VS Code and Cursor put an empty string for an unset variable
	case "file":
		if r.host == Windsurf {
			b, err := ReadFileLimited(arg, "a {file:…} value", MaxNamedFile)
			if err != nil {
				return "", &UnresolvedError{Reason: "names a file that cannot be read: " + err.Error()}
			}
			v := strings.TrimRight(string(b), "\r\n")
			rememberFileValue(v)
			return v, nil
		}
	case "input":
		return "", &UnresolvedError{Reason: "is an input VS Code asks the user for when it starts the server; linesman cannot answer it — put the value in env (or run linesman with it set and use ${env:NAME})"}
	case "command", "config":
		return "", &UnresolvedError{Reason: "needs the editor itself to resolve; linesman does not guess it"}
	}
	if r.host == Windsurf {
		return "", &UnresolvedError{Reason: "is not a form Windsurf documents (${env:NAME}, ${file:PATH})"}
	}
	switch in {
	case "workspaceFolder":
		return r.workspace, nil
	case "workspaceFolderBasename":
		return filepath.Base(r.workspace), nil
	case "userHome":
		return r.env.Home, nil
	case "pathSeparator", "/":
		return string(filepath.Separator), nil
	}
	return "", &UnresolvedError{Reason: "is not a variable linesman knows how to resolve for " + string(r.host)}
}

// envFile reads a dotenv file into set as VS Code's parseEnvFile
// (src/vs/base/common/envfile.ts) reads one: each line trimmed, blank and
// "#" lines passed over, an "export " prefix dropped, the key before the
// first "=" or ":" outside quotes (a line with neither is passed over, not
// an error), the value cut at the first "#" outside quotes, and one pair of
// ", ' or ` quotes taken off, \n and \r made line breaks inside "…" (and
// no other escape).
func (r *resolver) envFile(path string, set func(k, v string)) error {
	p, err := r.expand("envFile", path)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(p) && r.workspace != "" {
		p = filepath.Join(r.workspace, p)
	}
	data, err := ReadFileLimited(p, "an envFile", MaxNamedFile)
	if err != nil {
		return fmt.Errorf("server %q: envFile: %w", r.server, err)
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export "); ok {
			line = strings.TrimSpace(rest)
		}
		sep := indexOutsideQuotes(line, "=:")
		if sep < 0 {
			continue
		}
		k, v := strings.TrimSpace(line[:sep]), strings.TrimSpace(line[sep+1:])
		if k == "" {
			continue
		}
		if c := indexOutsideQuotes(v, "#"); c >= 0 {
			v = strings.TrimSpace(v[:c])
		}
		if len(v) >= 2 && strings.ContainsRune("\"'`", rune(v[0])) && v[len(v)-1] == v[0] {
			q := v[0]
			v = v[1 : len(v)-1]
			if q == '"' {
				v = strings.NewReplacer(`\n`, "\n", `\r`, "\r").Replace(v)
			}
		}
		rememberFileValue(v)
		set(k, v)
	}
	return nil
}

// indexOutsideQuotes is the index of the first byte of s among chars that
// is not inside "…", '…' or `…` (a quote preceded by a backslash does not
// close one), or -1.
func indexOutsideQuotes(s, chars string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote && s[i-1] != '\\' {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case strings.IndexByte(chars, c) >= 0:
			return i
		}
	}
	return -1
}

// expandRoo expands s as Roo Code's McpHub does before it starts a
// server (src/utils/config.ts, injectVariables, called with env and
// workspaceFolder only): ${env:NAME} (NAME of word characters) takes the
// variable's value and is left as written when it is not set;
// ${workspaceFolder} is the first workspace folder; nothing else is
// expanded.
func (r *resolver) expandRoo(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		j := strings.IndexByte(s[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(s)
			return b.String()
		}
		form := s[i : i+j+1]
		b.WriteString(s[:i])
		inner := form[2 : len(form)-1]
		name, isEnv := strings.CutPrefix(inner, "env:")
		v, ok := "", false
		switch {
		case inner == "workspaceFolder":
			v, ok = r.workspace, true
		case isEnv && name != "" && strings.Trim(name, "_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "":
			v, ok = r.getenv(name)
		}
		if !ok {
			v = form
		}
		b.WriteString(v)
		s = s[i+len(form):]
	}
}

// expandGemini expands s as Gemini CLI expands every string of its
// settings: $VAR and ${VAR} take the variable's value, and a variable that
// is not set is left as written ("String values within your settings.json
// files can reference environment variables using either $VAR_NAME or
// ${VAR_NAME} syntax").
func (r *resolver) expandGemini(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 || i == len(s)-1 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		name, form := "", ""
		if s[i+1] == '{' {
			if j := strings.IndexByte(s[i:], '}'); j > 0 {
				name, form = s[i+2:i+j], s[i:i+j+1]
			}
		} else {
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			name, form = s[i+1:j], s[i:j]
		}
		v, ok := r.getenv(name)
		switch {
		case form == "" || name == "":
			form = "$"
			b.WriteString(form)
		case ok:
			b.WriteString(v)
		default:
			b.WriteString(form)
		}
		s = s[i+len(form):]
	}
}

// expandOpenCode expands s as opencode expands its config's strings:
// {env:NAME} takes the variable's value ("" when it is not set, as
// opencode puts it), {file:PATH} the file's contents (PATH relative to the
// config file's directory, ~/ to the home directory).
func (r *resolver) expandOpenCode(field, s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "{")
		j := strings.IndexByte(s[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		form := s[i : i+j+1]
		kind, arg, _ := strings.Cut(form[1:len(form)-1], ":")
		b.WriteString(s[:i])
		switch kind {
		case "env":
			v, _ := r.getenv(arg)
			b.WriteString(v)
		case "file":
			p := arg
			if rest, ok := strings.CutPrefix(p, "~/"); ok {
				p = filepath.Join(r.env.Home, rest)
			} else if !filepath.IsAbs(p) {
				p = filepath.Join(r.configDir, p)
			}
			data, err := ReadFileLimited(p, "a {file:…} value", MaxNamedFile)
			if err != nil {
				return "", &UnresolvedError{Server: r.server, Field: field, Form: form, Reason: "names a file that cannot be read: " + err.Error()}
			}
			v := strings.TrimSpace(string(data))
			rememberFileValue(v)
			b.WriteString(v)
		default:
			b.WriteString(form)
		}
		s = s[i+len(form):]
	}
}
