package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"linesman/session"
	"linesman/session/eventlog"
	"linesman/wire"
)

// TestTemplatesOpenTheConversationFirst: with no era known (--no-handshake,
// nothing sent yet) the composer starts on the messages that open the
// conversation, not on tools/list, which no server answers before them.
func TestTemplatesOpenTheConversationFirst(t *testing.T) {
	ts := templates(templateCtx{era: eventlog.EraUnknown, id: "1"})
	var names []string
	for _, x := range ts {
		names = append(names, x.Name)
	}
	if len(names) < 3 || names[0] != "server/discover (modern)" || names[1] != "initialize (legacy)" || names[2] != "notifications/initialized (legacy)" {
		t.Errorf("templates with no era: %v", names)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("template %q offered twice: %v", n, names)
		}
		seen[n] = true
	}
	for _, era := range []eventlog.Era{eventlog.EraLegacy, eventlog.EraModern} {
		if first := templates(templateCtx{era: era, id: "4"})[0].Name; first != "tools/list" {
			t.Errorf("%s era: first template %q, want tools/list", era, first)
		}
	}
}

// TestComposerBigDraft: e on a frame of megabytes does not load it into the
// textarea, whose rendering would take seconds a frame and freeze the UI;
// the draft is previewed, and ctrl+s still sends it whole.
func TestComposerBigDraft(t *testing.T) {
	f := newFixture(t)
	big := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"x":"` + strings.Repeat("y", 1<<20) + `"}}}`
	f.c2s(big + "\n")
	srv := newFakeServer(f)
	m := f.model(100, 30, srv)
	press(m, "e")
	// e opens it pretty-printed with the next free id (8).
	big = prettyText([]byte(strings.Replace(big, `"id":7`, `"id":8`, 1)))
	if !m.composer.open || m.composer.ta.Value() != "" || m.composer.value() != big {
		t.Fatalf("e of a 1 MiB frame: open=%v, textarea holds %d bytes", m.composer.open, len(m.composer.ta.Value()))
	}
	if screen := ansi.Strip(m.Render()); !strings.Contains(screen, "too large to edit here") {
		t.Errorf("no word on the big draft:\n%s", screen)
	}
	press(m, "x") // typing does not touch a big draft
	if m.composer.value() != big {
		t.Fatal("a key changed the big draft")
	}
	n := len(srv.sent)
	for i := 0; i < 2 && len(srv.sent) == n; i++ { // the second ctrl+s confirms the reused id
		press(m, "ctrl+s")
	}
	if len(srv.sent) != n+1 || srv.lastSent() != compactLine(big)+"\n" {
		t.Fatalf("ctrl+s sent %d frames (%d bytes)", len(srv.sent)-n, len(srv.lastSent()))
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
	// ... unless sent raw on purpose: ctrl+r switches to raw mode, which
	// the title line shows, and ctrl+s sends the bytes as typed.
	press(m, "ctrl+r")
	if s := ansi.Strip(m.composer.Render(true)); !strings.Contains(s, "[raw: as typed]") {
		t.Fatalf("raw mode not shown:\n%s", s)
	}
	if s := lastLine(ansi.Strip(m.Render())); !strings.Contains(s, "ctrl+s send as typed") || !strings.Contains(s, "ctrl+r complete mode") {
		t.Fatalf("the key bar does not say what ctrl+s and ctrl+r do in raw mode: %q", s)
	}
	press(m, "ctrl+s")
	if got := srv.lastSent(); got != "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 9 \"method\": \"ping\"\n}\n" {
		t.Fatalf("raw send sent %q", got)
	}
	press(m, "c", "ctrl+r") // back to complete mode
	if s := ansi.Strip(m.composer.Render(true)); !strings.Contains(s, "[complete]") {
		t.Fatalf("complete mode not shown:\n%s", s)
	}
	press(m, "esc")

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
	ts := templates(templateCtx{era: eventlog.EraModern, version: "2026-07-28", id: "4", cancelID: "3"})
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
	legacy := templates(templateCtx{era: eventlog.EraLegacy, id: "4"})
	for _, x := range legacy {
		if _, err := check(x.Text); err != nil {
			t.Errorf("template %s is not valid JSON: %v", x.Name, err)
		}
		if x.Name == "tools/list" && strings.Contains(x.Text, "_meta") {
			t.Fatal("legacy requests carry no _meta")
		}
	}
}

// startDemo starts the demo server as a real child in the era given, makes
// the handshake and returns the session with a model driving it.
func startDemo(t *testing.T, era eventlog.Era) (*session.Session, *Model) {
	t.Helper()
	s, err := session.Start(session.Config{Command: servers.Command("demo"), Env: []string{servers.Env("demo")}, Era: era})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Kill(); <-s.Done() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	if err := s.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	m := NewModel(Options{Log: s.Log(), Tracker: s.Tracker(), Session: s, Theme: "dark"})
	t.Cleanup(m.Close)
	m.Update(tea_WindowSize(120, 40))
	return s, m
}

// composeAndSend types text into a cleared composer and sends it with
// ctrl+s; it returns the frame that went to the server once it is
// answered (at once when it is not a request: no answer will come).
func composeAndSend(t *testing.T, s *session.Session, m *Model, text string) (*wire.Frame, uint64) {
	t.Helper()
	press(m, "c", "ctrl+x")
	typeText(m, text)
	return sentAndAnswered(t, s, m, text, "ctrl+s")
}

// sentAndAnswered presses key, and returns the frame it sent and its Seq
// once it is answered (at once when it is not a request).
func sentAndAnswered(t *testing.T, s *session.Session, m *Model, text, key string) (*wire.Frame, uint64) {
	t.Helper()
	_, next := s.Log().Bounds()
	press(m, key)
	var sent *wire.Frame
	var seq uint64
	answered := false
	deadline := time.Now().Add(time.Minute) // a hang guard, not a measurement
	for !answered && (sent == nil || sent.Msg.Kind == wire.KindRequest) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: no answer (sent %v; %s)", text, sent != nil, m.message)
		}
		time.Sleep(5 * time.Millisecond)
		_, end := s.Log().Bounds()
		for _, ev := range s.Log().Range(next, end) {
			switch {
			case ev.Frame == nil:
			case ev.Dir == wire.ClientToServer && sent == nil:
				sent, seq = ev.Frame, ev.Seq
			case ev.Dir == wire.ServerToClient && (ev.Frame.Msg.Kind == wire.KindResult || ev.Frame.Msg.Kind == wire.KindError):
				answered = true
			}
		}
	}
	return sent, seq
}

// logCodes is every finding code in the log, on frames and apart.
func logCodes(log *eventlog.Log) map[string]bool {
	codes := map[string]bool{}
	first, end := log.Bounds()
	for _, ev := range log.Range(first, end) {
		if ev.Frame != nil {
			for _, f := range ev.Frame.Findings {
				codes[f.Code] = true
			}
		}
		if ev.Finding != nil {
			codes[ev.Finding.Code] = true
		}
	}
	return codes
}

// TestComposerCompletesWhatItSends: in the modern era, a request typed in
// the composer without the era's _meta (and one without an id and
// "jsonrpc" too) goes to the demo server completed, as linesman send
// completes it, so linesman raises no finding of its own making
// (request-meta-missing, malformed-request-answered). In raw mode (ctrl+r)
// the bytes go exactly as typed.
func TestComposerCompletesWhatItSends(t *testing.T) {
	s, m := startDemo(t, eventlog.EraModern)
	for _, text := range []string{
		`{"jsonrpc":"2.0","id":` + s.NextID().String() + `,"method":"tools/list"}`,
		`{"method":"tools/list"}`,
	} {
		sent, _ := composeAndSend(t, s, m, text)
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Params  struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(sent.Raw(), &msg); err != nil {
			t.Fatalf("%s: sent %q: %v", text, sent.Raw(), err)
		}
		if msg.JSONRPC != "2.0" || len(msg.ID) == 0 || msg.Params.Meta[eventlog.MetaProtocolVersion] == nil || msg.Params.Meta[eventlog.MetaClientCapabilities] == nil {
			t.Errorf("%s: sent %s, want it completed (jsonrpc, id, _meta)", text, sent.Raw())
		}
	}
	codes := logCodes(s.Log())
	for _, code := range []string{"request-meta-missing", "malformed-request-answered"} {
		if codes[code] {
			t.Errorf("linesman raised %s against its own request; findings: %v", code, codes)
		}
	}

	// Raw mode: the bytes as typed, nothing filled in.
	press(m, "c", "ctrl+r")
	press(m, "esc")
	raw := `{"jsonrpc":"2.0","id":` + s.NextID().String() + `,"method":"tools/list"}`
	sent, seq := composeAndSend(t, s, m, raw)
	if string(sent.Raw()) != raw+"\n" {
		t.Errorf("raw mode sent %q, want %q", sent.Raw(), raw+"\n")
	}
	if codes := logCodes(s.Log()); !codes["request-meta-missing"] {
		t.Errorf("the raw request without _meta drew no request-meta-missing: %v", codes)
	}

	// r resends that frame with a fresh id, completed like the rest.
	m.Update(logMsg{})
	m.frames.selectSeq(seq)
	m.refresh()
	if resent, _ := sentAndAnswered(t, s, m, "r of "+raw, "r"); !strings.Contains(string(resent.Raw()), `"_meta":{`) {
		t.Errorf("r resent %s without the era's _meta", resent.Raw())
	}
}

// TestComposerReusedIDAskedEveryTime: the warning about a reused id is
// shown in full at 80 columns (wrapped, not cut), goes to the message log,
// and is asked again after esc and c — one ctrl+s never sends it.
func TestComposerReusedIDAskedEveryTime(t *testing.T) {
	f := misbehaving(t, true)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	press(m, "c", "ctrl+x")
	typeText(m, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	n := len(srv.sent)
	press(m, "ctrl+s")
	want := "▲ ctrl+s again sends anyway: id 2 was used before; the legacy era forbids reusing an id in a session"
	screen := ansi.Strip(m.Render())
	if len(srv.sent) != n || !strings.Contains(strings.Join(strings.Fields(screen), " "), want) {
		t.Fatalf("the warning is not on screen in full:\n%s", screen)
	}
	press(m, "esc", "c", "ctrl+s")
	if len(srv.sent) != n || !strings.Contains(m.composer.status, "id 2 was used before") {
		t.Fatalf("esc, c, ctrl+s sent the reused id without asking (status %q)", m.composer.status)
	}
	press(m, "ctrl+s")
	if len(srv.sent) != n+1 {
		t.Fatal("the second ctrl+s did not send")
	}
	asked := 0
	for _, l := range m.msgLog {
		if strings.Contains(l, "composer: "+want) {
			asked++
		}
	}
	if asked != 2 {
		t.Fatalf("the message log holds the warning %d times, want 2: %q", asked, m.msgLog)
	}
}

// TestComposerTitleFollowsBuffer: the title names the template until the
// text changes, then what the text is; what $EDITOR wrote is named too.
func TestComposerTitleFollowsBuffer(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(100, 24, newFakeServer(f))
	press(m, "c")
	title := func() string { return strings.SplitN(ansi.Strip(m.composer.Render(true)), "\n", 2)[0] }
	if s := title(); !strings.Contains(s, "tools/list") || !strings.Contains(s, "(1/") {
		t.Fatalf("template title: %q", s)
	}
	press(m, "ctrl+x")
	typeText(m, `{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"name":"p"}}`)
	if s := title(); !strings.Contains(s, "prompts/get p (edited)") || strings.Contains(s, "tools/list") {
		t.Fatalf("typed title: %q", s)
	}
	m.Update(editorMsg{text: `{"jsonrpc":"2.0","id":9,"result":{}}`})
	if s := title(); !strings.Contains(s, "from $EDITOR: answer to id 9") {
		t.Fatalf("title after ctrl+o: %q", s)
	}
}
