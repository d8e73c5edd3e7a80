package ui

import (
	"slices"
	"strings"
	"testing"

	"linesman/wire"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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

// TestRestartHandshakeFailureReads: the message after R names the failure
// once ("restarted: handshake failed: ..."), without stutter or a package
// prefix, so that what matters fits the line.
func TestRestartHandshakeFailureReads(t *testing.T) {
	f := misbehaving(t, false)
	m := NewModel(Options{Log: f.log, Tracker: f.tr, Session: failingHandshake{newFakeServer(f)}, Theme: "dark", HandshakeAfterRestart: true})
	t.Cleanup(m.Close)
	m.Update(tea_WindowSize(120, 30))
	press(m, "R")
	want := "restarted: handshake failed: server/discover: the server exited without answering (id 2)"
	if m.message != want || !m.messageBad {
		t.Errorf("message %q (bad=%v), want %q", m.message, m.messageBad, want)
	}
}

// TestCopyOfAHugeFrameIsHonest: y on a frame of megabytes cannot promise it
// reached the clipboard — terminals commonly drop OSC 52 copies that large.
func TestCopyOfAHugeFrameIsHonest(t *testing.T) {
	f := newFixture(t)
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("A", 1<<20) + `"}}` + "\n")
	m := f.model(80, 24, nil)
	if cmd := m.key(keyMsg("y")); cmd == nil {
		t.Fatal("y gave no command")
	}
	if strings.HasPrefix(m.message, "copied") || !strings.Contains(m.message, "this large") {
		t.Errorf("message %q", m.message)
	}
	f2 := newFixture(t)
	f2.s2c(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	m2 := f2.model(80, 24, nil)
	m2.key(keyMsg("y"))
	// A terminal never confirms a copy: y says what it did, not "copied".
	if !strings.HasPrefix(m2.message, "sent frame #1") || !strings.Contains(m2.message, "via OSC 52") {
		t.Errorf("small frame: message %q", m2.message)
	}
}

// TestFullHelpSaysNotNow: a key that does nothing at the moment is marked
// "(not now)"; "(off)" read as a state ("f follow newest (off)" while the
// list was following).
func TestFullHelpSaysNotNow(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(160, 48, nil)
	press(m, "?")
	screen := ansi.Strip(m.Render())
	if strings.Contains(screen, "(off)") || !strings.Contains(screen, "f follow newest (not now)") {
		t.Errorf("full help:\n%s", screen)
	}
}

func TestResendCancelAnswer(t *testing.T) {
	f := misbehaving(t, true)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	call := findSeq(t, m, `"city":"Oslo"`)
	m.frames.selectSeq(call)
	raw := func() string { ev, _ := m.c.ix.log.Get(call); return string(ev.Frame.Raw()) }()
	// r resends with the next free id (1, 2, 3 and 5 were used), the rest
	// byte for byte.
	press(m, "r")
	if want := strings.Replace(raw, `"id":3`, `"id":6`, 1); srv.lastSent() != want {
		t.Fatalf("resend sent %q, want %q", srv.lastSent(), want)
	}
	if !strings.Contains(m.message, "with id 6 (was 3") {
		t.Errorf("r says %q", m.message)
	}
	// ctrl+r resends as is: the legacy era's warning first, then it goes.
	m.frames.selectSeq(call)
	n := len(srv.sent)
	press(m, "ctrl+r")
	if len(srv.sent) != n || !strings.Contains(m.message, "▲ ctrl+r again sends anyway: id 3 is still in flight") {
		t.Fatalf("ctrl+r sent %d frames; says %q", len(srv.sent)-n, m.message)
	}
	press(m, "ctrl+r")
	if srv.lastSent() != raw || !strings.Contains(m.message, "as is") {
		t.Fatalf("ctrl+r again sent %q (%q), want %q", srv.lastSent(), m.message, raw)
	}
	// e opens it pretty-printed, with the next free id.
	m.frames.selectSeq(call)
	press(m, "e")
	if v := m.composer.ta.Value(); !m.composer.open || !strings.Contains(v, "\n  \"id\": 7,\n") || !strings.Contains(v, `"city": "Oslo"`) {
		t.Fatalf("e opens the frame in the composer, pretty, with a fresh id:\n%s", v)
	}
	press(m, "esc")

	// The server's sampling request can be answered by hand.
	m.frames.selectSeq(findSeq(t, m, "sampling/createMessage"))
	press(m, "a")
	if !m.composer.open || !strings.Contains(m.composer.ta.Value(), `"id": 7`) || !strings.Contains(m.composer.ta.Value(), `"model": "human"`) {
		t.Fatalf("answer template:\n%s", m.composer.ta.Value())
	}
	press(m, "ctrl+s")
	if got := srv.lastSent(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":7,"result":{"role":"assistant"`) {
		t.Fatalf("answer sent %q", got)
	}

	// Cancel the selected in-flight request (the fake has no Cancel: the UI writes the notification).
	m.focus = focusInFlight
	m.refresh()
	m.inflight.sel = 0
	r, _ := m.inflight.selected()
	press(m, "x")
	if got := srv.lastSent(); !strings.Contains(got, `"method":"notifications/cancelled"`) || !strings.Contains(got, `"requestId":`+r.ID.String()) {
		t.Fatalf("cancel sent %q", got)
	}
}

func TestQuitRunsLadderThenKills(t *testing.T) {
	f := misbehaving(t, true)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	cmd := m.key(keyMsg("q"))
	run(m, cmd)
	if srv.shutdowns != 1 || !m.quitRequested {
		t.Fatalf("first q: shutdowns=%d", srv.shutdowns)
	}
	// The session ending completes the quit.
	close(srv.done)
	_, cmd = m.Update(doneMsg{srv.done})
	if cmd == nil {
		t.Fatal("done after quit does not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("done after quit does not quit")
	}

	m2 := f.model(80, 24, newFakeServer(f))
	srv2 := m2.opts.Session.(*fakeServer)
	run(m2, m2.key(keyMsg("q")))
	cmd = m2.key(keyMsg("q"))
	if srv2.kills != 1 {
		t.Fatal("second q does not kill")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("second q does not quit")
	}

	// S and R run the ladder and restart.
	m3 := f.model(80, 24, newFakeServer(f))
	srv3 := m3.opts.Session.(*fakeServer)
	press(m3, "S", "R")
	if srv3.shutdowns != 1 || srv3.restarts != 1 {
		t.Fatalf("S, R: shutdowns=%d restarts=%d", srv3.shutdowns, srv3.restarts)
	}
	// The process replaced by the restart ending is not the session ending.
	old := make(chan struct{})
	close(old)
	m3.Update(doneMsg{old})
	if m3.sessionDone || !m3.live() || !strings.Contains(m3.message, "restarted") {
		t.Fatalf("after restart: done=%v message=%q", m3.sessionDone, m3.message)
	}
}

func TestReadOnlyOffersNoControl(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, nil)
	press(m, "c")
	if m.composer.open {
		t.Fatal("read-only: c must not open the composer")
	}
	m.syncKeys()
	for _, b := range []struct {
		name    string
		enabled bool
	}{{"compose", m.c.km.Compose.Enabled()}, {"shutdown", m.c.km.Shutdown.Enabled()}, {"resend", m.c.km.Resend.Enabled()}, {"cancel", m.c.km.Cancel.Enabled()}} {
		if b.enabled {
			t.Errorf("read-only: %s is enabled", b.name)
		}
	}
	if bar := ansi.Strip(m.bottomLine()); strings.Contains(bar, "compose") || strings.Contains(bar, "call a tool") {
		t.Fatalf("read-only help line offers to send: %q", bar)
	}
	// Live: the help line offers the picker and the composer.
	m2 := f.model(250, 24, newFakeServer(f))
	if bar := ansi.Strip(m2.bottomLine()); !strings.Contains(bar, "compose") || !strings.Contains(bar, "call a tool") {
		t.Fatalf("live help line lacks t or c: %q", bar)
	}
	press(m, "q")
}

func TestCopyUsesOSC52(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, nil)
	cmd := m.key(keyMsg("y"))
	if cmd == nil || !strings.Contains(m.message, "to the terminal via OSC 52") {
		t.Fatalf("y: cmd=%v message=%q", cmd != nil, m.message)
	}
}

