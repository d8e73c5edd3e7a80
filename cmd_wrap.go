package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"linesman/capture"
	"linesman/session/hosts"
	"linesman/wire"
)

const wrapHeader = `linesman wrap — route a host's servers through 'linesman tap'

Usage:
  linesman wrap   (--host H | --config FILE) [--dry-run] [NAME...]
  linesman unwrap (--host H | --config FILE) [--dry-run] [NAME...]

wrap rewrites the named entries (all of them when no NAME is given) of a
host's MCP config so that the host starts them through 'linesman tap --name
NAME -- COMMAND ARGS...', with this linesman binary's absolute path: the
host then runs as before, and 'linesman taps' and 'linesman view --follow
NAME' show what crosses the wire. When $LINESMAN_TAP_DIR or $XDG_STATE_HOME
names a tap directory other than the default, it is written into each entry
('--dir DIR'), since hosts start their servers with an environment of their
own. Only the command and args values change;
comments, spacing and everything else stay as they were. Entries already
wrapped, and remote (http/sse) entries, are left alone and listed.

unwrap puts the entries back exactly as they were before wrap.

Each first copies the file as it was to FILE.linesman-backup beside it
(mode 0600, as the file may hold secrets): one backup per file, the
latest, replacing the one an earlier wrap or unwrap left. --dry-run prints the change as a diff,
every string <redacted> but the servers' commands, types and arguments
(a secret-looking argument redacted too), and writes nothing. Restart
the host (or reload its MCP servers) afterwards.

Hosts (--host) and the files read: claude-desktop, claude-code (~/.claude.json
and ./.mcp.json), vscode (user mcp.json, VS Code's and Insiders', and ./.vscode/mcp.json), cursor
(~/.cursor/mcp.json and ./.cursor/mcp.json), windsurf
(~/.codeium/windsurf/mcp_config.json), zed (~/.config/zed/settings.json and
./.zed/settings.json, "context_servers"), gemini-cli (~/.gemini/settings.json
and ./.gemini/settings.json), opencode (~/.config/opencode/opencode.json and
./opencode.json, "mcp"); codex (~/.codex/config.toml and ./.codex/config.toml)
is read but not rewritten: wrap says what to change by hand. --workspace names
the project
directory for the project files (default: the current directory).

Examples:
  linesman wrap --host claude-desktop --dry-run
  linesman wrap --config .vscode/mcp.json github
  linesman unwrap --host claude-desktop
`

// runWrap is "linesman wrap" (unwrap false) and "linesman unwrap".
func runWrap(name string, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(name, wrapHeader, stdout, stderr)
	host := fs.String("host", "", "the host whose config files to edit: claude-desktop, claude-code, vscode, cursor, windsurf, zed, gemini-cli, opencode, codex")
	config := fs.String("config", "", "the config file to edit (the host is told from its name, or by --host)")
	workspace := fs.String("workspace", "", "the project directory of the project config files (default: the current one)")
	dryRun := fs.Bool("dry-run", false, "print the change as a diff (secrets redacted) and write nothing")
	names, status, ok := parseFlagsAnywhere(fs, args)
	if !ok {
		return status
	}
	files, err := configFiles(*host, *config, *workspace)
	if err != nil {
		fmt.Fprintf(stderr, "linesman %s: %v\n", name, err)
		return exitUsage
	}
	for _, f := range files {
		sayHowRead(stderr, "linesman "+name, f)
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "linesman %s: cannot find my own binary: %v\n", name, err)
		return exitFindings
	}
	failed := false
	for _, f := range files {
		if err := wrapFile(name, f, exe, names, *dryRun, stdout); err != nil {
			fmt.Fprintf(stderr, "linesman %s: %s\n", name, inertText(err.Error()))
			failed = true
		}
	}
	if failed {
		return exitFindings
	}
	return exitOK
}

// configFiles returns the config files to work on: the one named, or the
// host's default files that exist.
func configFiles(host, config, workspace string) ([]*hosts.File, error) {
	var h hosts.Host
	if host != "" {
		var err error
		if h, err = hosts.ParseHost(host); err != nil {
			return nil, err
		}
	}
	if config != "" {
		f, err := hosts.Read(config, h)
		if err != nil {
			return nil, err
		}
		return []*hosts.File{f}, nil
	}
	if h == "" {
		return nil, errors.New("say which config: --host H or --config FILE")
	}
	var out []*hosts.File
	for _, loc := range hosts.DefaultLocations(h, hostEnv(workspace)) {
		f, err := hosts.Read(loc.Path, h)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		var paths []string
		for _, loc := range hosts.DefaultLocations(h, hostEnv(workspace)) {
			paths = append(paths, loc.Path)
		}
		return nil, fmt.Errorf("no %s config found (looked at %s)", h, strings.Join(paths, ", "))
	}
	return out, nil
}

