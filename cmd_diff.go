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
	long: `linesman diff — what changed between two sessions of a server

Usage:
  linesman diff [--json] [--exit-code] A B

A and B are each a capture (check --capture, the inspector's, a tap's), a
recorded conversation linesman reads (a Claude Desktop MCP log, an mcpsnoop
log, JSON Lines of {dir, message}, a transcript of "> " and "< " lines) or a
JSON report of check (--json); or both are JSON reports of check --all,
compared server by server (matched by the entry's name). B is the newer.
It lists:

  definitions  tools, prompts and resources added, removed or changed:
               schemas compared structurally (key order and spacing do not
               count), descriptions compared as text. A changed description
               is security-relevant: the model reads it, so it can carry new
               instructions (tool-description-changed).
  findings     codes raised in B and not in A (new), more or fewer often,
               or no more (fixed)
  latency      the time of the client's requests per method from every
               sample: median, p95 and count of each side, the median's
               shift, and "within noise" when the shift is no larger than
               2 ms, either side's spread (p95 - median), or, with fewer
               than 5 samples a side, a doubling

Breaking changes (marked !): a tool, prompt or resource removed (under
--all, a server gone from B's config too); a tool's
inputSchema changed so that arguments valid against A may be refused (a
property removed or retyped, a new required property, an enum narrowed or
added, a constraint added or changed, additionalProperties closed); a prompt
argument removed or newly required.

Exit status: 0, or with --exit-code 1 when a change is breaking; 2 usage
error or a file that cannot be read.

Examples:
  linesman check --json -- node build/index.js > before.json
  linesman check --json -- node build/index.js > after.json
  linesman diff --exit-code before.json after.json
`,
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
