package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// press sends one key press through Update and runs the command it
// returns (and the messages that follows, one level), as the program would.
func press(m *Model, keys ...string) {
	for _, k := range keys {
		run(m, m.key(keyMsg(k)))
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	if strings.HasPrefix(k, "ctrl+") {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// typeText types s key by key.
func typeText(m *Model, s string) {
	for _, r := range s {
		run(m, m.key(tea.KeyPressMsg{Code: r, Text: string(r)}))
	}
}

// run executes cmd and feeds its message back (batches expanded), except
// the waits that never return in a test.
func run(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			run(m, c)
		}
	case resultMsg, editorMsg:
		m.Update(msg)
	case restartedMsg:
		m.Update(msg) // (its command, the re-armed wait for Done, is not run)
	}
}

func TestFollowAndMove(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, nil)
	list := m.c.ix.view()
	if !m.frames.follow || m.frames.SelectedSeq() != list[len(list)-1] {
		t.Fatalf("starts following the newest frame")
	}
	press(m, "up", "k")
	if m.frames.follow {
		t.Fatal("moving up leaves follow mode")
	}
	if got, want := m.frames.SelectedSeq(), list[len(list)-3]; got != want {
		t.Fatalf("selected #%d after two ups, want #%d", got, want)
	}
	// New frames do not move a selection the user made.
	f.s2c(`{"jsonrpc":"2.0","method":"notifications/message"}` + "\n")
	m.Update(logMsg{})
	if got, want := m.frames.SelectedSeq(), list[len(list)-3]; got != want {
		t.Fatalf("new frame moved the selection to #%d", got)
	}
	press(m, "f")
	list = m.c.ix.view()
	if !m.frames.follow || m.frames.SelectedSeq() != list[len(list)-1] {
		t.Fatal("f returns to follow mode on the newest frame")
	}
	press(m, "g")
	if m.frames.SelectedSeq() != list[0] || m.frames.top != 0 {
		t.Fatal("g selects the first frame")
	}
	press(m, "j")
	if m.frames.SelectedSeq() != list[1] {
		t.Fatal("j moves down")
	}
}

func TestFocusCycleAndMouse(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, nil)
	want := []focusID{focusDetail, focusInFlight, focusProcess, focusStderr, focusFrames}
	for _, w := range want {
		press(m, "tab")
		if m.focus != w {
			t.Fatalf("tab: focus %v, want %v", m.focus, w)
		}
	}
	press(m, "shift+tab")
	if m.focus != focusStderr {
		t.Fatalf("shift+tab: focus %v, want stderr", m.focus)
	}
	// The focused pane's title carries the ▶ marker (not colour alone).
	if !strings.Contains(ansi.Strip(m.stderr.Render(true, 0)), "▶ stderr") {
		t.Fatal("focused pane has no ▶ marker")
	}
	// A click focuses the pane under the mouse and selects the row.
	r := m.rects[focusFrames]
	m.Update(tea.MouseClickMsg{X: 5, Y: r.y + 2, Button: tea.MouseLeft})
	if m.focus != focusFrames {
		t.Fatalf("click in frames: focus %v", m.focus)
	}
	if got, want := m.frames.SelectedSeq(), m.c.ix.view()[m.frames.top+1]; got != want {
		t.Fatalf("click selected #%d, want #%d", got, want)
	}
	ip := m.rects[focusInFlight]
	m.Update(tea.MouseClickMsg{X: ip.x + 2, Y: ip.y + 1, Button: tea.MouseLeft})
	if m.focus != focusInFlight {
		t.Fatalf("click in flight: focus %v", m.focus)
	}
}

