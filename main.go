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
	"runtime/debug"

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
		limitMemory()
	}
	os.Exit(runArgs(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
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

// readingGCPercent is the collector's pace (GOGC) while a mode fills one
// event log it keeps to the end: a recording read whole under a soft memory
// limit other than linesman's own (paceForReading), or a headless run's
// server read into the log its report is made of (paceForHeadless). The heap
// is then mostly that log, which the default pace marks again at every
// doubling (a third of check --from's user CPU, a tenth of a live check's
// under a flood).
const readingGCPercent = 400

// paceForReading paces the collector while a mode reads a recording whole,
// unless GOGC is set. The heap is then the log being filled: below the
// soft memory limit there is little to collect, so under linesman's own
// limit (limitMemory: the log's budget and headroom) the collector is left
// to the limit alone, and marks nothing while a recording smaller than the
// budget is read (check --from of a 73 MB capture: 9% less CPU, the same
// peak RSS). Under a larger limit, or none (GOMEMLIMIT, or a test), a pace
// of readingGCPercent still bounds the heap.
func paceForReading() {
	if os.Getenv("GOGC") != "" {
		return
	}
	if debug.SetMemoryLimit(-1) <= eventlog.MemoryLimit {
		debug.SetGCPercent(-1)
		return
	}
	debug.SetGCPercent(readingGCPercent)
}

// paceForHeadless sets readingGCPercent for check and send, unless GOGC is
// set: their heap is mostly the log too, but a live run may go on for long
// and make garbage as it goes (a send session), so the collector keeps a
// pace rather than wait for the soft memory limit (limitMemory), which
// still bounds the heap.
func paceForHeadless() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(readingGCPercent)
	}
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
