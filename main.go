// Command linesman is a terminal inspector for MCP servers that speak
// JSON-RPC over stdio. It starts a server through an isolated transport and
// shows every frame on the wire, the server's stderr, the requests in flight
// and the state of the process, and calls out what breaks stdio framing.
//
// main only reads the command line, picks a mode and wires the packages
// together; each mode lives in its own cmd_*.go file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"linesman/session"
	"linesman/session/eventlog"
)

// Exit statuses of the headless modes (and of usage errors everywhere).
const (
	exitOK       = 0 // no finding of severity error
	exitFindings = 1 // at least one finding of severity error (or a runtime failure)
	exitUsage    = 2 // the command line was wrong
)

const usageText = `linesman — a line judge for MCP servers that speak JSON-RPC over stdio

Usage:
  linesman [flags] [-- COMMAND [ARG...]]      inspect COMMAND (default: the built-in demo server)
  linesman check [flags] -- COMMAND [ARG...]  headless conformance run; report; exit status
  linesman check [--json] --from FILE         judge a recorded conversation (capture, Claude Desktop log, mcpsnoop log, JSON Lines, transcript)
  linesman send  [flags] -- COMMAND [ARG...]  headless: send hand-written frames (stdin or --file)
  linesman --config FILE [flags] NAME         inspect the server NAME of a host's config (check too)
  linesman tap [--name N] -- COMMAND [ARG...] run by a host in place of the server: forwards, records, judges
  linesman taps                               list live and recent taps
  linesman view  [--follow] FILE|TAP          open a capture or a recorded conversation (--follow tails a capture; TAP: a tap's name or latest)
  linesman wrap|unwrap (--host H|--config F)  route a host's servers through the tap, and back
  linesman export FILE --format F             export a capture (replay script, findings JSON, transcript)
  linesman check --config FILE --all          check every server of a host's config (or a plain list) in parallel
  linesman diff [--exit-code] A B             what changed between two sessions (captures or check --json reports)
  linesman explain [CODE|FAMILY]              the rule families; what a finding means and how to fix it
  linesman demo-server [--isolate=false]      the demo server itself (speaks MCP on stdio)
  linesman mock [--timing fast] CAPTURE       a recording played back as a stdio server
  linesman --version                          print the version

Run 'linesman COMMAND --help' for the flags of a mode.
Exit status of check and send: 0 no finding of severity error, 1 at least one, 2 usage error.
Stopped by a signal, every mode: 128+n, 130 SIGINT, 143 SIGTERM, 129 SIGHUP (the server is
shut down first); quitting the inspector or view with q or ctrl+c: 0.
`

func main() {
	if len(os.Args) < 2 || os.Args[1] != "demo-server" {
		limitMemory()
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// limitMemory sets a soft memory limit a little above the event log's
// retention budget, so that the garbage collector does not let the heap grow
// to twice the budget under a flood (measured: 1.2 GB of frames through a
// check, peak RSS 542 MB without the limit, 413 MB with it, same speed).
// GOMEMLIMIT, when set, wins. It is soft: a larger heap only makes the
// collector run more often.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(eventlog.MemoryLimit)
	}
}

// run dispatches to a mode and returns the process exit status.
//
// Everything linesman itself prints goes through an [inertWriter]: stderr
// in every mode, stdout in the headless ones (the UI draws on stdout
// itself; the demo server's stdout is the wire).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "demo-server" {
		return runDemoServer(args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "mock" {
		// The mock's stdout and stderr are the recorded server's: bytes
		// pass as recorded, never made inert.
		return runMock(args[1:], stdin, stdout, stderr)
	}
	errw := &inertWriter{w: stderr}
	defer errw.Flush()
	outw := &inertWriter{w: stdout}
	defer outw.Flush()
	args, status, ok := configArgs(args, errw) // --config FILE NAME: the server a host config names
	if !ok {
		return status
	}
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return runCheck(args[1:], stdin, outw, errw)
		case "send":
			return runSend(args[1:], stdin, outw, errw)
		case "view":
			// The inspector draws on stdout itself; a transcript goes
			// through an inertWriter of runView's.
			return runView(args[1:], stdout, errw)
		case "export":
			return runExport(args[1:], outw, errw)
		case "explain":
			return runExplain(args[1:], outw, errw)
		case "diff":
			return runDiff(args[1:], outw, errw)
		case "tap":
			// A host reads the tap's stdout and stderr as the server's:
			// they pass bytes through unchanged.
			return runTap(args[1:], stdin, stdout, stderr)
		case "taps":
			return runTaps(args[1:], outw, errw)
		case "wrap", "unwrap":
			return runWrap(args[0], args[1:], outw, errw)
		case "help":
			fmt.Fprint(stdout, usageText)
			return exitOK
		case "--version", "-version", "version":
			fmt.Fprintf(stdout, "linesman %s\n", eventlog.Version)
			return exitOK
		}
	}
	return runInspect(args, stdout, errw)
}

