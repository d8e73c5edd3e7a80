package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"linesman/capture"
	"linesman/session/hosts"
	"linesman/session/report"
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
	var sides [2]diffSide
	for i, path := range files {
		side, err := readSession(path, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "linesman diff: %s\n", wire.VisibleString(err.Error(), wire.Pictures))
			return exitUsage
		}
		sides[i] = side
	}
	if (sides[0].all == nil) != (sides[1].all == nil) {
		fmt.Fprintln(stderr, "linesman diff: one side is a report of check --all, the other one server's session: give two --all reports (compared server by server), or two sessions of one server")
		return exitUsage
	}
	var d interface {
		WriteJSON(io.Writer) error
		WriteText(io.Writer) error
	}
	breaking := false
	if sides[0].all != nil {
		md := report.DiffMulti(files[0], files[1], sides[0].all, sides[1].all)
		d, breaking = &md, md.Breaking
	} else {
		one := report.DiffReports(files[0], files[1], sides[0].one, sides[1].one)
		for _, side := range sides {
			if u := side.one.Unread(); u != "" {
				one.Unread = append(one.Unread, u)
			}
		}
		d, breaking = &one, one.Breaking
	}
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
	if *exitCode && breaking {
		return exitFindings
	}
	return exitOK
}

// diffSide is one side of a diff: one server's report, or a check --all
// report of many.
type diffSide struct {
	one *report.Report
	all *report.Multi
}

// maxDiffReport bounds a JSON report read by diff.
const maxDiffReport = 64 << 20

// readSession reads one side of a diff: a JSON report of check (one JSON
// object with "linesman" and "findings"), of check --all (mode
// "check-all"), or anything capture.Open reads, folded into a report as
// check --from would.
func readSession(path string, stderr io.Writer) (diffSide, error) {
	// A JSON report is read whole, within a bound; a larger file can only
	// be a recording, which capture.Open streams.
	data, err := hosts.ReadFileLimited(path, "a JSON report", maxDiffReport)
	if err != nil && !errors.Is(err, hosts.ErrTooLarge) {
		return diffSide{}, err
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		var probe map[string]json.RawMessage
		if json.Unmarshal(trimmed, &probe) == nil {
			if string(probe["mode"]) == `"check-all"` {
				var m report.Multi
				if err := json.Unmarshal(trimmed, &m); err != nil {
					return diffSide{}, fmt.Errorf("%s: a check --all report that does not decode: %v", path, err)
				}
				return diffSide{all: &m}, nil
			}
			if probe["linesman"] != nil && probe["findings"] != nil {
				var r report.Report
				if err := json.Unmarshal(trimmed, &r); err != nil {
					return diffSide{}, fmt.Errorf("%s: a JSON report that does not decode: %v", path, err)
				}
				return diffSide{one: &r}, nil
			}
		}
	}
	c, err := capture.Open(path)
	if err != nil {
		return diffSide{}, err
	}
	c.Warn(stderr, "linesman diff", path)
	r := report.FromLog(c.Log, c.Tracker, report.Meta{Mode: "diff", Command: c.Header.Command})
	c.NoteUnread(&r, path)
	return diffSide{one: &r}, nil
}