// hostEnv describes this machine to package hosts.
func hostEnv(workspace string) hosts.Env {
	home, _ := os.UserHomeDir()
	if workspace == "" {
		workspace, _ = os.Getwd()
	} else if abs, err := filepath.Abs(workspace); err == nil {
		workspace = abs
	}
	return hosts.Env{GOOS: runtime.GOOS, Home: home, Workspace: workspace, Getenv: os.LookupEnv, AppData: os.Getenv("APPDATA")}
}

// pinnedTapDir is the tap directory wrap writes into the entries: the
// one this environment names, when it is not the default a tap started
// without LINESMAN_TAP_DIR and XDG_STATE_HOME would use ("" then).
func pinnedTapDir() string {
	d, err := capture.TapDirPath("")
	home, herr := os.UserHomeDir()
	if err != nil || herr == nil && filepath.Clean(d) == capture.DefaultTapDir(home) {
		return ""
	}
	if abs, err := filepath.Abs(d); err == nil {
		d = abs
	}
	return d
}

// wrapFile wraps (or unwraps) the entries of one file and writes it back.
func wrapFile(mode string, f *hosts.File, exe string, names []string, dryRun bool, stdout io.Writer) error {
	for _, n := range names {
		if _, ok := f.Find(n); !ok {
			return fmt.Errorf("%s: no server named %q (it has: %s)", f.Path, n, strings.Join(f.Names(), ", "))
		}
	}
	pin := pinnedTapDir()
	out, changes := f.WrapPinned(exe, pin, names)
	verb := "wrapped"
	if mode == "unwrap" {
		out, changes = f.Unwrap(names)
		verb = "unwrapped"
	}
	fmt.Fprintf(stdout, "%s (%s):\n", inertText(f.Path), f.Host)
	fmt.Fprint(stdout, indent(inertText(hosts.Summary(verb, changes))))
	if pin != "" && mode != "unwrap" && string(out) != string(f.Data) {
		fmt.Fprintf(stdout, "  their taps write to %s (--dir in each entry: a host passes its servers an environment of its own, without %s or XDG_STATE_HOME)\n",
			inertText(pin), capture.TapDirEnv)
	}
	if string(out) == string(f.Data) {
		fmt.Fprintln(stdout, "  nothing to change")
		return nil
	}
	if dryRun {
		a, ok1 := hosts.Redacted(f.Path, f.Data, f.Host)
		b, ok2 := hosts.Redacted(f.Path, out, f.Host)
		if ok1 && ok2 {
			fmt.Fprint(stdout, inertText(hosts.Diff(f.Path, a, b)))
		}
		return nil
	}
	backup, err := hosts.WriteWithBackup(f.Path, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "  written; the file as it was is in %s\n", inertText(backup))
	return nil
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

// inertText makes text that came from a file safe for the terminal, line
// breaks kept.
func inertText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = wire.VisibleString(l, wire.Pictures)
	}
	return strings.Join(lines, "\n")
}

// withConfig turns "--config FILE [--host H] [--workspace DIR] ... NAME"
// on the command line of the inspector, check or send into the server the
// config names: the mode's own flags, -e for each variable the entry sets,
// --cwd for its directory, then "--" and its command, resolved as its host
// would. Without --config, args come back as they are. NAME is the last
// argument that names a server of the file; when there is none, the
// servers are listed on stderr with a usage error (a list rather than a
// picker: it works the same in a terminal and in a script).
func withConfig(mode string, args []string, stderr io.Writer) (out []string, status int, ok bool) {
	var config, host, workspace string
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if config != "" {
				fmt.Fprintf(stderr, "linesman%s: --config names the server; give no '-- COMMAND' as well\n", modeSuffix(mode))
				return nil, exitUsage, false
			}
			rest = append(rest, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "-") && (i == 0 || !takesValue(args[i-1])) {
			// The first positional argument: NAME, or a server command
			// given without "--" (whose own --config is not ours).
			rest = append(rest, args[i:]...)
			break
		}
		matched := false
		for _, fl := range []struct {
			name string
			dst  *string
		}{{"config", &config}, {"host", &host}, {"workspace", &workspace}} {
			for _, prefix := range []string{"-" + fl.name, "--" + fl.name} {
				switch {
				case a == prefix && i+1 < len(args):
					*fl.dst, i, matched = args[i+1], i+1, true
				case strings.HasPrefix(a, prefix+"="):
					*fl.dst, matched = a[len(prefix)+1:], true
				}
			}
		}
		if !matched {
			rest = append(rest, a)
		}
	}
	if config == "" {
		if host != "" || workspace != "" {
			fmt.Fprintf(stderr, "linesman%s: --host and --workspace go with --config FILE\n", modeSuffix(mode))
			return nil, exitUsage, false
		}
		return args, 0, true
	}
	return configServer(mode, config, host, workspace, rest, stderr)
}

