package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"linesman/session/hosts"
	"linesman/session/report"
)

// A Difference is what linesman diff prints: the differences between two
// sessions of one server ([report.Diff]) or two check --all reports
// ([report.MultiDiff]).
type Difference interface {
	WriteJSON(io.Writer) error
	WriteText(io.Writer) error
}

// Diff compares two sessions of a server, each a capture, a recorded
// conversation [Open] reads or a JSON report of check, or two JSON reports
// of check --all, server by server; b is the newer. What of a recording
// could not be read is said on stderr. breaking says whether a change
// breaks clients.
func Diff(a, b string, stderr io.Writer) (d Difference, breaking bool, err error) {
	var sides [2]diffSide
	for i, path := range []string{a, b} {
		if sides[i], err = readSession(path, stderr); err != nil {
			return nil, false, err
		}
	}
	if (sides[0].all == nil) != (sides[1].all == nil) {
		return nil, false, errors.New("one side is a report of check --all, the other one server's session: give two --all reports (compared server by server), or two sessions of one server")
	}
	if sides[0].all != nil {
		md := report.DiffMulti(a, b, sides[0].all, sides[1].all)
		return &md, md.Breaking, nil
	}
	one := report.DiffReports(a, b, sides[0].one, sides[1].one)
	for _, side := range sides {
		if u := side.one.Unread(); u != "" {
			one.Unread = append(one.Unread, u)
		}
	}
	return &one, one.Breaking, nil
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
	r, err := ReportOf(path, report.Meta{Mode: "diff"}, stderr)
	if err != nil {
		return diffSide{}, err
	}
	return diffSide{one: &r}, nil
}
