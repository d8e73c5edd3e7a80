package ui

import (
	"fmt"
	"path/filepath"
	"time"

	"linesman/capture"
)

// CaptureOptions are the options of the inspector over a capture at path,
// read-only (fl, when it is followed as it grows): its title says what it
// is and what was skipped, its clock stands still at the last event of a
// closed capture, and a tap's capture says why it is read-only and offers
// the next live tap (T). The caller adds the ProgramOptions.
func CaptureOptions(c *capture.Capture, fl *capture.Follower, path, theme string) Options {
	readOnly, next := capture.TapUIOptions(path, fl != nil)
	title := "capture " + filepath.Base(path)
	if t, ok := capture.TapTitle(path); ok {
		title = t
	}
	now := c.Log.Since // following: the writer's clock, live
	if fl == nil {
		// A closed capture: time stands still at its last event, so ages
		// and uptimes read as they did when it was recorded.
		var end time.Duration
		if _, next := c.Log.Bounds(); next > 1 {
			if ev, ok := c.Log.Get(next - 1); ok {
				end = ev.At
			}
		}
		now = func() time.Duration { return end }
	} else {
		title += " (following)"
	}
	if c.Torn > 0 {
		title += " — torn last record skipped"
	}
	if c.SkippedCount > 0 {
		title += fmt.Sprintf(" — %d bad record(s) skipped (listed on exit)", c.SkippedCount)
	}
	env := make([]string, len(c.Header.Env))
	for i, v := range c.Header.Env {
		env[i] = v.Name
		if v.Value != nil {
			env[i] += "=" + *v.Value
		}
	}
	return Options{
		Log:        c.Log,
		Tracker:    c.Tracker,
		Session:    nil, // read-only: no composer, no process control
		ReadOnly:   readOnly,
		NextSource: next,
		Header:     c.Header, // exports (X) describe the recorded session
		Theme:      theme,
		Title:      title,
		Now:        now,
		ProcessInfo: func() ([]string, []string, string, int64) {
			return c.Header.Command, env, c.Header.Cwd, 0
		},
	}
}
