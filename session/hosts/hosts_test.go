package hosts

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The fixtures under testdata/ are one config per host, in the shapes the
// hosts' documentation shows (see docs/hosts.md): comments and trailing commas
// where the format allows them, variables, remote entries.
var fixtures = []struct {
	path string
	host Host
}{
	{"testdata/claude-desktop/claude_desktop_config.json", ClaudeDesktop},
	{"testdata/claude-code/proj/.mcp.json", ClaudeCode},
	{"testdata/claude-code/home/.claude.json", ClaudeCode},
	{"testdata/vscode/ws/.vscode/mcp.json", VSCode},
	{"testdata/cursor/ws/.cursor/mcp.json", Cursor},
	{"testdata/windsurf/mcp_config.json", Windsurf},
	{"testdata/zed/config/zed/settings.json", Zed},
	{"testdata/gemini/ws/.gemini/settings.json", GeminiCLI},
	{"testdata/opencode/ws/opencode.jsonc", OpenCode},
	// Visual Studio's .mcp.json: named like Claude Code's, read by its
	// "servers" list as VS Code's format.
	{"testdata/visual-studio/sln/.mcp.json", VSCode},
	{"testdata/roo-code/ws/.roo/mcp.json", RooCode},
}

func testEnv(t *testing.T) Env {
	vars := map[string]string{
		"DATABASE_URL":        "postgres://db",
		"DB_TOKEN":            "tok",
		"LINESMAN_TEST_USER":  "ada",
		"LINESMAN_TEST_TOKEN": "t0ken",
	}
	return Env{GOOS: "linux", Home: "/home/me", Getenv: func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}}
}

