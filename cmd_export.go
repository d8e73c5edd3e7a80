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
	long: `linesman export — write a capture in another form

Usage:
  linesman export FILE --format replay|findings|transcript|latency|otlp

Exports a capture written with --capture to standard output:

  replay      a shell script, printf '...' | COMMAND, that pipes the client
              frames into the server byte for byte (a bug-report attachment;
              run it where the server ran)
  findings    the findings as JSON, in the schema of 'linesman check --json',
              recomputed from the recorded bytes
  transcript  the session as readable text, escape sequences made inert
  latency     JSON Lines: per method, then per tool, the count, p50, p95,
              p99 and max in ms of the client's calls; then one line per
              call with its rounds (a 2026-07-28 multi-round request is one
              call) and the polls of the task it created
  otlp        OTLP JSON (an ExportTraceServiceRequest): one trace, one span
              per call with its method, tool, era and error, its rounds and
              polls as events; Jaeger or any OTLP viewer loads it

Example:
  linesman export run.jsonl --format replay > replay.sh && sh replay.sh
`,
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
