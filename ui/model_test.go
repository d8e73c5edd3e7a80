package ui

import (
	"bytes"
	"image/color"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/session"
	"linesman/wire"
)

// fakeServer stands in for a live session: it records what the UI asks for
// and logs sent bytes as client frames, as the session does.
type fakeServer struct {
	mu        sync.Mutex
	f         *fixture
	sent      [][]byte
	shutdowns int
	kills     int
	restarts  int
	done      chan struct{}
}

func newFakeServer(f *fixture) *fakeServer { return &fakeServer{f: f, done: make(chan struct{})} }

func (s *fakeServer) Send(raw []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, append([]byte(nil), raw...))
	s.f.frames(wire.ClientToServer, string(raw))
	return nil
}
func (s *fakeServer) Shutdown() { s.mu.Lock(); s.shutdowns++; s.mu.Unlock() }
func (s *fakeServer) Kill()     { s.mu.Lock(); s.kills++; s.mu.Unlock() }

// Restart replaces the process: a fresh Done channel, as the session does.
func (s *fakeServer) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restarts++
	s.done = make(chan struct{})
	return nil
}

func (s *fakeServer) Done() <-chan struct{} { s.mu.Lock(); defer s.mu.Unlock(); return s.done }

func (s *fakeServer) lastSent() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sent) == 0 {
		return ""
	}
	return string(s.sent[len(s.sent)-1])
}

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

