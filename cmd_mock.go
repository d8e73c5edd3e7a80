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
	long:   helpText("mock"),
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