func TestHelpScreenScrolls(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, nil)
	press(m, "?")
	if !m.showHelp || !strings.Contains(ansi.Strip(m.Render()), "Everywhere") {
		t.Fatal("? shows the full help")
	}
	if strings.Contains(ansi.Strip(m.Render()), "Glyphs:") {
		t.Fatal("the fixture's help should not fit 80x24 (the test would prove nothing)")
	}
	for i := 0; i < 60; i++ {
		press(m, "j")
	}
	if s := ansi.Strip(m.Render()); !strings.Contains(s, "Glyphs:") {
		t.Fatalf("scrolling down does not reach the end of the help:\n%s", s)
	}
	press(m, "?")
	if m.showHelp {
		t.Fatal("? closes the help")
	}
}

// TestKeyTableHasNoDeadRows: two bindings that can apply at once never share
// a key, so no row of the table is shadowed by an earlier one.
func TestKeyTableHasNoDeadRows(t *testing.T) {
	all := DefaultKeyMap().all
	for i, a := range all {
		for _, b := range all[i+1:] {
			if a.scope&b.scope == 0 {
				continue
			}
			for _, k := range a.Keys() {
				if slices.Contains(b.Keys(), k) {
					t.Errorf("%q is bound to %q and %q in the same place", k, a.Help().Desc, b.Help().Desc)
				}
			}
		}
	}
}

