package main

import (
	"bufio"
	"fmt"
	"slices"
	"strings"

	"linesman/capture"
)

var cmdExport = &command{
	name:      "export",
	usageLine: "linesman export FILE --format replay|findings|transcript",
	run:       runExport,
	long:      helpText("export"),
}

// runExport writes a capture in another form.
func runExport(cmd *command, args []string, sio stdio) int {
	stdout, stderr := sio.out, sio.err
	fs := cmd.newFlagSet(sio)
	format := fs.String("format", "transcript", "what to export: replay, findings, transcript, latency or otlp")
	// Accept the file before or after the flags: "export FILE --format F"
	// is how the usage line reads, and the flag package stops at FILE.
	var path string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		path, args = args[0], args[1:]
	}
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	if path == "" && fs.NArg() == 1 {
		path = fs.Arg(0)
	} else if fs.NArg() != 0 || path == "" {
		fmt.Fprintln(stderr, "linesman export: want exactly one capture FILE")
		fmt.Fprintf(stderr, "Run 'linesman export --help' for the flags and an example.\n")
		return exitUsage
	}
	if !slices.Contains(capture.Formats, *format) {
		fmt.Fprintf(stderr, "linesman export: --format %q: want %s\n", *format, strings.Join(capture.Formats, ", "))
		return exitUsage
	}

	c, err := capture.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "linesman export: %v\n", err)
		return exitFindings
	}
	c.Warn(stderr, "linesman export", path)
	w := bufio.NewWriter(stdout)
	err = capture.Export(w, *format, c.Log, c.Tracker, c.Header)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman export: %v\n", err)
		return exitFindings
	}
	return exitOK
}
