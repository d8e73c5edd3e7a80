package ui

import (
	"linesman/session"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestTemplatesOpenTheConversationFirst: with no era known (--no-handshake,
// nothing sent yet) the composer starts on the messages that open the
// conversation, not on tools/list, which no server answers before them.
func TestTemplatesOpenTheConversationFirst(t *testing.T) {
	ts := templates(templateCtx{era: session.EraUnknown, id: "1"})
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
	for _, era := range []session.Era{session.EraLegacy, session.EraModern} {
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
