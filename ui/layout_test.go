package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/themes"
)

// exitAtStart is a server that writes one line to stderr and exits before
// answering: its findings come after the line that explains them.
func exitAtStart(t *testing.T) *fixture {
	f := newFixture(t)
	f.process(eventlog.ProcessEvent{State: eventlog.StateStarting, Pid: 77, Detail: "starting ./server --stdio"})
	f.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 77})
	f.c2s(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}` + "\n")
	f.stderr("FATAL: WEATHER_API_KEY is not set (THE-LINE)")
	f.process(eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 77, ExitCode: 1})
	f.finding("exit-at-start", "the server exited 4 ms after it started, with code 1", 0)
	f.finding("exited-during-request", "the server exited with server/discover (id 1) unanswered", 3)
	f.finding("pipe-held-after-exit", "stdout stayed open after the exit (a child holds it)", 0)
	f.note("era probe: no answer to server/discover; using the legacy era")
	return f
}

// TestLayoutGivesSpaceByNeed: a server that exits at once leaves a
// frame or two and a handful of events: the frame list shrinks to what it
// holds and the stderr line that says why stays on screen, at 80×24 and
// 160×48; a near-empty frame list does not hold half the wide screen.
func TestLayoutGivesSpaceByNeed(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}, {200, 50}} {
		w, h := size[0], size[1]
		dir := fmt.Sprintf("%dx%d", w, h)
		t.Run(dir, func(t *testing.T) {
			f := exitAtStart(t)
			m := f.model(w, h, nil)
			screen := plain(t, m.Render(), w, h)
			golden(t, dir+"/exit-at-start.txt", screen)
			if !strings.Contains(screen, "(THE-LINE)") {
				t.Errorf("the server's stderr line is not on screen:\n%s", screen)
			}
			if fh := m.rects[focusFrames].h; fh > len(m.c.ix.frames)+1+2 {
				t.Errorf("the frame list takes %d rows for %d frames", fh, len(m.c.ix.frames))
			}
			// A full session still shares the screen as before.
			full := misbehaving(t, false).model(w, h, nil)
			if fh, body := full.rects[focusFrames].h, h-2; fh < body*40/100-1 {
				t.Errorf("a full frame list got %d rows of %d", fh, body)
			}
			if ansi.StringWidth(ansi.Strip(strings.Split(screen, "\n")[0])) != w {
				t.Fatal("status bar width")
			}
		})
	}
}

// TestComposerLineNumbersKeepTextInPlace: the composer's text starts in
// the same column on line 9 as on line 10 (the line numbers were one digit
// wide and pushed the text right from line 10 on).
func TestComposerLineNumbersKeepTextInPlace(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(160, 48, nil)
	var lines []string
	for i := 1; i <= 12; i++ {
		lines = append(lines, fmt.Sprintf("L%03d", i))
	}
	m.composer.openText("test", strings.Join(lines, "\n"))
	m.focusComposer()
	screen := ansi.Strip(m.composer.Render(true))
	col := map[string]int{}
	for _, row := range strings.Split(screen, "\n") {
		for _, target := range []string{"L001", "L009", "L010", "L012"} {
			if i := strings.Index(row, target); i >= 0 {
				col[target] = ansi.StringWidth(row[:i])
			}
		}
	}
	if len(col) != 4 || col["L001"] != col["L009"] || col["L009"] != col["L010"] || col["L010"] != col["L012"] {
		t.Errorf("the text moves with the line number's width: columns %v\n%s", col, screen)
	}
}

// TestBadgesInsideTheirColumn: a frame row's findings never reach the
// pane's edge (a blank column stays before the border), and a first badge
// cut to fit still says how many follow.
func TestBadgesInsideTheirColumn(t *testing.T) {
	f := misbehaving(t, true)
	for _, w := range []int{80, 120, 160, 200, 250} {
		m := f.model(w, 50, newFakeServer(f))
		for _, row := range strings.Split(ansi.Strip(m.frames.Render(false)), "\n")[1:] {
			if strings.TrimSpace(row) == "" {
				continue
			}
			if r := []rune(row); r[len(r)-1] != ' ' {
				t.Errorf("%d columns: a row reaches the border: %q", w, row)
			}
			if strings.Contains(row, "……") {
				t.Errorf("%d columns: a row cut twice: %q", w, row)
			}
		}
	}
}

// TestThemeKey: C switches to the next theme and says which; under
// NO_COLOR it says why it does not.
func TestThemeKey(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, nil)
	press(m, "C")
	if m.opts.Theme != "high-contrast" || !strings.Contains(m.message, "theme high-contrast") || m.c.st.Theme.Accent != themes.HighContrast().Accent {
		t.Fatalf("C from dark: theme %q, %q", m.opts.Theme, m.message)
	}
	press(m, "C", "C", "C")
	if m.opts.Theme != "auto" {
		t.Fatalf("C wraps to auto: %q", m.opts.Theme)
	}
	m.opts.NoColor = true
	press(m, "C")
	if m.opts.Theme != "auto" || !strings.Contains(m.message, "NO_COLOR") {
		t.Fatalf("C under NO_COLOR: theme %q, %q", m.opts.Theme, m.message)
	}
}

// paneFit is how many rows a pane leaves empty and whether its content is
// cut, for the panes whose content is rows.
func paneFit(m *Model) (empty map[string]int, cut map[string]bool) {
	r := m.rects
	rows := map[string][2]int{ // need, rows
		"frames":    {len(m.c.ix.view()) + 1, r[focusFrames].h},
		"detail":    {len(m.detail.lines) + 1, r[focusDetail].h},
		"stderr":    {len(m.c.ix.events) + 1, r[focusStderr].h},
		"process":   {m.process.need(), r[focusProcess].h},
		"in flight": {len(m.inflight.reqs) + 1 + m.inflight.hintRows(), r[focusInFlight].h},
	}
	empty, cut = map[string]int{}, map[string]bool{}
	for name, nh := range rows {
		empty[name] = max(nh[1]-nh[0], 0)
		cut[name] = nh[0] > nh[1]
	}
	return empty, cut
}

// TestLayoutSharesALargeTerminal: at 160×48 and 200×50 no pane shows 20
// empty rows while another is cut, whichever frame is selected, and the
// frame list does not move with every selection: walking down the whole
// list, and back and forth between two neighbours, changes its height at
// most twice and not at all.
func TestLayoutSharesALargeTerminal(t *testing.T) {
	for _, size := range [][2]int{{160, 48}, {200, 50}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			f := misbehaving(t, false)
			m := f.model(w, h, nil)
			press(m, "g")
			heights := []int{m.rects[focusFrames].h}
			for i := 0; i < len(m.c.ix.frames); i++ {
				empty, cut := paneFit(m)
				for name, e := range empty {
					for other, c := range cut {
						if e >= 20 && c {
							t.Errorf("frame #%d selected: %s shows %d empty rows while %s is cut", m.frames.SelectedSeq(), name, e, other)
						}
					}
				}
				if fh := m.rects[focusFrames].h; fh != heights[len(heights)-1] {
					heights = append(heights, fh)
				}
				press(m, "j")
			}
			if len(heights) > 3 {
				t.Errorf("the frame list changed height %d times walking down: %v", len(heights)-1, heights)
			}
			press(m, "k")
			fh := m.rects[focusFrames].h
			for range 6 {
				press(m, "k", "j")
				if m.rects[focusFrames].h != fh {
					t.Fatalf("the frame list jumps between two neighbours: %d, then %d", fh, m.rects[focusFrames].h)
				}
			}
		})
	}
}

// TestHoldRows: the detail's rows grow past a cut frame with half a step
// to spare, stay for needs within a step, shrink past a step.
func TestHoldRows(t *testing.T) {
	const lo, hi, step = 10, 30, 10
	cases := []struct{ cur, need, want int }{
		{0, 4, 15},   // first fit: the floor and half a step
		{15, 12, 15}, // within: held
		{15, 6, 15},  // below the floor: the floor is held
		{15, 16, 21}, // cut: grows with room
		{21, 40, 30}, // past the ceiling: the ceiling
		{30, 21, 30}, // within a step: held
		{30, 20, 25}, // a step below: shrinks
	}
	for _, c := range cases {
		if got := holdRows(c.cur, c.need, lo, hi, step); got != c.want {
			t.Errorf("holdRows(%d, %d) = %d, want %d", c.cur, c.need, got, c.want)
		}
	}
}
