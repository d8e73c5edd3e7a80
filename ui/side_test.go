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
