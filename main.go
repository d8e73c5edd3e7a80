// Command linesman is a terminal inspector for MCP servers that speak
// JSON-RPC over stdio. It starts a server through an isolated transport and
// shows every frame on the wire, the server's stderr, the requests in flight
// and the state of the process, and calls out what breaks stdio framing.
//
// main is a table of commands ([commands], the shape of cmd/go's
// base.Command): each mode's file reads its flags into options and makes
// one call into the package that does the work — session/run for a run of
// a server (the inspector, check, send, tap, view), capture, report, hosts
// and wire for the rest.
package main

import (
	"embed"
	"fmt"
	"io"
	"os"

	"linesman/session/eventlog"
	"linesman/session/run"
	"linesman/wire"
)

// Exit statuses of the headless modes (and of usage errors everywhere).
const (
	exitOK       = run.StatusOK     // no finding of severity error
	exitFindings = run.StatusFailed // at least one finding of severity error (or a runtime failure)
	exitUsage    = run.StatusUsage  // the command line was wrong
)

// A command is one mode of linesman, a row of [commands].
type command struct {
	name      string // the first argument that picks it; "" for the inspector, the default
	usageLine string // how it is called, for usage errors
	long      string // what --help prints above the flags
	// configNames: the server may be named in a host's config,
	// --config FILE [--host H] [--workspace DIR] NAME, instead of given
	// after "--" (see serverFlags.resolveConfig).
	configNames bool
	// output says what becomes of what the mode writes.
	output output
	run    func(cmd *command, args []string, io stdio) int
}

// output is what [run] does with a mode's stdout and stderr.
type output int

const (
	// inert: both go through an [wire.InertWriter], so that a path, a header
	// field or a server message quoted anywhere in them cannot drive the
	// terminal, whichever code path wrote it.
	inert output = iota
	// draws: stderr is inert; stdout is the UI's, which draws on it itself.
	draws
	// passThrough: stdout and stderr are the server's (tap: a host reads
	// them as the server's; mock, demo-server: they are the wire), passed
	// byte for byte.
	passThrough
)

// stdio is a mode's standard input and outputs.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// commands are the modes of linesman; the inspector is the default.
var commands []*command

func init() {
	commands = []*command{
		cmdInspect, cmdCheck, cmdSend, cmdTap, cmdTaps, cmdView, cmdWrap, cmdUnwrap,
		cmdExport, cmdExplain, cmdDiff, cmdMock, cmdDemoServer, cmdHelp, cmdVersion,
	}
}

func main() {
	if len(os.Args) < 2 || os.Args[1] != "demo-server" {
		run.LimitMemory()
	}
	os.Exit(runArgs(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// lookup is the command args[0] names and its arguments; anything else is
// the inspector's command line.
func lookup(args []string) (*command, []string) {
	if len(args) > 0 {
		for _, c := range commands {
			if c.name != "" && c.name == args[0] {
				return c, args[1:]
			}
		}
		switch args[0] {
		case "--version", "-version":
			return cmdVersion, args[1:]
		}
	}
	return cmdInspect, args
}

// runArgs runs the mode args name and returns the process exit status.
func runArgs(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, args := lookup(args)
	sio := stdio{in: stdin, out: stdout, err: stderr}
	if cmd.output != passThrough {
		errw := wire.NewInertWriter(stderr)
		defer errw.Flush()
		sio.err = errw
	}
	if cmd.output == inert {
		outw := wire.NewInertWriter(stdout)
		defer outw.Flush()
		sio.out = outw
	}
	return cmd.run(cmd, args, sio)
}

var cmdHelp = &command{
	name:   "help",
	output: passThrough,
	run: func(_ *command, _ []string, io stdio) int {
		fmt.Fprint(io.out, helpText("overview"))
		return exitOK
	},
}

var cmdVersion = &command{
	name: "version",
	run: func(_ *command, _ []string, io stdio) int {
		fmt.Fprintf(io.out, "linesman %s\n", eventlog.Version)
		return exitOK
	},
}

// help holds each mode's long help (--help), help/NAME.txt, and the
// overview of them all (`linesman help`), help/overview.txt: prose kept
// apart from the code that parses the flags it describes.
//
//go:embed help
var help embed.FS

// helpText is help/name.txt.
func helpText(name string) string {
	b, err := help.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err) // a mode without its help: caught by every test of --help
	}
	return string(b)
}