func TestFilter(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(80, 24, nil)
	press(m, "/")
	if !m.filtering {
		t.Fatal("/ opens the filter prompt")
	}
	typeText(m, "method:tools/ dir:c2s")
	press(m, "enter")
	if m.filtering {
		t.Fatal("enter applies the filter")
	}
	list := m.c.ix.view()
	if len(list) != 4 { // tools/list, tools/call ×3 (id 3, id 3 again, id 5)
		t.Fatalf("method:tools/ dir:c2s matched %d frames, want 4", len(list))
	}
	for _, seq := range list {
		ev, _ := m.c.ix.log.Get(seq)
		if ev.Dir != wire.ClientToServer || !strings.HasPrefix(ev.Frame.Msg.Method, "tools/") {
			t.Fatalf("frame #%d does not match", seq)
		}
	}
	// A response matches its request's method.
	press(m, "/")
	m.filterIn.SetValue("")
	typeText(m, "method:tools/list kind:result")
	press(m, "enter")
	if n := len(m.c.ix.view()); n != 1 {
		t.Fatalf("method:tools/list kind:result matched %d frames, want 1", n)
	}
	for _, c := range []struct {
		expr string
		want int
	}{
		{"code:multi-line-frame", 1},
		{"code:* dir:c2s", 2},
		{"!code:* dir:s2c", 1},
		{"sev:error dir:c2s", 1},
		{"id:\"3\"", 1},
		{"kind:non-json", 3},
		{"STARTING", 1},
	} {
		fl, err := parseFilter(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		m.c.ix.setFilter(fl)
		if n := len(m.c.ix.view()); n != c.want {
			t.Errorf("%s matched %d frames, want %d", c.expr, n, c.want)
		}
	}
	// A bad filter is refused with a message and the prompt stays open.
	m.c.ix.setFilter(nil)
	press(m, "/")
	m.filterIn.SetValue("kind:bogus")
	press(m, "enter")
	if !m.filtering || !strings.Contains(m.message, "kind:bogus") {
		t.Fatalf("bad filter: filtering=%v message=%q", m.filtering, m.message)
	}
	// ... and the user sees why: the bottom line shows the error, not only
	// the prompt; the next key brings the prompt back.
	if last := lastLine(ansi.Strip(m.Render())); !strings.Contains(last, "kind:bogus: want") {
		t.Errorf("bad filter: the bottom line shows %q, not the error", last)
	}
	press(m, "backspace")
	if last := lastLine(ansi.Strip(m.Render())); !strings.HasPrefix(last, "/kind:bogu") {
		t.Errorf("editing after the error: the bottom line shows %q, not the prompt", last)
	}
	press(m, "esc")
	if m.filtering || m.c.ix.filt != nil {
		t.Fatal("esc closes the prompt and clears the filter")
	}
	// New frames that match are added to the filtered list as they arrive.
	fl, _ := parseFilter("method:ping")
	m.c.ix.setFilter(fl)
	f.c2s(`{"jsonrpc":"2.0","id":40,"method":"ping"}` + "\n")
	m.Update(logMsg{})
	if n := len(m.c.ix.view()); n != 1 {
		t.Fatalf("live frame not filtered in: %d", n)
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

func TestComposerTemplatesAndSend(t *testing.T) {
	f := misbehaving(t, true)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	press(m, "c")
	if !m.composer.open || m.focus != focusComposer {
		t.Fatal("c opens the composer with focus")
	}
	// The first template is tools/list with the next free id: the client used 1, 2, 3, 5.
	if v := m.composer.ta.Value(); !strings.Contains(v, `"id": 6`) || !strings.Contains(v, `"tools/list"`) {
		t.Fatalf("first template:\n%s", v)
	}
	// tools/list was answered: a tools/call skeleton for its tool, built from the schema.
	press(m, "ctrl+t")
	if v := m.composer.ta.Value(); !strings.Contains(v, `"name": "forecast"`) || !strings.Contains(v, `"city": ""`) || strings.Contains(v, `"days"`) || !strings.Contains(v, `"progressToken": 6`) {
		t.Fatalf("tools/call template:\n%s", v)
	}
	press(m, "ctrl+s")
	if got := srv.lastSent(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":6,"method":"tools/call"`) || !strings.HasSuffix(got, "}\n") || strings.Count(got, "\n") != 1 {
		t.Fatalf("sent %q, want one compact line", got)
	}
	if m.composer.open || m.focus != focusFrames || !m.frames.follow {
		t.Fatal("sending closes the composer and follows the new frame")
	}
	if !strings.Contains(m.message, "sent") {
		t.Fatalf("message %q", m.message)
	}

	// Invalid JSON is refused with its position.
	press(m, "c")
	m.composer.ta.SetValue("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 9 \"method\": \"ping\"\n}")
	n := len(srv.sent)
	press(m, "ctrl+s")
	if len(srv.sent) != n || !strings.Contains(m.composer.status, "line 3, column") {
		t.Fatalf("invalid JSON: sent=%d status=%q", len(srv.sent)-n, m.composer.status)
	}
	// ... unless sent raw on purpose: the bytes go as typed.
	press(m, "ctrl+r")
	if got := srv.lastSent(); got != "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 9 \"method\": \"ping\"\n}\n" {
		t.Fatalf("raw send sent %q", got)
	}

	// A reused id warns first; the same text again sends.
	press(m, "c")
	m.composer.ta.SetValue(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	n = len(srv.sent)
	press(m, "ctrl+s")
	if len(srv.sent) != n || !strings.Contains(m.composer.status, "id 3 is still in flight") {
		t.Fatalf("reused id: sent=%d status=%q", len(srv.sent)-n, m.composer.status)
	}
	press(m, "ctrl+s")
	if len(srv.sent) != n+1 {
		t.Fatal("second ctrl+s did not send")
	}
	press(m, "c")
	m.composer.ta.SetValue(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	press(m, "ctrl+s")
	if !strings.Contains(m.composer.status, "legacy era forbids") {
		t.Fatalf("reuse of an answered id in the legacy era: %q", m.composer.status)
	}
	press(m, "esc")
	if m.composer.open {
		t.Fatal("esc closes the composer")
	}
}

func TestTemplatesModernEra(t *testing.T) {
	ts := templates(templateCtx{era: session.EraModern, version: "2026-07-28", id: "4", cancelID: "3"})
	names := map[string]string{}
	for _, x := range ts {
		names[x.Name] = x.Text
		if _, err := check(x.Text); err != nil {
			t.Errorf("template %s is not valid JSON: %v\n%s", x.Name, err, x.Text)
		}
	}
	if !strings.Contains(names["server/discover"], "io.modelcontextprotocol/protocolVersion") {
		t.Fatal("server/discover has no _meta")
	}
	if !strings.Contains(names["tools/list"], `"_meta"`) {
		t.Fatal("modern requests carry _meta")
	}
	if !strings.Contains(names["notifications/cancelled 3"], `"requestId": 3`) {
		t.Fatal("no cancel template for the selected request")
	}
	legacy := templates(templateCtx{era: session.EraLegacy, id: "4"})
	for _, x := range legacy {
		if _, err := check(x.Text); err != nil {
			t.Errorf("template %s is not valid JSON: %v", x.Name, err)
		}
		if x.Name == "tools/list" && strings.Contains(x.Text, "_meta") {
			t.Fatal("legacy requests carry no _meta")
		}
	}
}

func TestResendCancelAnswer(t *testing.T) {
	f := misbehaving(t, true)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	call := findSeq(t, m, `"city":"Oslo"`)
	m.frames.selectSeq(call)
	raw := func() string { ev, _ := m.c.ix.log.Get(call); return string(ev.Frame.Raw()) }()
	press(m, "r")
	if srv.lastSent() != raw {
		t.Fatalf("resend sent %q, want %q", srv.lastSent(), raw)
	}
	m.frames.selectSeq(call)
	press(m, "e")
	if !m.composer.open || !strings.Contains(m.composer.ta.Value(), `"city":"Oslo"`) {
		t.Fatal("e opens the frame in the composer")
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
	if strings.Contains(ansi.Strip(m.bottomLine()), "compose") {
		t.Fatal("read-only help line offers compose")
	}
	// Live: the help line offers compose.
	m2 := f.model(200, 24, newFakeServer(f))
	if !strings.Contains(ansi.Strip(m2.bottomLine()), "compose") {
		t.Fatalf("live help line lacks compose: %q", ansi.Strip(m2.bottomLine()))
	}
	press(m, "q")
}

func TestCopyUsesOSC52(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(80, 24, nil)
	cmd := m.key(keyMsg("y"))
	if cmd == nil || !strings.Contains(m.message, "copied frame") {
		t.Fatalf("y: cmd=%v message=%q", cmd != nil, m.message)
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
		m := NewModel(Options{Log: f.log, NoColor: noColor, Title: "title " + all, Now: func() time.Duration { return now }})
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

func TestWrapIndentedKeepsEveryCell(t *testing.T) {
	src := `    "text": "` + strings.Repeat("abc 日本 ", 20) + `"`
	rows := wrapIndented(src, 40, 64)
	if len(rows) < 2 {
		t.Fatalf("not wrapped: %q", rows)
	}
	joined := rows[0]
	for _, r := range rows {
		if w := ansi.StringWidth(r); w > 40 {
			t.Fatalf("row %q is %d wide", r, w)
		}
	}
	for _, r := range rows[1:] {
		if !strings.HasPrefix(r, "      ") {
			t.Fatalf("continuation %q is not indented", r)
		}
		joined += strings.TrimPrefix(r, "      ")
	}
	if joined != src {
		t.Fatalf("wrapping lost text:\n%q\n%q", joined, src)
	}
}

// TestWithTheSessionTracker renders through a real session.Tracker: in-flight
// requests, their progress and their end come from it.
func TestWithTheSessionTracker(t *testing.T) {
	log := session.NewLog(0)
	tr := session.NewTracker(session.TrackerOptions{})
	frame := func(dir wire.Dir, s string) uint64 {
		var seq uint64
		for _, fr := range wire.FramesOf([]byte(s), wire.Options{}) {
			seq = log.AppendWith(func(seq uint64, at time.Duration) session.Event {
				tr.Frame(seq, dir, fr, at)
				return session.Event{Type: session.EventFrame, Dir: dir, Frame: fr}
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
// the UI counts what was dropped, keeps only retained frames in its index,
// and forgets the pairings of dropped frames.
func TestRetentionDropsAreShownAndForgotten(t *testing.T) {
	log := session.NewLog(64 << 10)
	m := NewModel(Options{Log: log})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	req := wire.FramesOf([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), wire.Options{})[0]
	resp := wire.FramesOf([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"), wire.Options{})[0]
	for i := 0; i < 20000; i++ {
		log.Append(session.Event{Type: session.EventFrame, Dir: wire.ClientToServer, Frame: req})
		log.Append(session.Event{Type: session.EventFrame, Dir: wire.ServerToClient, Frame: resp})
		if i%1000 == 0 {
			m.Update(logMsg{})
		}
	}
	m.Update(logMsg{})
	first, _ := log.Bounds()
	if len(m.c.ix.frames) != log.Len() || m.c.ix.frames[0] != first {
		t.Fatalf("index holds %d frames from #%d; the log retains %d from #%d", len(m.c.ix.frames), m.c.ix.frames[0], log.Len(), first)
	}
	if len(m.c.ix.pair) > 2*len(m.c.ix.frames)+4096 {
		t.Fatalf("%d pairings kept for %d retained frames", len(m.c.ix.pair), len(m.c.ix.frames))
	}
	if s := ansi.Strip(m.statusBar()); !strings.Contains(s, "dropped") {
		t.Fatalf("status bar does not say events were dropped: %q", s)
	}
}

func TestThemesBuild(t *testing.T) {
	f := misbehaving(t, true)
	for _, name := range []string{"auto", "dark", "light", "high-contrast", "none"} {
		for _, dark := range []bool{true, false} {
			m := NewModel(Options{Log: f.log, Theme: name})
			m.Update(tea.BackgroundColorMsg{Color: map[bool]color.Color{true: color.Black, false: color.White}[dark]})
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			if m.isDark != dark {
				t.Fatalf("background message: isDark=%v", m.isDark)
			}
			if got := ansi.Strip(m.Render()); !strings.Contains(got, "Frames") {
				t.Fatalf("theme %s: screen lacks the frames pane", name)
			}
			m.Close()
		}
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
	for i := 0; i < 30; i++ {
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

// lastLine is the last line of a rendered screen.
func lastLine(screen string) string {
	return screen[strings.LastIndexByte(screen, '\n')+1:]
}
