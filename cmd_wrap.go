package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"linesman/capture"
	"linesman/session/hosts"
)

var cmdWrap = &command{
	name:      "wrap",
	usageLine: "linesman wrap   (--host H | --config FILE) [--dry-run] [NAME...]",
	run:       runWrap,
	long:      helpText("wrap"),
}

var cmdUnwrap = &command{
	name:      "unwrap",
	usageLine: "linesman unwrap (--host H | --config FILE) [--dry-run] [NAME...]",
	run:       runWrap,
	long:      helpText("wrap"),
}

// runWrap is "linesman wrap" and "linesman unwrap".
func runWrap(cmd *command, args []string, io stdio) int {
	name, stdout, stderr := cmd.name, io.out, io.err
	fs := cmd.newFlagSet(io)
	host := fs.String("host", "", "the host whose config files to edit: claude-desktop, claude-code, vscode, cursor, windsurf, zed, gemini-cli, opencode, codex, continue, goose, roo-code")
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

// wrapFile wraps (or unwraps) the entries of one file and writes it back.
func wrapFile(mode string, f *hosts.File, exe string, names []string, dryRun bool, stdout io.Writer) error {
	for _, n := range names {
		if _, ok := f.Find(n); !ok {
			return fmt.Errorf("%s: no server named %q (it has: %s)", f.Path, n, strings.Join(f.Names(), ", "))
		}
	}
	pin := capture.PinnedTapDir()
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