func read(t *testing.T, path string) *File {
	t.Helper()
	if _, ok := GuessHost(path); !ok {
		t.Fatalf("GuessHost(%s) failed", path)
	}
	f, err := Read(path, "") // as --config FILE reads it
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReadListsEveryEntry(t *testing.T) {
	want := map[string][]string{
		"testdata/claude-desktop/claude_desktop_config.json": {"bare", "filesystem", "weather"},
		"testdata/claude-code/proj/.mcp.json":                {"db", "empty-args", "needs-unset", "remote"},
		"testdata/claude-code/home/.claude.json":             {"global-tool", "work-db"},
		"testdata/vscode/ws/.vscode/mcp.json":                {"github", "local", "remote"},
		"testdata/cursor/ws/.cursor/mcp.json":                {"notes", "remote"},
		"testdata/windsurf/mcp_config.json":                  {"github", "secret-file", "zapier"},
		"testdata/zed/config/zed/settings.json":              {"from-extension", "legacy-style", "notes", "off", "remote"},
		"testdata/gemini/ws/.gemini/settings.json":           {"experimental", "local", "remote", "remote-sse"},
		"testdata/opencode/ws/opencode.jsonc":                {"everything", "off", "remote"},
		"testdata/visual-studio/sln/.mcp.json":               {"ado", "fs", "remote"},
		"testdata/roo-code/ws/.roo/mcp.json":                 {"files", "github", "off", "remote"},
	}
	for _, fx := range fixtures {
		f := read(t, fx.path)
		if f.Host != fx.host {
			t.Errorf("%s: host %s, want %s", fx.path, f.Host, fx.host)
		}
		if got := f.Names(); !slices.Equal(got, want[fx.path]) {
			t.Errorf("%s: entries %v, want %v", fx.path, got, want[fx.path])
		}
		for _, e := range f.Entries {
			remote := strings.HasPrefix(e.Name, "remote") || e.Name == "zapier"
			if remote != (e.Transport != "stdio") || (remote || e.Name == "from-extension") != (e.Note != "") {
				t.Errorf("%s: %s: transport %q, note %q", fx.path, e.Name, e.Transport, e.Note)
			}
		}
	}
}

func TestResolveAsTheHostWould(t *testing.T) {
	env := testEnv(t)
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	vsws := abs("testdata/vscode/ws")
	cases := []struct {
		path, name string
		argv       []string
		env        []string
		dir        string
	}{
		{"testdata/claude-desktop/claude_desktop_config.json", "weather",
			[]string{"uv", "--directory", "/opt/weather", "run", "weather.py"}, []string{"WEATHER_API_KEY=secret-weather-value"}, ""},
		{"testdata/claude-code/proj/.mcp.json", "db",
			[]string{"/opt/tools/db-server", "--url", "postgres://db"}, []string{"DB_TOKEN=tok", "LOG_LEVEL=info"}, ""},
		{"testdata/claude-code/home/.claude.json", "work-db",
			[]string{"pg-mcp", "--dbname", "work"}, []string{"PGPASSWORD=hunter2"}, ""},
		{"testdata/vscode/ws/.vscode/mcp.json", "local",
			[]string{vsws + "/bin/server", "--root", vsws, "--home", "/home/me", "--user", "ada"},
			[]string{"API_KEY=from-env-file", "REGION=eu-west-1", "MODE=dev"}, vsws + "/run"},
		{"testdata/cursor/ws/.cursor/mcp.json", "notes",
			[]string{"node", "/home/me/notes/server.js", "--sep", "/"}, []string{"NOTES_DB=/var/notes.db", "NOTES_TOKEN=t0ken"}, ""},
		{"testdata/windsurf/mcp_config.json", "github",
			[]string{"npx", "-y", "@modelcontextprotocol/server-github"}, []string{"GITHUB_PERSONAL_ACCESS_TOKEN=t0ken"}, ""},
		// Zed expands nothing: ${literal} is passed as written.
		{"testdata/zed/config/zed/settings.json", "notes",
			[]string{"node", "/home/me/notes/server.js", "--sep", "${literal}"}, []string{"NOTES_TOKEN=zed-secret-token"}, ""},
		{"testdata/zed/config/zed/settings.json", "legacy-style",
			[]string{"python3", "-m", "legacy_server"}, []string{"LEGACY_KEY=zed-legacy-secret"}, ""},
		// Gemini CLI expands $VAR and ${VAR} everywhere, and leaves unset ones as written.
		{"testdata/gemini/ws/.gemini/settings.json", "local",
			[]string{"uvx", "--from", "ada-tools", "serve", "$NOT_SET_ANYWHERE", "cost: $5"}, []string{"API_TOKEN=t0ken"}, "/srv/tools"},
		// opencode: {env:NAME} ("" when unset), {file:PATH} beside the config.
		{"testdata/opencode/ws/opencode.jsonc", "everything",
			[]string{"npx", "-y", "@modelcontextprotocol/server-everything", "--user", "ada"},
			[]string{"API_TOKEN=tok", "FROM_FILE=opencode-file-secret", "UNSET=", "LITERAL=opencode-env-secret"}, ""},
	}
	for _, tc := range cases {
		f := read(t, tc.path)
		e, ok := f.Find(tc.name)
		if !ok {
			t.Fatalf("%s: no %s", tc.path, tc.name)
		}
		s, err := f.Resolve(e, env)
		if err != nil {
			t.Errorf("%s %s: %v", tc.path, tc.name, err)
			continue
		}
		if !slices.Equal(s.Command, tc.argv) || !slices.Equal(s.Env, tc.env) || s.Dir != tc.dir {
			t.Errorf("%s %s:\n got %q %q %q\nwant %q %q %q", tc.path, tc.name, s.Command, s.Env, s.Dir, tc.argv, tc.env, tc.dir)
		}
	}
}

// A form that cannot be resolved is named, with the field and why, and
// never with a value.
func TestResolveSaysWhatItCannotResolve(t *testing.T) {
	env := testEnv(t)
	cases := []struct{ path, name, field, form string }{
		{"testdata/vscode/ws/.vscode/mcp.json", "github", "env.GITHUB_TOKEN", "${input:github-token}"},
		{"testdata/claude-code/proj/.mcp.json", "needs-unset", "args[0]", "${NOT_SET_ANYWHERE}"},
		{"testdata/windsurf/mcp_config.json", "secret-file", "env.KEY", "${file:/nonexistent/linesman-test-key}"},
	}
	for _, tc := range cases {
		f := read(t, tc.path)
		e, _ := f.Find(tc.name)
		_, err := f.Resolve(e, env)
		var ue *UnresolvedError
		if !errors.As(err, &ue) || ue.Field != tc.field || ue.Form != tc.form {
			t.Errorf("%s %s: %v; want an UnresolvedError for %s %s", tc.path, tc.name, err, tc.field, tc.form)
		}
	}
	f := read(t, "testdata/vscode/ws/.vscode/mcp.json")
	e, _ := f.Find("remote")
	if _, err := f.Resolve(e, env); err == nil || !strings.Contains(err.Error(), "remote (http) server") {
		t.Errorf("remote entry: %v; want the note that it is skipped", err)
	}
}

// Wrap then unwrap gives back every fixture byte for byte; wrapping twice
// changes nothing the second time; and the wrapped entries resolve to the
// tap in front of the original command.
func TestWrapUnwrapRoundTrip(t *testing.T) {
	const bin = "/opt/linesman/bin/linesman"
	for _, fx := range fixtures {
		t.Run(fx.path, func(t *testing.T) {
			f := read(t, fx.path)
			wrapped, changes := f.Wrap(bin, nil)
			if string(wrapped) == string(f.Data) {
				t.Fatal("wrap changed nothing")
			}
			wf, err := Parse(fx.path, wrapped, fx.host)
			if err != nil {
				t.Fatalf("the wrapped file does not parse: %v\n%s", err, wrapped)
			}
			for _, c := range changes {
				e, _ := f.Find(c.Name)
				if c.Done != (e.Note == "") {
					t.Errorf("%s: done %v (%s)", c.Name, c.Done, c.Why)
				}
				if !c.Done {
					continue
				}
				we, _ := wf.Find(c.Name)
				want := append([]string{bin, "tap", "--name", c.Name, "--", e.Command}, e.Args...)
				if got := append([]string{we.Command}, we.Args...); !slices.Equal(got, want) {
					t.Errorf("%s wrapped as %q, want %q", c.Name, got, want)
				}
				if !slices.Equal(we.Env, e.Env) || we.Cwd != e.Cwd || we.EnvFile != e.EnvFile {
					t.Errorf("%s: env, cwd or envFile changed by the wrap", c.Name)
				}
			}
			again, changes2 := wf.Wrap(bin, nil)
			if string(again) != string(wrapped) {
				t.Errorf("wrapping twice changed the file again")
			}
			for _, c := range changes2 {
				if c.Done {
					t.Errorf("%s wrapped twice", c.Name)
				}
			}
			back, _ := wf.Unwrap(nil)
			if string(back) != string(f.Data) {
				t.Errorf("unwrap did not restore the file:\n%s", Diff(fx.path, f.Data, back))
			}
		})
	}
}

// Wrapping by name touches only the named entries, and an edit made to the
// file between wrap and unwrap survives the unwrap.
func TestWrapByNameKeepsTheRest(t *testing.T) {
	f := read(t, "testdata/claude-desktop/claude_desktop_config.json")
	wrapped, _ := f.Wrap("/bin/linesman", []string{"weather"})
	wf, _ := Parse(f.Path, wrapped, f.Host)
	for _, e := range wf.Entries {
		if IsWrapped(e) != (e.Name == "weather") {
			t.Errorf("%s: wrapped %v", e.Name, IsWrapped(e))
		}
	}
	edited := strings.Replace(string(wrapped), `"globalShortcut": "Ctrl+Space"`, `"globalShortcut": "Alt+Space"`, 1)
	ef, _ := Parse(f.Path, []byte(edited), f.Host)
	back, _ := ef.Unwrap(nil)
	want := strings.Replace(string(f.Data), "Ctrl+Space", "Alt+Space", 1)
	if string(back) != want {
		t.Errorf("unwrap lost an edit:\n%s", Diff(f.Path, []byte(want), back))
	}
}

// TestRedactedDiffHasNoSecrets: no secret in a wrap's diff, in its changed
// lines or its context (a Zed extension's token three lines from a wrapped
// entry; the API key and e-mail of a one-line ~/.claude.json, which is
// its own changed line).
func TestRedactedDiffHasNoSecrets(t *testing.T) {
	for _, fx := range fixtures {
		f := read(t, fx.path)
		wrapped, _ := f.Wrap("/bin/linesman", nil)
		a, ok1 := Redacted(fx.path, f.Data, fx.host)
		b, ok2 := Redacted(fx.path, wrapped, fx.host)
		if !ok1 || !ok2 {
			t.Fatalf("%s: redaction failed", fx.path)
		}
		d := Diff(fx.path, a, b)
		for _, secret := range []string{"secret-weather-value", "hunter2", "${DB_TOKEN}", "${input:github-token}", "zed-secret-token", "zed-legacy-secret", "zed-bearer-secret", "gemini-bearer-secret", "roo-header-secret", "opencode-bearer-secret", "opencode-env-secret", "opencode-argv-secret",
			"ghp_zedExtensionSecret0123", "claudeJsonSecret", "ada@example.com"} {
			if strings.Contains(d, secret) {
				t.Errorf("%s: the diff shows %q:\n%s", fx.path, secret, d)
			}
		}
		if !strings.Contains(d, "+") || !strings.Contains(d, `"tap"`) {
			t.Errorf("%s: the diff does not show the wrap:\n%s", fx.path, d)
		}
	}
}

// The same of a file read by its contents, with a secret in each place
// the hosts put one (url, serverUrl's and httpUrl's spellings, headers, env).
func TestRedactedDiffOfAGuessedFileHasNoSecrets(t *testing.T) {
	path := "testdata/other/cline_mcp_settings.json"
	f, err := Read(path, "")
	if err != nil {
		t.Fatal(err)
	}
	wrapped, _ := f.Wrap("/bin/linesman", nil)
	a, ok1 := Redacted(path, f.Data, f.Host)
	b, ok2 := Redacted(path, wrapped, f.Host)
	if !ok1 || !ok2 {
		t.Fatal("redaction failed")
	}
	d := Diff(path, a, b)
	for _, secret := range []string{"url-secret-1", "header-secret-2", "httpurl-secret-3", "env-secret-4",
		"arg-secret-5", "arg-secret-6", "arg-secret-7", "ghp_argsecret8"} {
		if !bytes.Contains(f.Data, []byte(secret)) {
			t.Fatalf("the fixture lost %q", secret)
		}
		if strings.Contains(d, secret) {
			t.Errorf("the diff shows %q:\n%s", secret, d)
		}
	}
	if !strings.Contains(d, `"tap"`) || !strings.Contains(d, `"keep-this-arg"`) || !strings.Contains(d, `"--verbose"`) {
		t.Errorf("the diff does not show the wrap, or hides what is no secret:\n%s", d)
	}
	back, _ := (&File{Path: path, Host: f.Host, Data: wrapped}).reparsed(t).Unwrap(nil)
	if !bytes.Equal(back, f.Data) {
		t.Errorf("wrap then unwrap is not the file:\n%s", Diff(path, f.Data, back))
	}
}

// reparsed parses f's data again (entries and all), failing t on error.
func (f *File) reparsed(t *testing.T) *File {
	t.Helper()
	g, err := Parse(f.Path, f.Data, f.Host)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSyntaxErrorsSayWhere(t *testing.T) {
	for _, bad := range []string{`{"mcpServers": {"a": {"command": }}}`, `{"mcpServers": {"a" {}}}`, `{"mcpServers": {} /* open`} {
		_, err := Parse("x/.mcp.json", []byte(bad), "")
		var se *SyntaxError
		if bad == `{"mcpServers": {} /* open` {
			if err == nil {
				t.Errorf("%q: no error", bad)
			}
			continue
		}
		if !errors.As(err, &se) || se.Line != 1 {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestDefaultLocations(t *testing.T) {
	env := Env{GOOS: "darwin", Home: "/Users/me", Workspace: "/w"}
	got := DefaultLocations(ClaudeDesktop, env)[0].Path
	if got != "/Users/me/Library/Application Support/Claude/claude_desktop_config.json" {
		t.Errorf("claude desktop on macOS: %s", got)
	}
	vs := DefaultLocations(VSCode, Env{GOOS: "linux", Home: "/home/me", Workspace: "/w"})
	if vs[0].Path != "/home/me/.config/Code/User/mcp.json" || vs[1].Path != "/home/me/.config/Code - Insiders/User/mcp.json" ||
		vs[2].Path != "/w/.vscode/mcp.json" || !vs[2].Project {
		t.Errorf("vscode on linux: %+v", vs)
	}
	for _, h := range Hosts {
		for _, l := range DefaultLocations(h, env) {
			if g, ok := GuessHost(l.Path); !ok || g != h {
				t.Errorf("%s: GuessHost(%s) = %s, %v", h, l.Path, g, ok)
			}
		}
	}
	// The variables that move a host's user file, and the MSIX package
	// Claude Desktop on Windows is installed as.
	vars := map[string]string{"XDG_CONFIG_HOME": "/xdg", "CODEX_HOME": "/codex-home", "CLAUDE_CONFIG_DIR": "/claude-dir"}
	linux := Env{GOOS: "linux", Home: "/home/me", Workspace: "/w", Getenv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	for h, want := range map[Host]string{
		Zed: "/xdg/zed/settings.json", OpenCode: "/xdg/opencode/opencode.json", VSCode: "/xdg/Code/User/mcp.json",
		Codex: "/codex-home/config.toml", ClaudeCode: "/claude-dir/.claude.json", ClaudeDesktop: "/xdg/Claude/claude_desktop_config.json",
	} {
		if got := DefaultLocations(h, linux)[0].Path; got != want {
			t.Errorf("%s with %v: %s, want %s", h, vars, got, want)
		}
	}
	win := DefaultLocations(ClaudeDesktop, Env{GOOS: "windows", Home: "/home/me", AppData: "/roaming", LocalAppData: "/local"})
	if len(win) != 2 || win[0].Path != "/local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json" ||
		win[1].Path != "/roaming/Claude/claude_desktop_config.json" {
		t.Errorf("claude desktop on windows: %+v", win)
	}
	// Claude Code's enterprise list, read in .mcp.json's format.
	if g, ok := GuessHost("/etc/claude-code/managed-mcp.json"); !ok || g != ClaudeCode {
		t.Errorf("managed-mcp.json: GuessHost = %s, %v", g, ok)
	}
	_ = os.Getenv
}

// Gemini CLI's transport is the first of httpUrl (HTTP), url (SSE) and
// command an entry has, and the servers its "mcp" settings exclude (or do
// not allow, when "allowed" names some) are not started: disabled.
func TestGeminiTransportsAndAllowList(t *testing.T) {
	f := read(t, "testdata/gemini/ws/.gemini/settings.json")
	want := map[string]struct {
		transport string
		disabled  bool
	}{"local": {"stdio", false}, "remote": {"http", false}, "remote-sse": {"sse", false}, "experimental": {"stdio", true}}
	for _, e := range f.Entries {
		if w := want[e.Name]; e.Transport != w.transport || e.Disabled != w.disabled {
			t.Errorf("%s: transport %q disabled %v; want %+v", e.Name, e.Transport, e.Disabled, w)
		}
	}
	for _, tc := range []struct{ settings, disabled string }{
		{`{"mcp": {"allowed": ["a"]}, "mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}`, "b"},
		{`{"mcp": {"allowed": []}, "mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}`, ""},
		{`{"allowMCPServers": ["b"], "excludeMCPServers": ["b"], "mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}`, "a b"},
		{`{"mcpServers": {"a": {"command": "x", "url": "http://h/sse"}, "b": {"command": "y"}}}`, ""},
	} {
		f, err := Parse("ws/.gemini/settings.json", []byte(tc.settings), "")
		if err != nil {
			t.Fatal(err)
		}
		var off []string
		for _, e := range f.Entries {
			if e.Disabled {
				off = append(off, e.Name)
			}
		}
		if strings.Join(off, " ") != tc.disabled {
			t.Errorf("%s: disabled %v, want %q", tc.settings, off, tc.disabled)
		}
		if e, _ := f.Find("a"); strings.Contains(tc.settings, "/sse") && e.Transport != "sse" {
			t.Errorf("%s: a command beside a url: transport %q, want sse (url comes first)", tc.settings, e.Transport)
		}
	}
}

// GitHub Copilot CLI's ~/.copilot/mcp-config.json, read by its contents:
// "type": "local" is a stdio server as "stdio" is, started, not refused as
// an unknown type.
func TestCopilotCLILocalIsStdio(t *testing.T) {
	f, err := Read("testdata/copilot-cli/.copilot/mcp-config.json", "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"playwright": "stdio", "fs": "stdio", "github": "http"}
	for _, e := range f.Entries {
		if e.Transport != want[e.Name] || (e.Transport == "stdio") != (e.Note == "") {
			t.Errorf("%s: transport %q note %q, want %s", e.Name, e.Transport, e.Note, want[e.Name])
		}
	}
	e, _ := f.Find("playwright")
	if s, err := f.Resolve(e, testEnv(t)); err != nil || !slices.Equal(s.Command, []string{"npx", "@playwright/mcp@latest"}) {
		t.Errorf("playwright: %q, %v", s.Command, err)
	}
}

// The files of hosts that write another's format are told by their name
// and place and read as their host reads them: Roo Code's ${env:NAME}
// (left as written when unset) and ${workspaceFolder} (the folder the .roo
// directory is in, and the directory a server starts in when no cwd says)
// expanded and nothing else, Kiro's values literal (it expands only the
// variables approved in its settings), and the stderr note says which.
func TestSharedFormatFiles(t *testing.T) {
	ws, _ := filepath.Abs("testdata/roo-code/ws")
	readAny := func(path string) *File {
		f, err := Read(path, "")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	roo := read(t, "testdata/roo-code/ws/.roo/mcp.json")
	if roo.Host != RooCode {
		t.Fatalf("roo: host %s", roo.Host)
	}
	for name, want := range map[string]Server{
		"github": {Command: []string{"npx", "-y", "@modelcontextprotocol/server-github"}, Env: []string{"GITHUB_PERSONAL_ACCESS_TOKEN=t0ken"}, Dir: ws},
		"files":  {Command: []string{"node", ws + "/tools/fs-server.js", "${env:NOT_SET_ANYWHERE}", "${userHome}"}, Dir: ws},
	} {
		e, _ := roo.Find(name)
		s, err := roo.Resolve(e, testEnv(t))
		if err != nil || !slices.Equal(s.Command, want.Command) || !slices.Equal(s.Env, want.Env) || s.Dir != want.Dir {
			t.Errorf("roo %s: %q %q %q, %v; want %q %q %q", name, s.Command, s.Env, s.Dir, err, want.Command, want.Env, want.Dir)
		}
	}
	if e, _ := roo.Find("off"); !e.Disabled {
		t.Error("roo: off not disabled")
	}
	if g, ok := GuessHost("/home/me/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"); !ok || g != RooCode {
		t.Errorf("Roo Code's global settings: %s, %v", g, ok)
	}
	kiro := readAny("testdata/kiro/ws/.kiro/settings/mcp.json")
	e, _ := kiro.Find("web-search")
	s, err := kiro.Resolve(e, testEnv(t))
	if kiro.Host != ClaudeDesktop || !strings.Contains(kiro.Guessed, "Kiro") || err != nil || !slices.Equal(s.Env, []string{"BRAVE_API_KEY=${BRAVE_API_KEY}"}) {
		t.Errorf("kiro: host %s, note %q, env %q, %v", kiro.Host, kiro.Guessed, s.Env, err)
	}
	cline, err := Parse("x/cline_mcp_settings.json", []byte(`{"mcpServers":{}}`), "")
	if err != nil || cline.Host != ClaudeDesktop || !strings.Contains(cline.Guessed, "Cline") {
		t.Errorf("cline: %+v, %v", cline, err)
	}

}

// A file whose name does not say its host (Cline's, a settings.json, one's
// own) is read by its contents, and the File says how.
func TestParseGuessesTheFormatFromContents(t *testing.T) {
	f, err := Read("testdata/other/cline_mcp_settings.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if f.Host != ClaudeDesktop || !strings.Contains(f.Guessed, "Cline's MCP settings, values taken literally") {
		t.Fatalf("host %q, guessed %q; want Cline's file read as Claude Desktop's", f.Host, f.Guessed)
	}
	want := map[string]struct {
		transport string
		disabled  bool
	}{
		"github.com/modelcontextprotocol/servers/tree/main/src/memory": {"stdio", false},
		"remote-streamable": {"http", false},
		"remote-sse":        {"sse", false},
		"gemini-remote":     {"http", false},
		"smithery":          {"stdio", false},
		"off":               {"stdio", true},
	}
	if len(f.Entries) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(f.Entries), len(want), f.Entries)
	}
	for _, e := range f.Entries {
		w, ok := want[e.Name]
		if !ok || e.Transport != w.transport || e.Disabled != w.disabled {
			t.Errorf("%s: transport %q disabled %v; want %+v", e.Name, e.Transport, e.Disabled, w)
		}
		if (e.Transport == "stdio") != (e.Note == "") {
			t.Errorf("%s: note %q for transport %q", e.Name, e.Note, e.Transport)
		}
	}

	f, err = Read("testdata/other/settings.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if f.Host != VSCode || f.Guessed == "" || len(f.Entries) != 1 || f.Entries[0].Command != "uvx" {
		t.Fatalf("settings.json: host %q guessed %q entries %+v; want VS Code's fetch", f.Host, f.Guessed, f.Entries)
	}

	// A .mcp.json with a "servers" list is Visual Studio's, in VS Code's
	// format, not Claude Code's.
	f, err = Read("testdata/visual-studio/sln/.mcp.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if f.Host != VSCode || !strings.Contains(f.Guessed, "Visual Studio") || len(f.Entries) != 3 {
		t.Fatalf("Visual Studio's .mcp.json: host %q guessed %q entries %+v", f.Host, f.Guessed, f.Entries)
	}
	if f.Entries[2].Transport != "http" || f.Entries[0].Args[2] != "${workspaceFolder}" {
		t.Errorf("Visual Studio's .mcp.json entries: %+v", f.Entries)
	}

	// A name that tells the host is not second-guessed.
	if f := read(t, "testdata/vscode/ws/.vscode/mcp.json"); f.Guessed != "" {
		t.Errorf("a named file was guessed: %q", f.Guessed)
	}
	// Nothing to go by: an error that says what to do.
	_, err = Parse("x.json", []byte(`{"editor.fontSize": 14}`), "")
	if !errors.Is(err, ErrNoServers) || !strings.Contains(err.Error(), "--host") {
		t.Errorf("no server list: %v", err)
	}
}

func TestTransportTypeSpellings(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "stdio": "stdio", "STDIO": "stdio", "http": "http", "streamable-http": "http",
		"streamableHttp": "http", "streamable_http": "http", "sse": "sse", "SSE": "sse", "ws": "ws",
	} {
		if got := transportType(in); got != want {
			t.Errorf("transportType(%q) = %q, want %q", in, got, want)
		}
	}
}

// Claude Desktop and Claude Code parse their files with JSON.parse: a
// comment or a trailing comma makes them refuse the whole file. linesman
// reads it all the same, and says where the host would stop; VS Code's
// JSONC, and a strict file, get no word.
func TestNotStrictSaysWhereTheHostWouldStop(t *testing.T) {
	cases := []struct {
		path, data, want string
	}{
		{"a/claude_desktop_config.json", "{\n  // mine\n  \"mcpServers\": {\"a\": {\"command\": \"x\"}}\n}", "a comment at line 2, column 3"},
		{"a/.mcp.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"y\",]}}}", `a trailing comma before the ']' at line 1, column 52`},
		{"a/claude_desktop_config.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\"},}}", `a trailing comma before the '}' at line 1, column 39`},
		{"a/claude_desktop_config.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}", ""},
		{"a/.vscode/mcp.json", "{\n  // fine here\n  \"servers\": {\"a\": {\"command\": \"x\",},},\n}", ""},
		{"a/claude_desktop_config.json", "\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}", "byte order mark"},
		{"a/.mcp.json", "\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}", ""},
	}
	for _, tc := range cases {
		f, err := Parse(tc.path, []byte(tc.data), "")
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if len(f.Entries) != 1 || f.Entries[0].Command != "x" {
			t.Errorf("%s: entries %+v, want the one server read leniently", tc.path, f.Entries)
		}
		if tc.want == "" && f.NotStrict != "" || !strings.Contains(f.NotStrict, tc.want) {
			t.Errorf("%s: NotStrict %q, want %q", tc.path, f.NotStrict, tc.want)
		}
	}
}

// A YAML config whose servers are not as Continue or Goose write them
// gets an error that says what is read, not where a parser stumbled.
func TestYAMLConfigsSayWhatIsRead(t *testing.T) {
	for path, data := range map[string]string{
		"home/config.yaml":   "mcpServers:\n  a:\n    command: x\n",
		"home/settings.yaml": "theme: dark\n",
	} {
		_, err := Parse(path, []byte(data), "")
		if err == nil || !strings.Contains(err.Error(), "Continue") {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// Codex's config.toml is read and resolved as Codex reads it (values
// literal, env_vars passed on from the environment; the arrays of tables
// real configs hold, [[skills.config]], passed over), never rewritten:
// wrap says what to change by hand, with the server's table as TOML spells
// it ([mcp_servers."docs.internal"]), and no diff of it is ever shown.
func TestCodexTOML(t *testing.T) {
	const path = "testdata/codex/home/.codex/config.toml"
	f := read(t, path)
	if f.Host != Codex || !slices.Equal(f.Names(), []string{"context7", "docs.internal", "figma", "local"}) {
		t.Fatalf("host %s, entries %v", f.Host, f.Names())
	}
	cases := []struct {
		name string
		argv []string
		env  []string
		dir  string
	}{
		{"context7", []string{"npx", "-y", "@upstash/context7-mcp", "--api-key", "codex-argv-secret"}, []string{"LINESMAN_TEST_USER=ada", "CONTEXT7_TOKEN=codex-env-secret"}, ""},
		{"local", []string{"/opt/tools/server", "--root", `C:\work`, "multi"}, []string{"REGION=eu-west-1"}, "/srv/work"},
		{"docs.internal", []string{"docs-mcp"}, nil, ""},
	}
	for _, tc := range cases {
		e, _ := f.Find(tc.name)
		s, err := f.Resolve(e, testEnv(t))
		if err != nil || !slices.Equal(s.Command, tc.argv) || !slices.Equal(s.Env, tc.env) || s.Dir != tc.dir {
			t.Errorf("%s: %q %q %q, %v\nwant %q %q %q", tc.name, s.Command, s.Env, s.Dir, err, tc.argv, tc.env, tc.dir)
		}
	}
	if e, _ := f.Find("local"); !e.Disabled {
		t.Error("enabled = false not marked disabled")
	}
	if e, _ := f.Find("figma"); e.Transport != "http" || e.Note == "" {
		t.Errorf("figma: %q %q, want a remote entry skipped", e.Transport, e.Note)
	}
	out, changes := f.Wrap("/opt/linesman", nil)
	if string(out) != string(f.Data) {
		t.Error("wrap rewrote a TOML file")
	}
	for _, c := range changes {
		if c.Done || c.Name == "context7" && (!strings.Contains(c.Why, `command = "/opt/linesman"`) || strings.Contains(c.Why, "secret")) {
			t.Errorf("%s: %+v", c.Name, c)
		}
		if c.Name == "docs.internal" && !strings.Contains(c.Why, `[mcp_servers."docs.internal"]`) {
			t.Errorf("%s: %+v, want its table quoted", c.Name, c)
		}
	}
	// What real files hold beside the servers: a byte order mark, CRLF, a
	// date and time apart, arrays of inline tables.
	odd := "\ufeffmodel = \"o3\"\r\n[model_providers.azure]\r\nquery_params = { api-version = \"2025-04-01-preview\" }\r\n" +
		"list = [ { a = 1 }, { b = \"x\" } ]\r\nwhen = 1979-05-27 07:32:00\r\n[ mcp_servers . \"x\" ] # c\r\ncommand = \"a\\U0001F600b\"\r\n" +
		"args = [\"\"\"one \\\r\n   two\"\"\"]\r\n"
	if f, err := Parse(path, []byte(odd), ""); err != nil || len(f.Entries) != 1 || f.Entries[0].Command != "a\U0001F600b" || !slices.Equal(f.Entries[0].Args, []string{"one two"}) {
		t.Errorf("%q: %+v, %v", odd, f, err)
	}
	tapped, err := Parse(path, []byte("[mcp_servers.a]\ncommand = \"/opt/linesman\"\nargs = [\"tap\", \"--name\", \"a\", \"--\", \"srv\"]\n[mcp_servers.b]\ncommand = \"srv\"\n"), Codex)
	if err != nil {
		t.Fatal(err)
	}
	_, changes = tapped.Unwrap(nil)
	if len(changes) != 2 || !strings.Contains(changes[0].Why, "by hand") || changes[1].Why != "not wrapped" {
		t.Errorf("unwrap of a TOML file: %+v; want the wrapped entry's hand-made change, the other not wrapped", changes)
	}
	if _, ok := Redacted(path, f.Data, Codex); ok {
		t.Error("a TOML file was offered for showing")
	}
	for _, bad := range []string{"[mcp_servers.a]\ncommand = \"x", "[mcp_servers.a]\nargs = [\"a\"", "[[mcp_servers]]\n", "a = 1 2\n"} {
		if _, err := Parse("x/.codex/config.toml", []byte(bad), ""); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: %v, want an error with its line", bad, err)
		}
	}
}

// TestFileValuesRedacted: a value the resolver read from a file ({file:…},
// an envFile's) is redacted in any argument or env value holding it, and is
// among the values a capture scrubs; a value too short to tell (an envFile's
// DEBUG=1) redacts nothing.
func TestFileValuesRedacted(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "key"), []byte("  fileValueSecret77\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "x.env"), []byte("SHORT=1\nLONG=envValueSecret88\n"), 0o600)
	cfg := filepath.Join(dir, "opencode.json")
	os.WriteFile(cfg, []byte(`{"mcp":{"s":{"type":"local","command":["srv","--x={file:key}","1"],"environment":{"K":"v-{file:key}"}}}}`), 0o600)
	f, err := Read(cfg, OpenCode)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := f.Resolve(f.Entries[0], Env{Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Command[1] != "--x=fileValueSecret77" || srv.Env[0] != "K=v-fileValueSecret77" {
		t.Fatalf("resolved %q %q", srv.Command, srv.Env)
	}
	if got := RedactCommand(srv.Command); !slices.Equal(got, []string{"srv", Redaction, "1"}) {
		t.Errorf("RedactCommand = %q", got)
	}
	if got := RedactFileValues(srv.Command); !slices.Equal(got, []string{"srv", Redaction, "1"}) {
		t.Errorf("RedactFileValues = %q", got)
	}
	if got := RedactEnv(srv.Env); !slices.Equal(got, []string{"K=" + Redaction}) {
		t.Errorf("RedactEnv = %q", got)
	}
	vs := filepath.Join(dir, ".vscode", "mcp.json")
	os.MkdirAll(filepath.Dir(vs), 0o755)
	os.WriteFile(vs, []byte(`{"servers":{"s":{"command":"srv","args":["2"],"envFile":"`+filepath.Join(dir, "x.env")+`"}}}`), 0o600)
	if f, err = Read(vs, VSCode); err != nil {
		t.Fatal(err)
	}
	if srv, err = f.Resolve(f.Entries[0], Env{Home: dir}); err != nil {
		t.Fatal(err)
	}
	if got := RedactEnv(srv.Env); !slices.Equal(got, []string{"SHORT=1", "LONG=" + Redaction}) {
		t.Errorf("RedactEnv of the envFile = %q", got)
	}
	for _, v := range []string{"--x=fileValueSecret77", "fileValueSecret77", "envValueSecret88"} {
		if !slices.Contains(SecretValues(srv.Command), v) && !slices.Contains(FileValueSecrets([]string{"srv", "--x=fileValueSecret77"}), v) {
			t.Errorf("%q is not among the values to scrub", v)
		}
	}
	if slices.Contains(FileValues(), "1") {
		t.Error("a 1-byte value counts as a secret")
	}
}

// A server named in ~/.claude.json both for the user and for a project is
// the project's when linesman runs in that project, as Claude Code's local
// scope wins over its user scope; elsewhere it is the user's.
func TestClaudeJSONProjectScopeWins(t *testing.T) {
	f, err := Parse("home/.claude.json", []byte(`{"mcpServers":{"db":{"command":"user-db"}},"projects":{"/home/me/work":{"mcpServers":{"db":{"command":"work-db"}}}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	for ws, want := range map[string]string{"/home/me/work": "work-db", "/home/me/work/": "work-db", "/home/me/other": "user-db", "": "user-db"} {
		if e, ok := f.FindIn("db", ws); !ok || e.Command != want {
			t.Errorf("in %q: %q, want %q", ws, e.Command, want)
		}
	}
}

// A ~/.claude.json past the 16 MiB of other configs (Claude Code keeps its
// state there, prompt history included: files of 65 and 101 MB are
// reported) is read, up to MaxClaudeJSON; the same bytes under another
// name are refused.
func TestClaudeJSONMayBeLarge(t *testing.T) {
	dir := t.TempDir()
	history := `{"display":"` + strings.Repeat("x", 1000) + `","pastedContents":{}},`
	data := `{"mcpServers":{"db":{"type":"stdio","command":"pg-mcp"}},"projects":{"/w":{"history":[` +
		strings.Repeat(history, MaxConfigFile/len(history)+1) + `{}]}}}`
	for name, ok := range map[string]bool{".claude.json": true, "settings.json": false} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := Read(p, ClaudeCode)
		if ok && (err != nil || len(f.Entries) != 1) || !ok && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s of %d bytes: %v", name, len(data), err)
		}
	}
}

// Continue's and Goose's YAML are read and resolved as those hosts take
// them (values literal; a Continue ${{ secrets.… }} named, never guessed;
// Goose's env_keys passed on from the environment), and never rewritten:
// wrap says what to change by hand, and no diff of them is shown.
func TestYAMLHosts(t *testing.T) {
	env := testEnv(t)
	get := env.Getenv
	env.Getenv = func(k string) (string, bool) {
		if k == "GITHUB_PERSONAL_ACCESS_TOKEN" {
			return "ghp-from-env", true
		}
		return get(k)
	}
	cont := read(t, "testdata/continue/home/.continue/config.yaml")
	goose := read(t, "testdata/goose/config/goose/config.yaml")
	block := read(t, "testdata/continue/ws/.continue/mcpServers/playwright.yaml")
	if cont.Host != Continue || goose.Host != Goose || block.Host != Continue {
		t.Fatalf("hosts %s %s %s", cont.Host, goose.Host, block.Host)
	}
	cases := []struct {
		f          *File
		name       string
		argv, envs []string
		dir        string
	}{
		{cont, "SQLite MCP", []string{"npx", "-y", "mcp-sqlite", "/home/me/data/app.db"}, []string{"LOG_LEVEL=debug"}, ""},
		{block, "Browser search", []string{"npx", "@playwright/mcp@latest"}, nil, "/home/me/src"},
		{goose, "github", []string{"npx", "-y", "@modelcontextprotocol/server-github"}, []string{"GITHUB_PERSONAL_ACCESS_TOKEN=ghp-from-env"}, ""},
		{goose, "fetch", []string{"uvx", "mcp-server-fetch", "--ignore-robots-txt"}, []string{"FETCH_UA=goose-env-secret", "LOG=info"}, ""},
	}
	for _, tc := range cases {
		e, ok := tc.f.Find(tc.name)
		s, err := tc.f.Resolve(e, env)
		if !ok || err != nil || !slices.Equal(s.Command, tc.argv) || !slices.Equal(s.Env, tc.envs) || s.Dir != tc.dir {
			t.Errorf("%s: %q %q %q, %v; want %q %q %q", tc.name, s.Command, s.Env, s.Dir, err, tc.argv, tc.envs, tc.dir)
		}
	}
	var unresolved *UnresolvedError
	if e, _ := cont.Find("GitHub"); !errors.As(func() error { _, err := cont.Resolve(e, env); return err }(), &unresolved) || unresolved.Form != "${{ secrets.GITHUB_TOKEN }}" {
		t.Errorf("GitHub: %v, want its ${{ secrets.… }} named", unresolved)
	}
	for f, want := range map[*File]map[string]string{
		cont:  {"Remote": "http", "anthropic/memory-mcp": "extension"},
		goose: {"remote": "http", "developer": "extension"},
	} {
		for name, what := range want {
			e, _ := f.Find(name)
			if what == "extension" && !e.ProvidedByExtension() || what != "extension" && e.Transport != what || e.Note == "" {
				t.Errorf("%s: %+v, want %s", name, e, what)
			}
		}
	}
	if e, _ := goose.Find("fetch"); !e.Disabled || e.Line != 25 {
		t.Errorf("fetch: disabled %v, line %d; want disabled, line 25", e.Disabled, e.Line)
	}
	for _, f := range []*File{cont, goose} {
		out, changes := f.Wrap("/opt/linesman", nil)
		if string(out) != string(f.Data) {
			t.Errorf("%s: wrap rewrote a YAML file", f.Path)
		}
		for _, c := range changes {
			if c.Done || c.Name == "github" && !strings.Contains(c.Why, `cmd: "/opt/linesman"`) {
				t.Errorf("%s: %+v", c.Name, c)
			}
		}
		if _, ok := Redacted(f.Path, f.Data, f.Host); ok {
			t.Errorf("%s: a YAML file was offered for showing", f.Path)
		}
	}
	for _, bad := range []string{"extensions:\n\tx: 1\n", "mcpServers:\n  - name: &a x\n", "mcpServers:\n  - name: \"x\n", "extensions: {a: [1, 2}\n", "a: 1\n b: 2\n"} {
		if _, err := Parse("x/config.yaml", []byte(bad), ""); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: %v, want an error with its line", bad, err)
		}
	}
	if _, err := Parse("x/settings.yaml", []byte("theme: dark\n"), ""); !errors.Is(err, ErrNoServers) {
		t.Errorf("a YAML file of neither host: %v", err)
	}
}

// An envFile is read as VS Code's parseEnvFile reads it: "=" or ":", the
// first "#" outside quotes a comment, one pair of quotes off, only \n and
// \r escapes in "…", and a line that sets nothing passed over rather than
// refusing the server.
func TestEnvFileAsVSCodeReadsIt(t *testing.T) {
	dir := t.TempDir()
	env := "# comment\r\nexport A=1\nB: two\nC=\"x\\ny\" # c\nD='single # kept'\nE=abc#def\nF=\"C:\\\\path\"\nG=`back`\nH\n=nokey\nI=\"open\nJ=u=v\n"
	os.WriteFile(filepath.Join(dir, "x.env"), []byte(env), 0o600)
	cfg := filepath.Join(dir, "mcp.json")
	os.WriteFile(cfg, []byte(`{"servers":{"s":{"command":"srv","envFile":"x.env"}}}`), 0o600)
	f, err := Read(cfg, VSCode)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Resolve(f.Entries[0], Env{Workspace: dir})
	want := []string{"A=1", "B=two", "C=x\ny", "D=single # kept", "E=abc", `F=C:\\path`, "G=back", `I="open`, "J=u=v"}
	if err != nil || !slices.Equal(s.Env, want) {
		t.Errorf("%q, %v\nwant %q", s.Env, err, want)
	}
}

// A Claude Code plugin's .mcp.json names its files under
// ${CLAUDE_PLUGIN_ROOT}, which Claude Code sets to the plugin's directory:
// the directory of the file, when the environment does not say.
func TestClaudePluginRoot(t *testing.T) {
	f, err := Parse("/plugins/db/.mcp.json", []byte(`{"mcpServers":{"db":{"command":"${CLAUDE_PLUGIN_ROOT}/servers/db","args":["--config","${CLAUDE_PLUGIN_ROOT}/config.json"]}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Resolve(f.Entries[0], testEnv(t))
	if want := []string{"/plugins/db/servers/db", "--config", "/plugins/db/config.json"}; err != nil || !slices.Equal(s.Command, want) {
		t.Errorf("%q, %v; want %q", s.Command, err, want)
	}
}

// An entry whose args are not an array of strings, or whose command is
// blank, is one its host refuses: listed with why, never started with
// other arguments than it names.
func TestMalformedEntriesAreNotStarted(t *testing.T) {
	f, err := Parse("x/mcp.json", []byte(`{"mcpServers":{"a":{"command":"node","args":"server.js"},"b":{"command":"x","args":[1,"ok"]},"c":{"command":"  "},"d":{"command":"x","args":null},"e":{"command":"x","args":["ok"]}}}`), ClaudeDesktop)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Entries {
		if bad := e.Name < "d"; bad != (e.Note != "") {
			t.Errorf("%s: note %q", e.Name, e.Note)
		}
	}
}

// A server named twice in one list is the later one, as its host's JSON
// reader keeps it; the earlier is neither listed, started nor wrapped.
func TestDuplicateNameIsTheLater(t *testing.T) {
	f, err := Parse("x/claude_desktop_config.json", []byte(`{"mcpServers":{"a":{"command":"first"},"b":{"command":"b"},"a":{"command":"second"}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 2 || f.Entries[0].Name != "b" || f.Entries[1].Command != "second" {
		t.Errorf("entries %+v", f.Entries)
	}
	out, _ := f.Wrap("/opt/linesman", []string{"a"})
	if !strings.Contains(string(out), `"command":"first"`) || strings.Contains(string(out), `"command":"second"`) {
		t.Errorf("wrap: %s", out)
	}
}