// pressKey builds the key press whose String is k, for any key the table
// binds (keyMsg covers only the keys tests type).
func pressKey(t *testing.T, k string) tea.KeyPressMsg {
	t.Helper()
	codes := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd}
	var msg tea.KeyPressMsg
	switch {
	case k == "shift+tab":
		msg = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case k == "space":
		msg = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case codes[k] != 0:
		msg = tea.KeyPressMsg{Code: codes[k]}
	case strings.HasPrefix(k, "ctrl+"):
		msg = tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	default:
		msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
	}
	if msg.String() != k {
		t.Fatalf("cannot build the key %q (built %q)", k, msg.String())
	}
	return msg
}

// TestHelpAndDispatchAgree: in each state, every key of the current scope
// that the help marks as not working is refused with its reason when
// pressed, and changes nothing else; the reasons are words, not blanks.
func TestHelpAndDispatchAgree(t *testing.T) {
	f := misbehaving(t, true)
	states := []struct {
		name  string
		model func() *Model
	}{
		{"read-only", func() *Model { return f.model(120, 40, nil) }},
		{"live, frames", func() *Model { return f.model(120, 40, newFakeServer(f)) }},
		{"live, in flight", func() *Model {
			m := f.model(120, 40, newFakeServer(f))
			m.focus = focusInFlight
			return m
		}},
		{"live, process", func() *Model {
			m := f.model(120, 40, newFakeServer(f))
			m.focus = focusProcess
			return m
		}},
		{"exited", func() *Model {
			m := f.model(120, 40, newFakeServer(f))
			m.sessionDone = true
			return m
		}},
	}
	refused := 0
	for _, st := range states {
		m := st.model()
		m.syncKeys()
		where := m.keyScope()
		for _, b := range m.c.km.all {
			if b.scope&where == 0 || b.Enabled() {
				continue
			}
			why := b.why(m)
			if why == "" {
				t.Errorf("%s: %q is off in the help but has no reason", st.name, b.Help().Desc)
				continue
			}
			focus, composer := m.focus, m.composer.open
			m.key(pressKey(t, b.Keys()[0]))
			if m.message != why || !m.messageBad {
				t.Errorf("%s: %s (%q) said %q, want %q", st.name, b.Keys()[0], b.Help().Desc, m.message, why)
			}
			if m.focus != focus || m.composer.open != composer {
				t.Errorf("%s: the refused %s acted", st.name, b.Keys()[0])
			}
			refused++
		}
	}
	if refused < 10 {
		t.Fatalf("only %d refusals seen: the states prove little", refused)
	}
}

