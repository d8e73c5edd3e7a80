package main

import (
	"fmt"
	"strings"

	"linesman/capture"
)

var cmdTaps = &command{
	name:      "taps",
	usageLine: "linesman taps [--dir DIR] [--all]",
	run:       runTaps,
	long:      helpText("taps"),
}

// runTaps is "linesman taps".
func runTaps(cmd *command, args []string, io stdio) int {
	stdout, stderr := io.out, io.err
	fs := cmd.newFlagSet(io)
	dir := fs.String("dir", "", "the tap directory (default: see 'linesman tap --help')")
	all := fs.Bool("all", false, "list every tap, not only the 20 newest")
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "linesman taps: takes no arguments; usage: linesman taps [--dir DIR] [--all]")
		return exitUsage
	}
	dirs, err := capture.TapDirs(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "linesman taps: %v\n", err)
		return exitFindings
	}
	taps, err := capture.ListTaps(dirs...)
	if err != nil {
		fmt.Fprintf(stderr, "linesman taps: %v\n", err)
		return exitFindings
	}
	d := strings.Join(dirs, ", ")
	if len(taps) == 0 {
		fmt.Fprintf(stdout, "no taps in %s yet; 'linesman wrap' routes a host's servers through the tap\n", d)
		return exitOK
	}
	if !*all && len(taps) > 20 {
		taps = taps[:20]
	}
	capture.WriteTapList(stdout, taps)
	fmt.Fprintf(stdout, "(%s)\n", d)
	return exitOK
}
