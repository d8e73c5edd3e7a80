package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"linesman/session"
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

// failingHandshake is a live server whose handshake after a restart fails
// the way the session's does when the new process dies at once.
type failingHandshake struct{ *fakeServer }

func (failingHandshake) Handshake(context.Context) error {
	return fmt.Errorf("%w: server/discover: %w", session.ErrHandshake, fmt.Errorf("%w (id 2)", session.ErrNoAnswer))
}

// TestRestartHandshakeFailureReads: the message after R names the failure
// once ("restarted: handshake failed: ..."), without stutter or a package
// prefix, so that what matters fits the line.
func TestRestartHandshakeFailureReads(t *testing.T) {
	f := misbehaving(t, false)
	m := NewModel(Options{Log: f.log, Session: failingHandshake{newFakeServer(f)}, Theme: "dark", HandshakeAfterRestart: true})
	t.Cleanup(m.Close)
	m.Update(tea_WindowSize(120, 30))
	press(m, "R")
	want := "restarted: handshake failed: server/discover: the server exited without answering (id 2)"
	if m.message != want || !m.messageBad {
		t.Errorf("message %q (bad=%v), want %q", m.message, m.messageBad, want)
	}
}