// takesValue reports whether a flag argument of the inspector, check or
// send is followed by its value ("--era legacy"), as opposed to a boolean
// flag or one written with "=".
func takesValue(arg string) bool {
	if !strings.HasPrefix(arg, "-") || arg == "--" || strings.Contains(arg, "=") {
		return false
	}
	switch strings.TrimLeft(arg, "-") {
	case "json", "capture-env", "clean-env", "no-handshake", "demo-unsafe", "raw", "answer", "h", "help":
		return false
	}
	return true
}

// sayHowRead says how a config file was read when its name did not tell
// which host's it is, and warns when its host would refuse it.
func sayHowRead(stderr io.Writer, prefix string, f *hosts.File) {
	if f.Guessed != "" {
		fmt.Fprintf(stderr, "%s: %s: %s\n", prefix, inertText(f.Path), f.Guessed)
	}
	if f.NotStrict != "" {
		fmt.Fprintf(stderr, "%s: warning: %s: %s\n", prefix, inertText(f.Path), f.NotStrict)
	}
}

func modeSuffix(mode string) string {
	if mode == "" {
		return ""
	}
	return " " + mode
}

// configServer resolves the server named by the last of rest in the
// config file and returns the mode's arguments that start it.
func configServer(mode, config, host, workspace string, rest []string, stderr io.Writer) ([]string, int, bool) {
	prefix := "linesman" + modeSuffix(mode)
	var h hosts.Host
	if host != "" {
		var err error
		if h, err = hosts.ParseHost(host); err != nil {
			fmt.Fprintf(stderr, "%s: --host: %v\n", prefix, err)
			return nil, exitUsage, false
		}
	}
	f, err := hosts.Read(config, h)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --config: %s\n", prefix, inertText(err.Error()))
		return nil, exitUsage, false
	}
	sayHowRead(stderr, prefix, f)
	var entry hosts.Entry
	found := false
	for i := len(rest) - 1; i >= 0 && !found; i-- {
		if strings.HasPrefix(rest[i], "-") {
			continue
		}
		if entry, found = f.Find(rest[i]); found {
			rest = append(rest[:i:i], rest[i+1:]...)
		}
	}
	if !found {
		fmt.Fprintf(stderr, "%s: name one of the servers of %s:\n", prefix, inertText(config))
		listEntries(stderr, f)
		fmt.Fprintf(stderr, "usage: %s --config %s [flags] NAME\n", prefix, inertText(config))
		return nil, exitUsage, false
	}
	srv, err := f.Resolve(entry, hostEnv(workspace))
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prefix, inertText(err.Error()))
		return nil, exitUsage, false
	}
	var out []string
	for _, kv := range srv.Env {
		out = append(out, "-e", kv)
	}
	if srv.Dir != "" {
		out = append(out, "--cwd", srv.Dir)
	}
	if mode == "check" || mode == "send" {
		out = append(out, "--config-origin", config) // SARIF points at the entry's file
	}
	out = append(out, rest...) // the user's own -e and --cwd come later, and win
	return append(append(out, "--"), srv.Command...), 0, true
}

// listEntries writes one line per server of f: name, command (or why it
// cannot be started), and the names of the variables it sets.
func listEntries(w io.Writer, f *hosts.File) {
	for _, e := range f.Entries {
		what := strings.Join(append([]string{e.Command}, hosts.RedactArgs(e.Args)...), " ")
		if e.Note != "" {
			what = "(" + e.Note + ")"
		}
		if e.Scope != "" {
			what += "  [project " + e.Scope + "]"
		}
		if e.Disabled {
			what += "  [disabled]"
		}
		if len(e.Env) > 0 {
			names := make([]string, len(e.Env))
			for i, v := range e.Env {
				names[i] = v.Name
			}
			what += "  env: " + strings.Join(names, ", ")
		}
		fmt.Fprintf(w, "  %-20s %s\n", wire.VisibleString(e.Name, wire.Pictures), wire.VisibleString(what, wire.Pictures))
	}
}

// configArgs applies withConfig to the command lines of the modes that
// start a server from --config: check, send and the inspector.
func configArgs(args []string, stderr io.Writer) ([]string, int, bool) {
	mode := ""
	if len(args) > 0 {
		switch args[0] {
		case "check", "send":
			mode = args[0]
		case "view", "export", "explain", "tap", "taps", "wrap", "unwrap", "help", "demo-server", "diff":
			return args, 0, true
		}
	}
	rest := args
	if mode != "" {
		rest = args[1:]
	}
	if mode == "check" && allGiven(rest) {
		return args, 0, true // check --config FILE --all reads the file itself
	}
	out, status, ok := withConfig(mode, rest, stderr)
	if !ok || mode == "" {
		return out, status, ok
	}
	return append([]string{mode}, out...), 0, true
}
