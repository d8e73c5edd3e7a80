package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// stops is every place n and N should reach: the frames with findings and
// the findings about no frame, in log order.
func stops(m *Model) []uint64 {
	s := append(append([]uint64(nil), m.c.ix.flagged...), m.c.ix.found.loose...)
	slices.Sort(s)
	return s
}

// TestNextFindingWalksEveryFinding: n visits every frame with a finding and
// every finding about no frame (stderr, process), in log order, wrapping
// around; N walks back. A finding about no frame selects its row in the
// stderr & events pane and says what it is.
func TestNextFindingWalksEveryFinding(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(80, 24, nil)
	want := stops(m)
	if len(m.c.ix.found.loose) == 0 {
		t.Fatal("the fixture has no finding about no frame")
	}
	press(m, "g") // the first frame: n goes forward from it
	var got []uint64
	for range want {
		press(m, "n")
		got = append(got, m.findAt)
	}
	first := m.c.ix.frames[0]
	if want[0] == first { // the selection starts on a flagged frame: n goes past it
		want = append(want[1:], want[0])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("n visited %v, want %v", got, want)
	}
	press(m, "N")
	if m.findAt != want[len(want)-2] {
		t.Errorf("N went to %d, want %d", m.findAt, want[len(want)-2])
	}
	// A loose finding: the stderr pane has the focus and its row selected.
	loose := m.c.ix.found.loose[0]
	m.gotoPlace(loose, "")
	if m.focus != focusStderr || m.stderr.selected() != loose {
		t.Fatalf("a finding about no frame: focus %v, selected %d, want stderr, %d", m.focus, m.stderr.selected(), loose)
	}
	ev, _ := m.c.ix.log.Get(loose)
	if !strings.Contains(m.message, ev.Finding.Code) {
		t.Errorf("the message does not name the finding: %q", m.message)
	}
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, "▌") || !strings.Contains(screen, ev.Finding.Code) {
		t.Errorf("the stderr pane does not show the finding selected:\n%s", screen)
	}
}

// TestNextFindingReachesStderrOnlyFindings: a session whose only finding is
// about stderr (escape codes) — n reaches it, where it did nothing before.
func TestNextFindingReachesStderrOnlyFindings(t *testing.T) {
	f := newFixture(t)
	f.c2s(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	f.stderr("\x1b[31mred\x1b[0m")
	f.finding("stderr-escape-sequences", "the server writes terminal escape sequences to stderr", 0)
	m := f.model(80, 24, nil)
	if why := m.whyNoFindings(); why != "" {
		t.Fatalf("n refuses: %s", why)
	}
	press(m, "n")
	if m.focus != focusStderr || m.stderr.selected() != m.c.ix.found.loose[0] {
		t.Fatalf("n did not reach the stderr finding (focus %v)", m.focus)
	}
	press(m, "enter") // the whole line
	if m.page == nil || !strings.Contains(ansi.Strip(m.Render()), "fix") {
		t.Fatalf("enter did not open the finding whole:\n%s", ansi.Strip(m.Render()))
	}
}

// TestFindingsList: F lists every finding grouped by severity (the worst
// first); enter goes to a frame's finding (its Findings tab) or to the row
// of a finding about no frame.
func TestFindingsList(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		dir := fmt.Sprintf("%dx%d", w, h)
		t.Run(dir, func(t *testing.T) {
			f := misbehaving(t, false)
			m := f.model(w, h, nil)
			press(m, "F")
			if !m.flist.open {
				t.Fatal("F did not open the list")
			}
			total := 0
			for _, c := range m.c.ix.counts {
				total += c
			}
			if n := m.c.ix.found.len(); n != total {
				t.Errorf("the list holds %d findings, the status bar counts %d", n, total)
			}
			golden(t, dir+"/findings.txt", plain(t, m.Render(), w, h))
			// The groups come worst first and each holds its severity.
			var last wire.Severity = 255
			for i := range m.c.ix.found.len() {
				r, _ := m.c.ix.found.at(i)
				if r.sev > last {
					t.Fatalf("finding %d (%s) after a less severe one", i, r.sev)
				}
				last = r.sev
			}
			// Walk to the first finding about no frame and go to it.
			press(m, "g")
			for i := 0; ; i++ {
				r, ok := m.c.ix.found.at(m.flist.sel)
				if !ok {
					t.Fatal("no finding about no frame in the list")
				}
				if r.frame == 0 {
					break
				}
				press(m, "j")
			}
			golden(t, dir+"/findings-loose.txt", plain(t, m.Render(), w, h))
			r, _ := m.c.ix.found.at(m.flist.sel)
			press(m, "enter")
			if m.flist.open || m.focus != focusStderr || m.stderr.selected() != r.seq {
				t.Fatalf("enter on a finding about no frame: open=%v focus=%v selected=%d, want %d", m.flist.open, m.focus, m.stderr.selected(), r.seq)
			}
			// A frame's finding: its frame and Findings tab.
			press(m, "F", "g", "enter")
			r, _ = m.c.ix.found.at(0)
			if m.frames.SelectedSeq() != r.frame || m.detail.tab != tabFindings || m.focus != focusFrames {
				t.Fatalf("enter on a frame's finding: selected %d tab %d, want %d and the Findings tab", m.frames.SelectedSeq(), m.detail.tab, r.frame)
			}
			press(m, "F", "esc")
			if m.flist.open {
				t.Fatal("esc did not close the list")
			}
		})
	}
}

