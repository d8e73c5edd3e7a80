package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"linesman/session/hosts"
	"linesman/wire"
)

// resolveConfig makes the server NAME of --config's file the server of
// the run, resolved as its host would start it: its command, its
// environment under the user's -e, its directory unless --cwd says
// otherwise. NAME is the argument after the flags; the flags may also
// follow it ("--config F NAME --json"). Without a NAME of the file, the
// servers are listed on stderr with a usage error (a list rather than a
// picker: it works the same in a terminal and in a script).
func (f *serverFlags) resolveConfig(cmd *command, fs *flag.FlagSet, args []string, stderr io.Writer) (status int, ok bool) {
	prefix := cmd.prefix()
	if afterDashes(args, fs.Args()) {
		fmt.Fprintf(stderr, "%s: --config names the server; give no '-- COMMAND' as well\n", prefix)
		return exitUsage, false
	}
	names, status, ok := parseFlagsAnywhere(fs, fs.Args())
	if !ok {
		return status, false
	}
	var h hosts.Host
	if f.host != "" {
		var err error
		if h, err = hosts.ParseHost(f.host); err != nil {
			fmt.Fprintf(stderr, "%s: --host: %v\n", prefix, err)
			return exitUsage, false
		}
	}
	file, err := hosts.Read(f.config, h)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --config: %s\n", prefix, inertText(err.Error()))
		return exitUsage, false
	}
	sayHowRead(stderr, prefix, file)
	env := hosts.LocalEnv(f.workspace)
	var entry hosts.Entry
	found := len(names) == 1
	if found {
		entry, found = file.FindIn(names[0], env.Workspace)
	}
	if !found {
		fmt.Fprintf(stderr, "%s: name one of the servers of %s:\n", prefix, inertText(f.config))
		file.WriteEntries(stderr)
		fmt.Fprintf(stderr, "usage: %s --config %s [flags] NAME\n", prefix, inertText(f.config))
		return exitUsage, false
	}
	srv, err := file.Resolve(entry, env)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prefix, inertText(err.Error()))
		return exitUsage, false
	}
	o := &f.opts
	o.Session.Command = srv.Command
	o.Session.Env = append(srv.Env, o.Session.Env...) // the user's -e come later, and win
	if o.Session.Dir == "" {
		o.Session.Dir = srv.Dir
	}
	o.CI.Origin = f.config // SARIF points at the entry's file
	return 0, true
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

// inertText makes text that came from a file safe for the terminal, line
// breaks kept.
func inertText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = wire.VisibleString(l, wire.Pictures)
	}
	return strings.Join(lines, "\n")
}
