package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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
