package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"linesman/capture"
	"linesman/session/report"
	"linesman/wire"
)

const diffHeader = `linesman diff — what changed between two sessions of a server

Usage:
  linesman diff [--json] [--exit-code] A B

A and B are each a capture (check --capture, the inspector's, a tap's), a
recorded conversation linesman reads (a Claude Desktop MCP log, an mcpsnoop
log, JSON Lines of {dir, message}, a transcript of "> " and "< " lines) or a
JSON report of check (--json). B is
the newer. It lists:

  definitions  tools, prompts and resources added, removed or changed:
               schemas compared structurally (key order and spacing do not
               count), descriptions compared as text. A changed description
               is security-relevant: the model reads it, so it can carry new
               instructions (tool-description-changed).
  findings     codes raised in B and not in A (new), more or fewer often,
               or no more (fixed)
  latency      the median time of the client's requests per method, A → B

Breaking changes (marked !): a tool, prompt or resource removed; a tool's
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
`

// runDiff is "linesman diff A B".
func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("diff", diffHeader, stdout, stderr)
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
	var reps [2]*report.Report
	for i, path := range files {
		r, err := readSession(path)
		if err != nil {
			fmt.Fprintf(stderr, "linesman diff: %s\n", wire.VisibleString(err.Error(), wire.Pictures))
			return exitUsage
		}
		reps[i] = r
	}
	d := report.DiffReports(files[0], files[1], reps[0], reps[1])
	var err error
	if *jsonOut {
		err = d.WriteJSON(stdout)
	} else {
		err = d.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman diff: %v\n", err)
		return exitFindings
	}
	if *exitCode && d.Breaking {
		return exitFindings
	}
	return exitOK
}

// readSession reads one side of a diff: a JSON report of check (one JSON
// object with "linesman" and "findings"), or anything capture.Open reads,
// folded into a report as check --from would.
func readSession(path string) (*report.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		var probe map[string]json.RawMessage
		if json.Unmarshal(trimmed, &probe) == nil {
			if string(probe["mode"]) == `"check-all"` {
				return nil, fmt.Errorf("%s: a report of check --all; diff compares two sessions of one server (give each server's report)", path)
			}
			if probe["linesman"] != nil && probe["findings"] != nil {
				var r report.Report
				if err := json.Unmarshal(trimmed, &r); err != nil {
					return nil, fmt.Errorf("%s: a JSON report that does not decode: %v", path, err)
				}
				return &r, nil
			}
		}
	}
	c, err := capture.Open(path)
	if err != nil {
		return nil, err
	}
	r := report.FromLog(c.Log, c.Tracker, report.Meta{Mode: "diff", Command: c.Header.Command})
	return &r, nil
}