// TestNextFindingShowsItsRow: n onto a finding about no frame (stderr, the
// process) selects its row and keeps it on screen, above the message that
// tells of it, at every size, even when the message takes three rows.
func TestNextFindingShowsItsRow(t *testing.T) {
	f := newFixture(t)
	for i := range 30 {
		f.stderr(fmt.Sprintf("log line %d", i))
	}
	f.finding("stderr-escape-sequences", "stderr line 31 "+strings.Repeat("holds an escape sequence that acts on a terminal ", 4), 0)
	for i := range 30 {
		f.stderr(fmt.Sprintf("later line %d", i))
	}
	f.process(eventlog.ProcessEvent{State: eventlog.StateExited, ExitCode: 3})
	for _, size := range [][2]int{{80, 24}, {120, 30}, {160, 48}, {200, 50}} {
		m := f.model(size[0], size[1], nil)
		for step := 0; step < 3; step++ {
			press(m, "n")
			if m.focus != focusStderr {
				t.Fatalf("%v: n did not reach a finding about no frame (focus %v)", size, m.focus)
			}
			ev, _ := m.c.ix.log.Get(m.findAt)
			screen := strings.Split(ansi.Strip(m.Render()), "\n")
			msgRows := len(m.bottomLines())
			shown := false
			for _, l := range screen[:len(screen)-msgRows] {
				shown = shown || strings.Contains(l, "▌") && strings.Contains(l, ev.Finding.Code)
			}
			if !shown {
				t.Errorf("%v: n onto %s: its row is not on screen above the %d-row message:\n%s", size, ev.Finding.Code, msgRows, strings.Join(screen, "\n"))
			}
		}
	}
}

// TestNextFindingSaysItWrapped: n past the last finding and N before the
// first say that they wrapped around.
func TestNextFindingSaysItWrapped(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(80, 24, nil)
	want := stops(m)
	press(m, "g")
	for m.findAt != want[len(want)-1] {
		press(m, "n")
		if strings.HasPrefix(m.message, "wrapped") {
			t.Fatalf("n said it wrapped before the last finding: %q", m.message)
		}
	}
	press(m, "n")
	if m.findAt != want[0] || !strings.HasPrefix(m.message, "wrapped past the last finding to the first") {
		t.Errorf("n past the last finding: at %d (want %d), %q", m.findAt, want[0], m.message)
	}
	press(m, "N")
	if !strings.HasPrefix(m.message, "wrapped past the first finding to the last") {
		t.Errorf("N before the first finding: %q", m.message)
	}
}
