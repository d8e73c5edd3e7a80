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
	long:        helpText("send"),
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
	run.PaceForHeadless()
	return run.Headless(&f.opts, run.SendSteps(f.opts.Session, next, !*raw), sio.out, sio.err)
}
