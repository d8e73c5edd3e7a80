package ui

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/themes"
	"linesman/wire"
)

// TestRawRowsNeverCutAnEscape: the Raw tab wraps between escapes, so "\x01"
// or the "\r\n" terminator is never split over two rows (which read as a
// backslash and stray hex digits).
func TestRawRowsNeverCutAnEscape(t *testing.T) {
	st := NewStyles(themes.None(), true)
	rows := rawRows(st, []byte(strings.Repeat("\x01", 9)+"ab"), `\r\n`, 10, 100)
	want := []string{`\x01\x01`, `\x01\x01`, `\x01\x01`, `\x01\x01`, `\x01ab\r\n`}
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = ansi.Strip(r)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
	// The terminator moves to a row of its own rather than being cut.
	got = nil
	for _, r := range rawRows(st, []byte("abcdefgh"), `\r\n`, 9, 100) {
		got = append(got, ansi.Strip(r))
	}
	if strings.Join(got, "|") != `abcdefgh|\r\n` {
		t.Errorf("rows %q", got)
	}
}

// sgrOnly matches the escape sequences the UI itself may emit: SGR styles.
var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestNothingTheServerWroteReachesTheTerminal renders a screen full of
// hostile bytes — in stderr, in frames, in JSON strings, in ids and methods —
// and checks that the only control sequences in the output are the UI's own
// colours, and that with NO_COLOR there are none at all.
func TestNothingTheServerWroteReachesTheTerminal(t *testing.T) {
	hostile := []string{
		"\x1b[2J", "\x1b[H", "\x1b[10;10H", "\x1b]0;pwned\x07", "\x1b]52;c;ZXZpbA==\x07",
		"\x1b[99999999999999999999;99999999999999999999H", "\x9b31m", "\xc2\x9b2J", "\x07", "\x08", "\r", "\x7f",
		"\u202e", "\x1bP+q\x1b\\", "\x1b_G\x1b\\", "\xff\xfe",
	}
	all := strings.Join(hostile, "x")
	for _, noColor := range []bool{false, true} {
		f := newFixture(t)
		f.stderr("stderr " + all)
		f.s2c("stdout " + all + "\n")
		f.s2c(`{"jsonrpc":"2.0","id":"` + strings.ReplaceAll(all, `"`, ``) + `","method":"m` + all + `","params":{"s":"` + all + `"}}` + "\n")
		f.s2c(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\u001b[2J\u001b]0;t\u0007"}}` + "\n")
		f.note("note " + all)
		f.finding("stderr-escape-sequences", "message "+all, 0)
		now := f.at
		m := NewModel(Options{Log: f.log, Tracker: f.tr, NoColor: noColor, Title: "title " + all, Now: func() time.Duration { return now }})
		t.Cleanup(m.Close)
		for _, size := range [][2]int{{80, 24}, {160, 48}} {
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			for _, tab := range []int{tabJSON, tabRaw, tabFindings, tabPair} {
				for _, seq := range m.c.ix.frames {
					m.frames.selectSeq(seq)
					m.detail.setTab(tab)
					m.refresh()
					out := m.Render() + m.View().WindowTitle
					rest := sgrOnly.ReplaceAllString(out, "")
					if noColor {
						for _, sgr := range sgrOnly.FindAllString(out, -1) {
							if colourSGR(sgr) {
								t.Fatalf("NO_COLOR output sets a colour: %q", sgr)
							}
						}
					}
					for i, r := range rest {
						if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e {
							t.Fatalf("tab %d frame #%d: control %U at %d reaches the terminal: %q", tab, seq, r, i, rest[max(0, i-20):min(len(rest), i+20)])
						}
					}
					if !bytes.Contains([]byte(rest), []byte("␛")) && tab == tabJSON {
						t.Fatalf("escape not shown as a symbol")
					}
				}
			}
		}
	}
}

// colourSGR reports whether an SGR sequence sets a colour (rather than
// bold, underline or reverse, which NO_COLOR allows).
func colourSGR(sgr string) bool {
	for _, p := range strings.FieldsFunc(sgr[2:len(sgr)-1], func(r rune) bool { return r == ';' || r == ':' }) {
		n := 0
		for _, c := range p {
			n = n*10 + int(c-'0')
		}
		if (n >= 30 && n <= 49 && n != 39 && n != 49) || (n >= 90 && n <= 107) {
			return true
		}
	}
	return false
}

// Width: wide and combining characters are measured as the terminal shows them.
func TestFitMeasuresCells(t *testing.T) {
	if w := ansi.StringWidth(fit("日本語e\u0301", 10)); w != 10 {
		t.Fatalf("fit width %d", w)
	}
	if w := ansi.StringWidth(fit("日本語日本語", 5)); w > 5 {
		t.Fatalf("fit overflow %d", w)
	}
}

// TestCapturedSignalAndCodeAreInert opens a crafted capture whose finding
// code and process signal hold OSC 2, OSC 52, APC, DCS, the 8-bit CSI and
// the bidi override, and renders the screens that show them (the main
// screen with its stderr & events and process panes, the process pane
// zoomed, the findings list): no ESC other than the UI's own colours, no
// C1, no bidi control reaches the terminal.
func TestCapturedSignalAndCodeAreInert(t *testing.T) {
	const crafted = "\x1b]2;PWNED\x07\x1b]52;c;UFdORUQ=\x1b\\\x1b_apc\x1b\\\x1bP0|23/70\x1b\\\u009b2J\u202eevil"
	path := filepath.Join(t.TempDir(), "crafted.jsonl")
	log := eventlog.NewLog(0)
	rec, err := capture.Create(path, log, capture.Header{Command: []string{"srv"}})
	if err != nil {
		t.Fatal(err)
	}
	log.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 42}})
	log.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{Finding: wire.Finding{Code: crafted, Severity: wire.SeverityError, Message: "crafted"}}})
	log.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 42, ExitCode: -1, Signal: crafted}})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m := NewModel(Options{Log: c.Log, Tracker: c.Tracker, Theme: "dark", Now: func() time.Duration { return time.Second }})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	screens := map[string]string{"main": m.Render()}
	m.focus = focusProcess
	press(m, "z")
	screens["process zoomed"] = m.Render()
	press(m, "z", "F")
	screens["findings"] = m.Render()
	for name, out := range screens {
		rest := sgrOnly.ReplaceAllString(out, "")
		if !strings.Contains(rest, "evil") {
			t.Errorf("%s: the crafted text is not shown at all:\n%s", name, rest)
		}
		for i, r := range rest {
			if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e {
				t.Errorf("%s: control %U at %d reaches the terminal: %q", name, r, i, rest[max(0, i-20):min(len(rest), i+20)])
				break
			}
		}
	}
}