// TestDisabledKeySaysWhy: pressing a key that does nothing now says why
// (it used to do nothing silently), and the reason matches the state.
func TestDisabledKeySaysWhy(t *testing.T) {
	f := misbehaving(t, true)
	ro := f.model(120, 40, nil)
	for _, c := range []struct{ key, want string }{
		{"c", whyReadOnly},
		{"S", whyReadOnly},
		{"R", whyReadOnly},
		{"f", whyFollowing},
	} {
		press(ro, c.key)
		if ro.message != c.want {
			t.Errorf("read-only %s: message %q, want %q", c.key, ro.message, c.want)
		}
	}

	// x on the server's own request: the one cancel rule decides both the
	// help line and the refusal.
	m := f.model(200, 40, newFakeServer(f))
	m.focus = focusInFlight
	m.refresh()
	found := false
	for i, r := range m.inflight.reqs {
		if r.Dir == wire.ServerToClient {
			m.inflight.sel, found = i, true
			break
		}
	}
	if !found {
		t.Fatal("the fixture has no server request in flight")
	}
	m.syncKeys()
	if line := ansi.Strip(m.bottomLine()); strings.Contains(line, "x cancel") || !strings.Contains(line, "a answer") {
		t.Errorf("help line on a server request: %q", line)
	}
	press(m, "x")
	if !strings.Contains(m.message, "only the client's own requests can be cancelled") {
		t.Errorf("x on a server request: %q", m.message)
	}
	// A message is gone with the next key.
	press(m, "down")
	if m.message != "" {
		t.Errorf("message after the next key: %q", m.message)
	}
}

// TestCtrlCQuitsFromEveryPrompt: ctrl+c quits from the composer and both
// prompts (it used to be written into each of them by hand), and closes
// the ? screen.
func TestCtrlCQuitsFromEveryPrompt(t *testing.T) {
	f := misbehaving(t, true)
	for _, open := range []string{"c", "/", "X"} {
		srv := newFakeServer(f)
		m := f.model(120, 40, srv)
		press(m, open)
		if m.keyScope()&scopeTyping == 0 {
			t.Fatalf("%s did not open a prompt", open)
		}
		run(m, m.key(pressKey(t, "ctrl+c")))
		if !m.quitRequested || srv.shutdowns != 1 || m.exp.step != exportOff {
			t.Errorf("ctrl+c after %s: quit=%v shutdowns=%d export=%v", open, m.quitRequested, srv.shutdowns, m.exp.step)
		}
	}
	m := f.model(120, 40, newFakeServer(f))
	press(m, "?")
	m.key(pressKey(t, "ctrl+c"))
	if m.showHelp || m.quitRequested {
		t.Errorf("ctrl+c on the ? screen: help=%v quit=%v", m.showHelp, m.quitRequested)
	}
}

// TestPickerKeyOnTheBarAtEveryWidth: t, the way to call a tool, is on the
// key bar from 80 to 250 columns whichever pane has the focus (it used to
// be cut off at every width, so only the docs told of it).
func TestPickerKeyOnTheBarAtEveryWidth(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, newFakeServer(f))
	for w := 80; w <= 250; w += 10 {
		m.Update(tea_WindowSize(w, 30))
		for focus := focusFrames; focus < numPanes; focus++ {
			m.focus = focus
			lines := strings.Split(ansi.Strip(m.Render()), "\n")
			if bar := lines[len(lines)-1]; !strings.Contains(bar, "t call a tool") {
				t.Errorf("%d columns, focus %d: the key bar has no t: %q", w, focus, bar)
			}
		}
	}
}
