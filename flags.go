package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"linesman/session"
	"linesman/session/run"
)

// newFlagSet returns the mode's flag set: its --help prints the mode's
// long help and the flags on stdout (so that `linesman check --help | less`
// works), and its errors go to stderr with a one-line pointer to --help
// rather than the whole text. It never exits the process.
func (cmd *command) newFlagSet(io stdio) *flag.FlagSet {
	fs := flag.NewFlagSet(cmp.Or(cmd.name, "linesman"), flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fs.SetOutput(io.out)
		defer fs.SetOutput(io.err)
		fmt.Fprint(io.out, cmd.long)
		fmt.Fprintln(io.out, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

// prefix is what the mode's messages start with: "linesman check".
func (cmd *command) prefix() string {
	if cmd.name == "" {
		return "linesman"
	}
	return "linesman " + cmd.name
}

// parseFlags parses args into fs and turns the outcome into an exit status:
// ok is false when the caller should return status (usage error, or --help).
func parseFlags(fs *flag.FlagSet, args []string) (status int, ok bool) {
	if wantsHelp(args) {
		fs.Usage()
		return exitOK, false
	}
	full := fs.Usage
	fs.Usage = func() {
		name := "linesman " + fs.Name()
		if fs.Name() == "linesman" {
			name = "linesman"
		}
		fmt.Fprintf(fs.Output(), "Run '%s --help' for the flags and an example.\n", name)
	}
	defer func() { fs.Usage = full }()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	return 0, true
}

// wantsHelp reports whether the mode's own arguments (those before "--")
// ask for help.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--h", "--help":
			return true
		}
	}
	return false
}

