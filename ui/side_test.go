package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
)

// TestStderrTitleCountsInEnglish: one stderr line is "1 line".
func TestStderrTitleCountsInEnglish(t *testing.T) {
	f := newFixture(t)
	f.stderr("only line")
	screen := ansi.Strip(f.model(80, 24, nil).Render())
	if !strings.Contains(screen, "stderr & events 1 line ") {
		t.Errorf("stderr pane title:\n%s", screen)
	}
}

// TestProcessPaneQuotesTheCommand: `sh -c 'echo bye >&2; exit 3'` is shown
// quoted, not as "sh -c echo bye >&2; exit 3", which reads as another
// command.
func TestProcessPaneQuotesTheCommand(t *testing.T) {
	f := misbehaving(t, false)
	m := NewModel(Options{Log: f.log, Tracker: f.tr, Theme: "dark", ProcessInfo: func() (cmd, env []string, dir string, pending int64) {
		return []string{"sh", "-c", "echo bye >&2; exit 3"}, nil, "/", 0
	}})
	t.Cleanup(m.Close)
	m.Update(tea_WindowSize(160, 48))
	if screen := ansi.Strip(m.Render()); !strings.Contains(screen, `cmd sh -c 'echo bye >&2; exit 3'`) {
		t.Errorf("process pane:\n%s", screen)
	}
}

// TestStderrHeaderCountsWhatItShows: the pane lists stderr lines and events
// (notes, process changes, findings) one per row; its header counts them
// all, not the stderr lines alone.
func TestStderrHeaderCountsWhatItShows(t *testing.T) {
	f := newFixture(t)
	f.stderr("one")
	f.note("a note")
	f.stderr("two")
	f.finding("request-timeout", "no answer", 0)
	f.stderr("three")
	screen := ansi.Strip(f.model(80, 24, nil).Render())
	if !strings.Contains(screen, "stderr & events 5 lines") {
		t.Errorf("the header does not count the 5 rows it lists:\n%s", screen)
	}
}

// TestProcessPaneSaysWhoEndedIt: a server that exits when its host (a
// tap's) closes stdin, or on the host's SIGTERM, did not end "on its own":
// the process pane says who ended it.
func TestProcessPaneSaysWhoEndedIt(t *testing.T) {
	cases := []struct {
		exit eventlog.ProcessEvent
		want string
	}{
		{eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 7, AfterEOF: true, ByHost: true}, "after its stdin was closed (by the host)"},
		{eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 7, ExitCode: 7, Step: eventlog.StepSIGTERM, ByHost: true}, "ended by the host's SIGTERM"},
		{eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 7, ExitCode: 1}, "on its own"},
	}
	for _, tc := range cases {
		f := newFixture(t)
		f.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 7})
		if tc.exit.Step != eventlog.StepNone {
			f.process(eventlog.ProcessEvent{State: eventlog.StateExiting, Step: tc.exit.Step, Pid: 7, ByHost: true, Signal: "SIGTERM"})
		}
		f.process(tc.exit)
		screen := ansi.Strip(f.model(160, 48, nil).Render())
		if !strings.Contains(screen, tc.want) {
			t.Errorf("process pane does not say %q:\n%s", tc.want, screen)
		}
		if tc.exit.ByHost && strings.Contains(screen, "on its own") {
			t.Errorf("process pane says %q of a server its host ended", "on its own")
		}
	}
}
