package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// flat is text with its styles, spaces and line breaks dropped, so that a
// text wrapped over rows still reads as the text.
func flat(s string) string {
	return strings.NewReplacer(" ", "", "\n", "").Replace(ansi.Strip(s))
}

// TestNothingCutWithoutAWayToSeeIt: at 80×24, whatever the screen cuts
// can be seen whole somewhere one key away — the ? screen (which itself
// cuts nothing and scrolls to its end), a wrapped message, a line opened
// whole, the findings list's lower half.
func TestNothingCutWithoutAWayToSeeIt(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(80, 24, nil)

	// The ? screen: no line wider than the screen, none cut, and the
	// movement keys reach its last line.
	help := m.fullHelp()
	for i, l := range help {
		if w := ansi.StringWidth(l); w > 80 || strings.HasSuffix(ansi.Strip(l), "…") {
			t.Errorf("? screen line %d is cut (%d cells): %q", i, w, ansi.Strip(l))
		}
	}
	whole := flat(strings.Join(help, "\n"))
	press(m, "?", "G")
	if last := ansi.Strip(help[len(help)-1]); !strings.Contains(ansi.Strip(m.Render()), strings.TrimSpace(last)) {
		t.Errorf("G does not reach the end of the ? screen (%q):\n%s", last, ansi.Strip(m.Render()))
	}
	press(m, "g")
	if !strings.Contains(ansi.Strip(m.Render()), strings.TrimSpace(ansi.Strip(help[0]))) {
		t.Error("g does not return to the top of the ? screen")
	}
	press(m, "esc")
	for _, l := range strings.Split(FilterSyntax, "\n") {
		if !strings.Contains(whole, flat(l)) {
			t.Errorf("the ? screen lacks the filter syntax line %q", l)
		}
	}

	// The status bar, cut at 80 columns: every part is whole in the ? screen.
	for _, p := range m.statusParts() {
		if !strings.Contains(whole, flat(p)) {
			t.Errorf("status part %q is not whole in the ? screen", ansi.Strip(p))
		}
	}
	// The help line, cut at 80 columns: every key it offers, in any pane,
	// is in the ? screen.
	for id := focusFrames; id < numPanes; id++ {
		m.focus = id
		m.syncKeys()
		for _, b := range m.shortHelp() {
			if b.Enabled() && !strings.Contains(whole, flat(b.Help().Key+" "+b.Help().Desc)) {
				t.Errorf("%s pane: the help line offers %q, which the ? screen lacks", id, b.Help().Key+" "+b.Help().Desc)
			}
		}
	}
	m.focus = focusFrames

	// Messages wrap whole, however long.
	for _, msg := range []string{
		"wrote 16 events as a transcript (2.9 KiB) to /home/someone/.local/state/linesman/exports/linesman-transcript-20261129-120000.txt",
		"filter: kind:bogus: want request, notification, result, error, invalid, non-json (a term is KEY:VALUE, or text)",
		"x (cancel request) acts in the In flight pane: tab to it",
	} {
		m.setMessage(msg, false)
		if got := flat(strings.Join(m.bottomLines(), "\n")); got != flat(msg) {
			t.Errorf("message shown as %q, want %q whole", got, msg)
		}
	}
	m.setMessage("", false)

	// Every entry of the stderr & events pane opens whole (enter).
	for _, seq := range m.c.ix.events {
		ev, _ := m.c.ix.log.Get(seq)
		var text string
		switch ev.Type {
		case eventlog.EventStderr:
			text = wire.Visible(ev.Stderr.Content, wire.Pictures)
		case eventlog.EventFinding:
			text = wire.VisibleString(ev.Finding.Message, wire.Pictures)
		case eventlog.EventProcess:
			text = processText(ev.Process)
		default:
			text = wire.VisibleString(ev.Note, wire.Pictures)
		}
		if got := flat(strings.Join(entryLines(m.c.st, &ev, m.c.ix.wroteBy(&ev), 80), "\n")); !strings.Contains(got, flat(text)) {
			t.Errorf("entry #%d opened whole lacks %q", seq, text)
		}
	}
	// Every finding is whole in the findings list's lower half.
	press(m, "F")
	for i := range m.c.ix.found.len() {
		m.flist.sel = i
		r, _ := m.c.ix.found.at(i)
		fd, _, _ := m.c.ix.finding(r)
		if got := flat(strings.Join(m.flist.whole(80), "\n")); !strings.Contains(got, flat(wire.VisibleString(fd.Message, wire.Pictures))) {
			t.Errorf("finding %d (%s) is not whole in the list", i, fd.Code)
		}
	}
}

// TestPaneKeysSayWhereTheyAct: x, E, a, r and enter pressed where they do
// nothing say which pane they act in, instead of nothing at all.
func TestPaneKeysSayWhereTheyAct(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, nil)
	m.focus = focusDetail
	for k, want := range map[string]string{
		"E":     "E (" + m.c.km.Env.Help().Desc + ") acts in the Process pane: tab to it",
		"r":     "r (" + m.c.km.Resend.Help().Desc + ") acts in the Frames pane: tab to it",
		"a":     "a acts in the Frames and In flight panes: tab to one",
		"enter": "enter acts in the In flight, stderr & events and Process panes: tab to one",
	} {
		press(m, k)
		if m.message != want || !m.messageBad {
			t.Errorf("%s in the Detail pane: message %q, want %q", k, m.message, want)
		}
	}
	// x goes to the pair in the Frames and Detail panes, cancels in In flight.
	m.focus = focusStderr
	press(m, "x")
	if want := "x acts in the In flight and Detail panes: tab to one"; m.message != want {
		t.Errorf("x in the stderr pane: message %q, want %q", m.message, want)
	}
}
