package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"linesman/capture"
	"linesman/session/hosts"
)

var cmdWrap = &command{
	name:      "wrap",
	usageLine: "linesman wrap   (--host H | --config FILE) [--dry-run] [NAME...]",
	run:       runWrap,
	long:      wrapLong,
}

var cmdUnwrap = &command{
	name:      "unwrap",
	usageLine: "linesman unwrap (--host H | --config FILE) [--dry-run] [NAME...]",
	run:       runWrap,
	long:      wrapLong,
}

// wrapLong is the help of wrap and unwrap.
const wrapLong = `linesman wrap — route a host's servers through 'linesman tap'

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

// runWrap is "linesman wrap" and "linesman unwrap".
func runWrap(cmd *command, args []string, io stdio) int {
	name, stdout, stderr := cmd.name, io.out, io.err
	fs := cmd.newFlagSet(io)
	host := fs.String("host", "", "the host whose config files to edit: claude-desktop, claude-code, vscode, cursor, windsurf, zed, gemini-cli, opencode, codex")
	config := fs.String("config", "", "the config file to edit (the host is told from its name, or by --host)")
	workspace := fs.String("workspace", "", "the project directory of the project config files (default: the current one)")
	dryRun := fs.Bool("dry-run", false, "print the change as a diff (secrets redacted) and write nothing")
	names, status, ok := parseFlagsAnywhere(fs, args)
	if !ok {
		return status
	}
	files, err := hosts.ConfigFiles(*host, *config, hosts.LocalEnv(*workspace))
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
