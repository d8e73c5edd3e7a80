package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestQuitHelpSaysWhatQuitDoes: the help line promises the shutdown ladder
// only when there is a server to shut down; a capture opened read-only
// just quits.
func TestQuitHelpSaysWhatQuitDoes(t *testing.T) {
	f := misbehaving(t, false)
	readOnly := lastLine(ansi.Strip(f.model(120, 30, nil).Render()))
	if !strings.Contains(readOnly, "q quit") || strings.Contains(readOnly, "ladder") {
		t.Errorf("read-only help line: %q", readOnly)
	}
	live := lastLine(ansi.Strip(f.model(120, 30, newFakeServer(f)).Render()))
	if !strings.Contains(live, "q quit (ladder; again: kill)") {
		t.Errorf("live help line: %q", live)
	}
}

// TestStderrTitleCountsInEnglish: one stderr line is "1 line".
func TestStderrTitleCountsInEnglish(t *testing.T) {
	f := newFixture(t)
	f.stderr("only line")
	screen := ansi.Strip(f.model(80, 24, nil).Render())
	if !strings.Contains(screen, "stderr & events 1 line ") {
		t.Errorf("stderr pane title:\n%s", screen)
	}
}