// commonFlags are the flags shared by the modes that start a server.
type commonFlags struct {
	era          string
	timeout      time.Duration
	probeTimeout time.Duration
	env          envFlag
	cwd          string
	capture      string
	captureEnv   bool
	theme        string
	jsonOut      bool
	logFile      string
	cleanEnv     bool
	maxFrame     int
	stdinWait    time.Duration
	sigtermWait  time.Duration
	maxText      int     // send: cap on each frame's text in the report (0: whole)
	ci           ciFlags // check, send: --junit, --sarif (cmd_ci.go)
}

// register adds the common flags to fs; which says which of the optional ones
// (json, theme, capture) the mode has.
func (c *commonFlags) register(fs *flag.FlagSet, json, theme bool) {
	fs.StringVar(&c.era, "era", "auto", "protocol era: auto (probe with server/discover, fall back to initialize), legacy or modern")
	durationVar(fs, &c.timeout, "timeout", 60*time.Second, "how long to wait for the answer to each request")
	durationVar(fs, &c.probeTimeout, "probe-timeout", session.DefaultProbeTimeout, "--era auto: how long the era probe waits for an answer to server/discover before falling back to initialize (at most --timeout); it ends at once when the server answers or exits, so only a server that never answers waits this long")
	fs.Var(&c.env, "e", "set an environment variable for the server, KEY=VALUE (repeatable)")
	fs.BoolVar(&c.cleanEnv, "clean-env", false, "start the server with a minimal environment, as hosts do: only PATH, HOME, LANG, TERM, USER, LOGNAME and SHELL from linesman's, plus -e values")
	fs.StringVar(&c.cwd, "cwd", "", "working directory of the server (default: the current one)")
	fs.StringVar(&c.capture, "capture", "", "record the session to this file (JSON Lines)")
	fs.BoolVar(&c.captureEnv, "capture-env", false, "write environment variable values into the capture (names only by default)")
	fs.IntVar(&c.maxFrame, "max-frame", 16<<20, "largest frame kept whole, in bytes; longer lines are kept truncated and flagged")
	durationVar(fs, &c.stdinWait, "stdin-wait", 2*time.Second, "shutdown: how long to wait after closing stdin before SIGTERM")
	durationVar(fs, &c.sigtermWait, "sigterm-wait", 2*time.Second, "shutdown: how long to wait after SIGTERM before SIGKILL")
	fs.StringVar(&c.logFile, "log", "", "write linesman's own diagnostics to this file")
	if json {
		fs.BoolVar(&c.jsonOut, "json", false, "print one JSON report instead of the human one")
	}
	if theme {
		fs.StringVar(&c.theme, "theme", "auto", "colour theme: auto, dark, light or high-contrast (NO_COLOR is honoured)")
	}
}

// validate checks the values flag parsing cannot.
func (c *commonFlags) validate() error {
	switch c.era {
	case "auto", "legacy", "modern":
	default:
		return fmt.Errorf("--era %q: want auto, legacy or modern", c.era)
	}
	if c.timeout <= 0 {
		return fmt.Errorf("--timeout %s: want a positive duration such as 30s", c.timeout)
	}
	if c.maxFrame < 1024 {
		return fmt.Errorf("--max-frame %d: want at least 1024 bytes", c.maxFrame)
	}
	return nil
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

// splitCommand separates the server command from the mode's own arguments:
// everything after "--", or else the positional arguments flag parsing left.
func splitCommand(fs *flag.FlagSet) []string {
	return fs.Args()
}

// newFlagSet returns a flag set whose --help prints the given header and the
// flags on stdout (so that `linesman check --help | less` works), and whose
// errors go to stderr with a one-line pointer to --help rather than the whole
// text. It never exits the process.
func newFlagSet(name, header string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fs.SetOutput(stdout)
		defer fs.SetOutput(stderr)
		fmt.Fprint(stdout, header)
		fmt.Fprintln(stdout, "\nFlags:")
		printVisibleDefaults(fs)
	}
	return fs
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
