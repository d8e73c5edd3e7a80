package main

import (
	"fmt"

	"linesman/capture/mock"
	"linesman/session/fault"
)

var cmdMock = &command{
	name:      "mock",
	usageLine: "linesman mock [--timing recorded|fast] CAPTURE",
	// The mock's stdout and stderr are the recorded server's: bytes
	// pass as recorded, never made inert.
	output: passThrough,
	run:    runMock,
	long: `linesman mock — a recording played back as a stdio MCP server

Usage:
  linesman mock [--timing recorded|fast] [--fault SPEC]... CAPTURE

Runs over stdio as the server CAPTURE recorded (a linesman capture, a tap's
recording, or any conversation 'check --from' reads). Each request gets the
recorded answer to the same request, matched by method and params exactly,
then by params but for _meta, then by the stable members (a tool's name and
arguments, a prompt's name, a resource's uri; the method alone for methods
that have none); its id, and a progress notification's token, become the
live request's. The server's own requests, notifications, stray stdout lines
and stderr come where they came in the recording, and the mock ends as the
server did: its exit code, its signal, or holding on past the end of its
stdin until a signal. A request with no match gets a JSON-RPC error (-32601
for a method never recorded, -32602 for other params) and a stderr line
naming the closest recorded request. --timing fast drops the recorded delays.
--fault injects the faults tap --fault does into what the mock answers,
each said on stderr as it is injected.

Examples:
  linesman check -- linesman mock run.jsonl
  linesman mock --timing fast ~/Library/Logs/Claude/mcp-server-weather.log
  linesman check -- linesman mock --fault drop@tools/list run.jsonl
`,
}

// runMock is "linesman mock": flags -> options -> mock.Serve.
func runMock(cmd *command, args []string, sio stdio) int {
	stdin, stdout, stderr := sio.in, sio.out, sio.err
	fs := cmd.newFlagSet(sio)
	timing := fs.String("timing", "recorded", "recorded: keep the recorded delays; fast: answer at once")
	var faults []fault.Spec
	registerFaults(fs, &faults)
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	t, err := mock.ParseTiming(*timing)
	if err != nil || fs.NArg() != 1 {
		if err == nil {
			err = fmt.Errorf("want exactly one CAPTURE")
		}
		fmt.Fprintf(stderr, "linesman mock: %v\nRun 'linesman mock --help' for the flags and an example.\n", err)
		return exitUsage
	}
	end, err := mock.Serve(fs.Arg(0), mock.Options{Timing: t, Stdin: stdin, Stdout: stdout, Stderr: stderr, Faults: faults})
	if err != nil {
		fmt.Fprintf(stderr, "linesman mock: %v\n", err)
		return exitFindings
	}
	if end.Signal != "" {
		return mock.Raise(end.Signal)
	}
	return end.Code
}
