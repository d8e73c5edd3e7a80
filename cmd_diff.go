package main

import (
	"fmt"

	"linesman/capture"
	"linesman/wire"
)

var cmdDiff = &command{
	name:      "diff",
	usageLine: "linesman diff [--json] [--exit-code] A B",
	run:       runDiff,
	long:      helpText("diff"),
}

// runDiff is "linesman diff A B".
func runDiff(cmd *command, args []string, sio stdio) int {
	stdout, stderr := sio.out, sio.err
	fs := cmd.newFlagSet(sio)
	jsonOut := fs.Bool("json", false, "print the differences as one JSON document")
	exitCode := fs.Bool("exit-code", false, "exit with status 1 when a change is breaking (a removal, an incompatible input schema, a prompt argument removed or required)")
	files, status, ok := parseFlagsAnywhere(fs, args)
	if !ok {
		return status
	}
	if len(files) != 2 {
		fmt.Fprintln(stderr, "linesman diff: give two sessions, A and B (captures or check --json reports); see linesman diff --help")
		return exitUsage
	}
	d, breaking, err := capture.Diff(files[0], files[1], stderr)
	if err != nil {
		fmt.Fprintf(stderr, "linesman diff: %s\n", wire.VisibleString(err.Error(), wire.Pictures))
		return exitUsage
	}
	if *jsonOut {
		err = d.WriteJSON(stdout)
	} else {
		err = d.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman diff: %v\n", err)
		return exitFindings
	}
	if *exitCode && breaking {
		return exitFindings
	}
	return exitOK
}
