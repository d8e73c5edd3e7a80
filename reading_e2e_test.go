package main

import (
	"strings"
	"testing"
)

// TestUIReadsAnAnswerAt80x24 runs the real binary on the demo server at
// 80×24: a tool called through the picker shows its answer's text in the
// Detail pane without another key; x goes to the request and back; / in
// the Detail pane finds the text in the frame.
func TestUIReadsAnAnswerAt80x24(t *testing.T) {
	t.Parallel()
	term := startTerminal(t, 80, 24)
	term.waitFor("linesman-demo", "result tools/list")
	if s := term.screen(); !strings.Contains(lastScreenLine(s), "t call a tool") {
		t.Errorf("the key bar at 80 columns has no t:\n%s", s)
	}
	term.send("t")
	term.waitFor("▶ Pick", "echo")
	term.send("echo")
	term.waitFor("filter ▸ echo")
	term.send("\r")
	term.waitFor("▶ tools/call echo")
	term.send("pty-answer-7")
	term.waitFor("pty-answer-7")
	term.send("\x13") // ctrl+s
	term.waitFor("result tools/call", "text   pty-answer-7")

	term.send("x")
	term.waitFor("→ client→server request", "(x goes back)")
	term.send("x")
	term.waitFor("← server→client result", "text   pty-answer-7")

	term.send("\t") // the Detail pane
	term.waitFor("▶ Detail")
	term.send("/")
	term.waitFor("search in the frame:")
	term.send("answer-7\r")
	term.waitFor("match 1 of 2")

	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// lastScreenLine is the bottom row of a screen.
func lastScreenLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestUINextFindingOnStderrShowsItsRow runs the real binary at 80×24 on a
// server whose stderr holds escape sequences: n selects the finding's row
// in the stderr pane and the message about it leaves the row on screen.
func TestUINextFindingOnStderrShowsItsRow(t *testing.T) {
	t.Parallel()
	term := startTerminal(t, 80, 24, fakeServerArgs("headless-stderr-escapes")...)
	term.waitFor("stderr-escape-sequences")
	term.send("n") // the only finding: its message takes three rows at 80 columns
	s := term.waitFor("▶ stderr", "(enter: the whole line")
	rows := strings.Split(s, "\n")
	shown := false
	for _, r := range rows {
		shown = shown || strings.HasPrefix(r, "▌") && strings.Contains(r, "stderr-escape-sequences")
	}
	if !shown {
		t.Errorf("n onto the stderr finding: its row is not on screen:\n%s", s)
	}
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}
