package main

import (
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
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
	term.waitFor("▶ stderr")
	// The message's wording (and so where it wraps) varies with the run;
	// what must hold is that the selected row stays on screen.
	var s string
	shown := pollUntil(hangGuard, func() bool {
		s = term.screen()
		for _, r := range strings.Split(s, "\n") {
			if strings.HasPrefix(r, "▌") && strings.Contains(r, "stderr-escape-sequences") {
				return true
			}
		}
		return false
	})
	if !shown {
		t.Errorf("n onto the stderr finding: its row is not on screen:\n%s", s)
	}
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// TestUIRawUnderNoColor runs the real binary under NO_COLOR on the demo:
// the Raw tab's line end is ⏎ in reverse video, with no colour on screen,
// so it is told from a JSON string's \n without colour.
func TestUIRawUnderNoColor(t *testing.T) {
	term := startTerminalEnv(t, 160, 40, []string{"NO_COLOR=1"})
	term.waitFor("linesman-demo", "result tools/list")
	term.send("g]") // the first frame (server/discover, short), its Raw tab
	s := term.waitFor("[Raw]", "L1 ", "}}}⏎")
	found := false
	term.emMu.Lock()
	for y, line := range strings.Split(s, "\n") {
		x := strings.Index(line, "⏎")
		if x < 0 || found {
			continue
		}
		cx := len([]rune(line[:x]))
		c := term.em.CellAt(cx, y)
		found = c != nil && c.Content == "⏎" && c.Style.Attrs&uv.AttrReverse != 0 && c.Style.Fg == nil
		if !found {
			t.Errorf("the line end at %d,%d is not plain reverse video: %+v", cx, y, c)
		}
		if p := term.em.CellAt(cx-1, y); p != nil && p.Style.Attrs&uv.AttrReverse != 0 {
			t.Errorf("the text before the line end is in reverse video too")
		}
	}
	term.emMu.Unlock()
	if !found {
		t.Fatalf("no line end on screen:\n%s", s)
	}
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}