func TestNextPreviousFinding(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(80, 24, nil)
	press(m, "g")
	first := m.frames.SelectedSeq()
	press(m, "n")
	a := m.frames.SelectedSeq()
	ev, _ := m.c.ix.log.Get(a)
	if a <= first || len(m.c.ix.findings(&ev)) == 0 {
		t.Fatalf("n went to #%d, not a flagged frame after #%d", a, first)
	}
	if m.detail.tab != tabFindings {
		t.Fatal("n shows the findings tab")
	}
	press(m, "n")
	b := m.frames.SelectedSeq()
	press(m, "N")
	if b <= a || m.frames.SelectedSeq() != a {
		t.Fatalf("n then N: #%d -> #%d -> #%d", a, b, m.frames.SelectedSeq())
	}
	// A finding logged later about a frame (request-timeout) counts too.
	slow := findSeq(t, m, `"name":"slow"`)
	ev, _ = m.c.ix.log.Get(slow)
	if !m.c.ix.frameFlagged(slow) || len(m.c.ix.findings(&ev)) != 2 {
		t.Fatal("late findings are not attached to their frame")
	}
}

// TestWithTheSessionTracker renders through a real eventlog.Tracker: in-flight
// requests, their progress and their end come from it.
func TestWithTheSessionTracker(t *testing.T) {
	log := eventlog.NewLog(0)
	tr := eventlog.NewTracker(eventlog.TrackerOptions{})
	frame := func(dir wire.Dir, s string) uint64 {
		var seq uint64
		for _, fr := range wire.FramesOf([]byte(s), wire.Options{}) {
			seq = log.AppendWith(func(seq uint64, at time.Duration) eventlog.Event {
				tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: seq, Dir: dir, Frame: fr, At: at})
				return eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: fr}
			})
		}
		return seq
	}
	m := NewModel(Options{Log: log, Tracker: tr})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	req := frame(wire.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"t1"}}}`+"\n")
	frame(wire.ServerToClient, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2,"total":5,"message":"two of five"}}`+"\n")
	m.Update(logMsg{})
	if len(m.inflight.reqs) != 1 || m.inflight.reqs[0].Method != "tools/call" {
		t.Fatalf("in flight: %+v", m.inflight.reqs)
	}
	if s := ansi.Strip(m.inflight.Render(false)); !strings.Contains(s, "2/5 two of five") {
		t.Fatalf("progress not shown:\n%s", s)
	}
	frame(wire.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`+"\n")
	m.Update(logMsg{})
	if len(m.inflight.reqs) != 0 {
		t.Fatalf("answered request still in flight: %+v", m.inflight.reqs)
	}
	m.frames.selectSeq(req)
	m.detail.setTab(tabPair)
	m.refresh()
	if s := ansi.Strip(m.detail.Render(false)); !strings.Contains(s, "tracker: answered") || !strings.Contains(s, "response #") {
		t.Fatalf("pair tab:\n%s", s)
	}
}

// TestRetentionDropsAreShownAndForgotten fills a small log past its budget:
// the UI counts what was dropped and keeps only retained frames in its index.
func TestRetentionDropsAreShownAndForgotten(t *testing.T) {
	log := eventlog.NewLog(64 << 10)
	m := NewModel(Options{Log: log})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for i := 0; i < 20000; i++ {
		req := wire.FramesOf([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)), wire.Options{})[0]
		resp := wire.FramesOf([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i)), wire.Options{})[0]
		log.Append(eventlog.Event{Type: eventlog.EventFrame, Dir: wire.ClientToServer, Frame: req})
		log.Append(eventlog.Event{Type: eventlog.EventFrame, Dir: wire.ServerToClient, Frame: resp})
		if i%1000 == 0 {
			m.Update(logMsg{})
		}
	}
	m.Update(logMsg{})
	first, _ := log.Bounds()
	if len(m.c.ix.frames) != log.Len() || m.c.ix.frames[0] != first {
		t.Fatalf("index holds %d frames from #%d; the log retains %d from #%d", len(m.c.ix.frames), m.c.ix.frames[0], log.Len(), first)
	}
	if s := ansi.Strip(m.statusBar()); !strings.Contains(s, "dropped") {
		t.Fatalf("status bar does not say events were dropped: %q", s)
	}
}

func TestFocusWithComposerOpen(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, newFakeServer(f))
	press(m, "c")
	// Compact layout: the composer covers detail, in flight and process.
	for _, want := range []focusID{focusStderr, focusFrames, focusComposer} {
		press(m, "tab")
		if m.focus != want {
			t.Fatalf("tab: focus %v, want %v", m.focus, want)
		}
	}
	// Typing goes to the composer only when it has the focus.
	press(m, "tab")
	n := len(m.composer.ta.Value())
	press(m, "k")
	if len(m.composer.ta.Value()) != n {
		t.Fatal("a key for another pane was typed into the composer")
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.focus = focusFrames
	for _, want := range []focusID{focusComposer, focusInFlight, focusProcess, focusStderr, focusFrames} {
		press(m, "tab")
		if m.focus != want {
			t.Fatalf("wide, tab: focus %v, want %v", m.focus, want)
		}
	}
}

// TestEverySizeKeepsTheShape renders at sizes from tiny to huge, with the
// composer, the help and the filter prompt open: always exactly the
// terminal's size, never a panic.
func TestEverySizeKeepsTheShape(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, newFakeServer(f))
	for _, size := range [][2]int{{20, 8}, {33, 9}, {60, 15}, {80, 24}, {139, 40}, {140, 40}, {200, 60}, {300, 100}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for _, state := range []string{"plain", "composer", "help", "filter"} {
			m.composer.close()
			m.showHelp, m.filtering = false, false
			m.focus = focusFrames
			switch state {
			case "composer":
				press(m, "c")
			case "help":
				press(m, "?")
			case "filter":
				press(m, "/")
			}
			out := ansi.Strip(m.Render())
			lines := strings.Split(out, "\n")
			if len(lines) != size[1] {
				t.Fatalf("%dx%d %s: %d lines", size[0], size[1], state, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w != size[0] {
					t.Fatalf("%dx%d %s: line %d is %d wide: %q", size[0], size[1], state, i, w, l)
				}
			}
		}
	}
}

// lastLine is the last line of a rendered screen.
func lastLine(screen string) string {
	return screen[strings.LastIndexByte(screen, '\n')+1:]
}

// TestStatusCountsExactPastRetention: the status bar counts every frame and
// finding from the log's totals, also those the retention budget dropped
// before the UI saw them.
func TestStatusCountsExactPastRetention(t *testing.T) {
	log := eventlog.NewLog(64 << 10)
	tr := eventlog.NewTracker(eventlog.TrackerOptions{})
	m := NewModel(Options{Log: log, Tracker: tr})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	for i := 0; i < 20000; i++ {
		for _, fr := range wire.FramesOf([]byte(fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\nstray %d\n", i, i)), wire.Options{}) {
			log.AppendWith(func(seq uint64, at time.Duration) eventlog.Event {
				tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: seq, Dir: wire.ServerToClient, Frame: fr, At: at})
				return eventlog.Event{Type: eventlog.EventFrame, Dir: wire.ServerToClient, Frame: fr}
			})
		}
	}
	m.Update(logMsg{})
	if first, _ := log.Bounds(); first == 1 {
		t.Fatal("nothing was dropped")
	}
	if s := ansi.Strip(m.statusBar()); !strings.Contains(s, "✖ 20000 ") || !strings.Contains(s, "→0 ←40000") {
		t.Errorf("status bar %q: want 20000 errors and 40000 frames received", s)
	}
}

// TestRowsNameTheTarget: rows of tools/call, prompts/get and resources/read
// name the tool, prompt or resource, made inert and cut to the column.
func TestRowsNameTheTarget(t *testing.T) {
	f := newFixture(t)
	f.c2s(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet\u001b[2J"}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///` + strings.Repeat("very-long-path/", 20) + `end.txt"}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"name":"nope"}}` + "\n")
	m := f.model(80, 24, nil)
	screen := ansi.Strip(m.Render())
	for _, want := range []string{"tools/call echo ", "prompts/get greet␛[2J", "resources/read file:///ve…"} {
		if !strings.Contains(screen, want) {
			t.Errorf("no %q in the frame list:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "tools/list nope") || strings.Contains(screen, "end.txt") {
		t.Errorf("a row names what it should not, or is not cut to its column:\n%s", screen)
	}
	for _, l := range strings.Split(screen, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("row wider than the screen: %q", l)
		}
	}
}
