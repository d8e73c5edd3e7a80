package main

import (
	"fmt"
	"io"
	"os"

	"linesman/session/run"
	"linesman/wire"
)

var cmdSend = &command{
	name:        "send",
	usageLine:   "linesman send [flags] -- COMMAND [ARG...]",
	configNames: true,
	run:         runSend,
	long: `linesman send — send hand-written frames to an MCP stdio server and report

Usage:
  linesman send [flags] -- COMMAND [ARG...]  < frames.jsonl
  linesman send [flags] --file frames.jsonl -- COMMAND [ARG...]

The server starts first. Frames are read one per line, and each goes to the
server as soon as it is read, so a slow producer paces the conversation (a
JSON value written over several lines, pretty-printed, is joined and sent as
one compact line once its last line is read). By default linesman makes the
handshake first (the era probe, then initialize or server/discover), then
sends each line, filling in ids: a line that is a JSON
object with a "method", without an "id", and whose method does not start with
"notifications/" is a request, and gets the next free id (one never used in
the session, past every integer id given by hand). In the modern era
(2026-07-28) a request without params._meta also gets the _meta that era
requires (protocol version, client capabilities and info), inserted at the
start of params; a _meta written by hand is left alone. A message without
"jsonrpc" (a request, a notification, an answer) gets "jsonrpc":"2.0". The
inspector's composer completes what it sends the same way. Blank lines are
skipped. Other lines are sent as they are, followed by "\n". The handshake used the
first ids: a hand-written id that repeats one is reported as a reused id.

--raw sends the input exactly as given, byte for byte, each frame as the
wire cuts it — no handshake, no ids, no line ends added or changed,
malformed frames included: that is how to show a server a broken frame on
purpose. linesman adds nothing of its own: the server's requests are not
answered unless --answer asks for it. --era still says which era's rules
judge the conversation. A request on a last line without a newline is not
waited for (a server reading lines sees it only at EOF).

When the input ends, linesman waits for the answers to every request sent
(each at most --timeout), closes the server's stdin, runs the shutdown ladder
and prints the report with every frame that crossed the wire, each whole
(--json: one JSON document, schema in docs/report.md; --max-text N cuts each
frame's text at N bytes and says so).

Exit status: 0 no finding at or above the --fail-on severity (error by
default), 1 at least one (or the run failed: no handshake, no server),
2 usage error; stopped by a signal, 128+n: 130 SIGINT (^C), 143 SIGTERM,
129 SIGHUP (the server is still shut down and the report printed).

Examples:
  echo '{"jsonrpc":"2.0","method":"tools/list"}' | linesman send -- python3 server.py
  printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n{"id":1,\n' |
      linesman send --raw --json -- ./server
`,
}

// runSend is "linesman send".
func runSend(cmd *command, args []string, sio stdio) int {
	var f serverFlags
	fs := cmd.newFlagSet(sio)
	f.register(fs, true, false, "send to")
	f.registerCI(fs)
	file := fs.String("file", "", "read the frames from this file instead of stdin")
	raw := fs.Bool("raw", false, "send the input byte for byte: no handshake, no ids filled in, nothing fixed, nothing added")
	answer := fs.Bool("answer", false, "with --raw: answer the server's requests as check does (ping, roots/list; sampling and elicitation declined)")
	fs.IntVar(&f.opts.MaxText, "max-text", 0, "cut each frame's text in the report at this many bytes (0: every frame whole, however large)")
	if status, ok := f.parse(cmd, fs, args, sio.err); !ok {
		return status
	}
	if *answer && !*raw {
		fmt.Fprintln(sio.err, "linesman send: --answer applies to --raw (without it, linesman answers the server's requests anyway)")
		return exitUsage
	}
	var input io.Reader = sio.in
	if *file != "" {
		in, err := os.Open(*file)
		if err != nil {
			fmt.Fprintf(sio.err, "linesman send: reading the frames: %v\n", err)
			return exitUsage
		}
		defer in.Close()
		input = in
	} else if inspectTerminal(sio.in) {
		// Otherwise a person sees nothing happen: say what is awaited.
		fmt.Fprintln(sio.err, "linesman send: reading frames from the terminal, one per line; end with ctrl+d (or give --file F)")
	}
	next := wire.NewInputReader(input).Next
	if *raw {
		// The input opens the conversation; --era still says which era's
		// rules judge it. linesman adds no frame of its own unless asked.
		f.opts.Session.NoHandshake = true
		f.opts.Session.Observe = !*answer
		next = wire.NewRawInput(input, f.opts.Session.MaxFrame).Next
	}
	return run.Headless(&f.opts, run.SendSteps(f.opts.Session, next, !*raw), sio.out, sio.err)
}
