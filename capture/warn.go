package capture

import (
	"fmt"
	"io"

	"linesman/session/report"
)

// Warn says on w, each line after prefix (the mode: "linesman view"), that a torn last record was skipped and that
// events were dropped.
func (c *Capture) Warn(w io.Writer, prefix, path string) {
	if c.Torn > 0 {
		fmt.Fprintf(w, "%s: %s: the last record was cut short (%d bytes, a recorder stopped mid-write) and was skipped\n", prefix, path, c.Torn)
	}
	if c.Dropped > 0 {
		fmt.Fprintf(w, "%s: %s: the recorder lost %d events to the live log's retention limit\n", prefix, path, c.Dropped)
	}
	// Bad records were skipped, not fatal: say which, with line numbers.
	for _, sk := range c.Skipped {
		fmt.Fprintf(w, "%s: %s:%d: skipped a bad record (%d bytes): %s\n", prefix, path, sk.Line, sk.Bytes, sk.Reason)
	}
	if more := c.SkippedCount - len(c.Skipped); more > 0 {
		fmt.Fprintf(w, "%s: %s: and %d more bad records skipped\n", prefix, path, more)
	}
}

// NoteUnread adds to a report read from a recorded conversation what of
// the file could not be read (see [Capture.Unread]).
func (c *Capture) NoteUnread(rep *report.Report, path string) {
	if u := c.Unread(); u != "" {
		rep.Notes = append(rep.Notes, report.Note{Text: report.UnreadPrefix + path + ": " + u})
	}
}

// ReportOf reads the recorded conversation at path through the same fold as
// a live session ([Open]) and reports it as a run described by meta
// would be (its Command is the recording's), what of the file could not
// be read noted in the report and said on stderr.
func ReportOf(path string, meta report.Meta, stderr io.Writer) (report.Report, error) {
	c, err := Open(path)
	if err != nil {
		return report.Report{}, err
	}
	c.Warn(stderr, "linesman "+meta.Mode, path)
	meta.Command = c.Header.Command
	rep := report.FromLog(c.Log, c.Tracker, meta)
	c.NoteUnread(&rep, path)
	return rep, nil
}
