package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// bottomText is the text of the bottom rows a message takes (it wraps
// over several), joined with spaces.
func bottomText(m *Model) string {
	rows := m.bottomLines()
	for i, r := range rows {
		rows[i] = strings.TrimSpace(ansi.Strip(r))
	}
	return strings.Join(rows, " ")
}

// TestZoom: z shows the focused pane on the whole screen, where a long
// stderr line wraps instead of being cut; z again restores the layout;
// enter on the line opens it whole.
func TestZoom(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		dir := fmt.Sprintf("%dx%d", w, h)
		t.Run(dir, func(t *testing.T) {
			f := misbehaving(t, false)
			f.stderr("linesman-demo: serving MCP on private copies of stdin/stdout; fd 0 reads /dev/null and fd 1 writes to stderr while it serves, so a stray print cannot corrupt the wire (END)")
			m := f.model(w, h, nil)
			for m.focus != focusStderr {
				press(m, "tab")
			}
			press(m, "z")
			if !m.zoomed || m.rects[focusStderr] != (rect{0, 1, w, h - 2}) {
				t.Fatalf("z did not zoom the stderr pane: %v", m.rects[focusStderr])
			}
			screen := plain(t, m.Render(), w, h)
			golden(t, dir+"/zoom-stderr.txt", screen)
			if !strings.Contains(screen, "(END)") {
				t.Errorf("the long line is cut in the zoomed pane:\n%s", screen)
			}
			press(m, "k", "enter")
			if m.page == nil {
				t.Fatal("enter did not open the line")
			}
			golden(t, dir+"/page-entry.txt", plain(t, m.Render(), w, h))
			press(m, "esc", "z")
			if m.zoomed || m.rects[focusStderr].w == w && m.rects[focusStderr].h == h-2 {
				t.Fatal("z again did not restore the layout")
			}
			// The process pane zooms too, and wraps its long lines.
			for m.focus != focusProcess {
				press(m, "tab")
			}
			press(m, "enter")
			golden(t, dir+"/zoom-process.txt", plain(t, m.Render(), w, h))
		})
	}
}

// TestLongMessagesWrap: a message longer than the bottom line wraps over
// the rows above it, so its end (often the instruction) is on screen, and
// M shows it again later.
func TestLongMessagesWrap(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(80, 24, nil)
	msg := "wrote 16 events as a transcript (2.9 KiB) to /home/someone/projects/weather-server/linesman-transcript-20261129-120000.txt"
	m.Update(resultMsg{what: msg})
	if got := bottomText(m); squash(got) != squash(msg) {
		t.Errorf("the bottom rows say %q, want the whole message %q", got, msg)
	}
	screen := plain(t, m.Render(), 80, 24)
	if !strings.Contains(screen, "linesman-transcript-20261129-120000.txt") {
		t.Errorf("the file name is not on screen:\n%s", screen)
	}
	press(m, "j") // the next key clears it; M brings it back
	press(m, "M")
	if m.page == nil || !strings.Contains(strings.Join(m.page.lines, " "), "120000.txt") {
		t.Fatalf("M does not show the message")
	}
}

// squash drops every space (rows of a wrapped text join without telling
// where a word was broken).
func squash(s string) string { return strings.ReplaceAll(s, " ", "") }

// TestHumanBytes: one unit style, binary, as the docs and the flags
// spell it; never wider than the frame list's size column.
func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 KiB", 5204: "5.1 KiB", 16 << 20: "16 MiB",
		1023 * 1024: "1.0 MiB", 17_600_000: "17 MiB", 3 << 30: "3.0 GiB", 999 * 1024: "999 KiB"} {
		got := humanBytes(n)
		if got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
		if len(got) > colSize {
			t.Errorf("humanBytes(%d) = %q is wider than the size column (%d)", n, got, colSize)
		}
	}
}

// TestWheelMovesInWhatFillsTheScreen: with a page open the mouse wheel
// scrolls the page, not the panes hidden under it; a click does not focus
// a hidden pane.
func TestWheelMovesInWhatFillsTheScreen(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(80, 24, nil)
	press(m, "M")
	m.page = &pageView{title: "test", build: func(int) []string {
		out := make([]string, 100)
		for i := range out {
			out[i] = fmt.Sprint("row ", i)
		}
		return out
	}}
	m.Update(tea.MouseWheelMsg{X: 5, Y: 5, Button: tea.MouseWheelDown})
	if m.page.scroll != 3 {
		t.Errorf("the wheel scrolled the page to %d, want 3", m.page.scroll)
	}
	press(m, "esc", "z")
	focus := m.focus
	m.Update(tea.MouseClickMsg{X: 70, Y: 20, Button: tea.MouseLeft})
	if m.focus != focus {
		t.Errorf("a click while zoomed focused the hidden %s pane", m.focus)
	}
}

// TestHangWrapKeepsColumns: wrapping keeps the spaces between words (the
// filter syntax's columns) and indents the rows it adds.
func TestHangWrapKeepsColumns(t *testing.T) {
	got := hangWrap("  method:PREFIX   method starts with PREFIX (a response matches its request's method)", 60, 18)
	want := []string{"  method:PREFIX   method starts with PREFIX (a response", "                  matches its request's method)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("hangWrap:\n%q\nwant\n%q", got, want)
	}
}
