package main

import (
	"strings"
	"testing"
	"time"
)

// TestUIPickerCallsAToolThroughTheForm runs the real binary on the demo
// server in a pseudo-terminal and calls a tool the way the picker
// promises: t, the filter typed, enter (the tool's form), the argument
// typed over its default, ctrl+s; the answer comes back with the argument
// in it. Then ↑ in the composer brings the call back from the history with
// a fresh id, and ctrl+s sends it again.
func TestUIPickerCallsAToolThroughTheForm(t *testing.T) {
	t.Parallel()
	term := startTerminal(t, 120, 36)
	// The handshake and the tools/list the inspector makes by itself.
	term.waitFor("linesman-demo", "result tools/list")

	term.send("t")
	term.waitFor("▶ Pick", "tool     echo")
	term.send("echo")
	term.waitFor("filter ▸ echo")
	term.send("\r") // enter: the form
	term.waitFor("▶ tools/call echo", "text ", "the text to send back")
	term.send("pty-form-arg-42") // the first key typed replaces the default
	term.waitFor("pty-form-arg-42")
	term.send("\x13") // ctrl+s: check and send
	// The answer: a result row for the call, its JSON in the detail pane.
	s := term.waitFor("result tools/call", `"type": "text"`, `"text": "pty-form-arg-42"`)
	if strings.Contains(s, "▶ Pick") || strings.Contains(s, "✖ 1") {
		t.Errorf("after the call the picker is still open, or a finding was raised:\n%s", s)
	}

	// The history: c, ↑ shows the call again with a fresh id; ctrl+s resends.
	term.send("c")
	term.waitFor("▶ Composer")
	term.send("\x1b[A") // ↑ at the first line
	term.waitFor("sent before: tools/call echo", "with a fresh id")
	term.send("\x13")
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a measurement
	for strings.Count(term.screen(), "result tools/call") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the call resent from the history got no answer on screen:\n%s", term.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s := term.screen(); strings.Contains(s, "reused") {
		t.Errorf("the resend from the history reused an id:\n%s", s)
	}

	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}