// parseFlagsAnywhere parses flags before, between and after the positional
// arguments ("view FILE --follow", "explain CODE --json"), which the flag
// package alone stops at; "--" ends the flags. It returns the positional
// arguments; ok is false when the caller should return status.
func parseFlagsAnywhere(fs *flag.FlagSet, args []string) (positional []string, status int, ok bool) {
	for {
		if status, ok := parseFlags(fs, args); !ok {
			return nil, status, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, true
		}
		if afterDashes(args, rest) {
			return append(positional, rest...), 0, true // everything after "--" is positional
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// afterDashes reports whether parsing args stopped at a "--" (rest being
// what came after it), not at a positional argument.
func afterDashes(args, rest []string) bool {
	return len(args) > len(rest) && args[len(args)-len(rest)-1] == "--"
}

// serverFlags are the flags of the modes that start a server (the
// inspector, check, send), read straight into the run's options.
type serverFlags struct {
	opts  run.Options
	theme string // the inspector's
	// --config FILE [--host H] [--workspace DIR] NAME: the server a host
	// config names (check's --config also takes --all).
	config, host, workspace string
}

// register adds the server flags to fs; json and theme say whether the
// mode has --json and --theme, what is done with --config's server.
func (f *serverFlags) register(fs *flag.FlagSet, json, theme bool, configUse string) {
	o := &f.opts
	fs.StringVar(&o.Era, "era", "auto", "protocol era: auto (probe with server/discover, fall back to initialize), legacy or modern")
	durationVar(fs, &o.Session.Timeout, "timeout", 60*time.Second, "how long to wait for the answer to each request")
	durationVar(fs, &o.Session.ProbeTimeout, "probe-timeout", session.DefaultProbeTimeout, "--era auto: how long the era probe waits for an answer to server/discover before falling back to initialize (at most --timeout); it ends at once when the server answers or exits, so only a server that never answers waits this long")
	durationVar(fs, &o.Session.ProbeSilence, "probe-silence", session.ProbeSilence, "--era auto: once the server has read the probe, how long it may stay silent before linesman falls back to initialize (counted from the server's read of its stdin, so a slow start is never counted; only when shorter than --probe-timeout)")
	fs.Var((*envFlag)(&o.Session.Env), "e", "set an environment variable for the server, KEY=VALUE (repeatable)")
	fs.BoolVar(&o.Session.CleanEnv, "clean-env", false, "start the server with a minimal environment, as hosts do: only PATH, HOME, LANG, TERM, USER, LOGNAME and SHELL from linesman's, plus -e values")
	fs.StringVar(&o.Session.Dir, "cwd", "", "working directory of the server (default: the current one)")
	fs.StringVar(&o.Capture, "capture", "", "record the session to this file (JSON Lines)")
	fs.BoolVar(&o.CaptureEnv, "capture-env", false, "write environment variable values into the capture (names only by default)")
	fs.IntVar(&o.Session.MaxFrame, "max-frame", 16<<20, "largest frame kept whole, in bytes; longer lines are kept truncated and flagged")
	durationVar(fs, &o.Session.StdinCloseWait, "stdin-wait", 2*time.Second, "shutdown: how long to wait after closing stdin before SIGTERM")
	durationVar(fs, &o.Session.SIGTERMWait, "sigterm-wait", 2*time.Second, "shutdown: how long to wait after SIGTERM before SIGKILL")
	fs.StringVar(&o.LogFile, "log", "", "write linesman's own diagnostics to this file")
	if json {
		fs.BoolVar(&o.JSON, "json", false, "print one JSON report instead of the human one")
	}
	if theme {
		fs.StringVar(&f.theme, "theme", "auto", "colour theme: auto, dark, light or high-contrast (NO_COLOR is honoured)")
	}
	fs.StringVar(&f.config, "config", "", "the host config `FILE` (Claude Desktop, Claude Code .mcp.json, VS Code, Cursor, Windsurf, Zed, Gemini CLI, opencode, Codex, Continue, Goose, Roo Code) whose server NAME to "+configUse)
	fs.StringVar(&f.host, "host", "", "with --config: whose format the file is in (claude-desktop, claude-code, vscode, cursor, windsurf, zed, gemini-cli, opencode, codex, continue, goose, roo-code), when its name does not say")
	fs.StringVar(&f.workspace, "workspace", "", "with --config: the workspace folder for ${workspaceFolder} (default: the file's project)")
}

// registerCI adds the flags of check and send for CI: report files beside
// the text or JSON report, --fail-on and the policy.
func (f *serverFlags) registerCI(fs *flag.FlagSet) {
	o := &f.opts
	fs.StringVar(&o.CI.JUnit, "junit", "", "also write a JUnit XML report to `FILE`: a test suite for the server, a test case per rule family (it fails when its findings fail the run under --fail-on; not observed and not applicable are skipped)")
	fs.StringVar(&o.CI.FailOn, "fail-on", "error", "the least severity of finding that fails the run (exit status 1): error, warning or note")
	fs.StringVar(&o.CI.SARIF, "sarif", "", "also write a SARIF 2.1.0 log to `FILE`: a rule per finding code (title, why and fix, clause), a result per finding")
	p := &o.Policy
	fs.Var((*listFlag)(&p.ExpectTools), "expect-tool", "policy: the server must list a tool named `NAME` (repeatable); missing is an expected-tool-missing error")
	fs.Var((*listFlag)(&p.ForbidTools), "forbid-tool", "policy: no listed tool may match `GLOB` (path.Match syntax: *, ?, [a-z]; repeatable); a match is a forbidden-tool-present error")
	durationVar(fs, &p.MaxDuration, "max-duration", 0, "policy: the whole run (start to exit) must take at most this long, else run-over-max-duration (0: no limit)")
	durationVar(fs, &p.MaxLatency, "max-latency", 0, "policy: each request must be answered within this, else request-over-max-latency (0: no limit)")
}

// parse parses a server mode's command line into f: the flags, then the
// server — after "--", or named in --config's file — and checks them. ok
// is false when the caller should return status.
func (f *serverFlags) parse(cmd *command, fs *flag.FlagSet, args []string, stderr io.Writer) (status int, ok bool) {
	if status, ok := parseFlags(fs, args); !ok {
		return status, false
	}
	return f.settle(cmd, fs, args, stderr)
}

// settle checks the flags parsed from args and settles the server: the
// command after the flags, or the one --config's file names.
func (f *serverFlags) settle(cmd *command, fs *flag.FlagSet, args []string, stderr io.Writer) (status int, ok bool) {
	if err := f.opts.Validate(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd.prefix(), err)
		return exitUsage, false
	}
	if f.config == "" && (f.host != "" || f.workspace != "") {
		fmt.Fprintf(stderr, "%s: --host and --workspace go with --config FILE\n", cmd.prefix())
		return exitUsage, false
	}
	f.opts.Session.Command = fs.Args()
	if f.config != "" {
		if status, ok := f.resolveConfig(cmd, fs, args, stderr); !ok {
			return status, false
		}
	}
	if err := run.CheckCaptureTarget(f.opts.Capture); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd.prefix(), err)
		return exitUsage, false
	}
	if len(f.opts.Session.Command) == 0 && cmd.name != "" {
		fmt.Fprintf(stderr, "%s: no server command; usage: %s\n", cmd.prefix(), cmd.usageLine)
		return exitUsage, false
	}
	f.opts.Name, f.opts.Mode = cmd.prefix(), cmd.name
	f.opts.Signals = run.Signals{Stop: run.StopSignals()}
	return 0, true
}

// envFlag collects repeated -e KEY=VALUE flags.
type envFlag []string

func (e *envFlag) String() string { return strings.Join(*e, " ") }

func (e *envFlag) Set(v string) error {
	k, _, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return errors.New("want KEY=VALUE")
	}
	*e = append(*e, v)
	return nil
}
