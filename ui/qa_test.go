package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"linesman/session"
	"linesman/themes"
	"linesman/wire"
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

// TestStderrTitleCountsInEnglish: one stderr line is "1 line".
func TestStderrTitleCountsInEnglish(t *testing.T) {
	f := newFixture(t)
	f.stderr("only line")
	screen := ansi.Strip(f.model(80, 24, nil).Render())
	if !strings.Contains(screen, "stderr & events 1 line ") {
		t.Errorf("stderr pane title:\n%s", screen)
	}
}

// failingHandshake is a live server whose handshake after a restart fails
// the way the session's does when the new process dies at once.
type failingHandshake struct{ *fakeServer }

func (failingHandshake) Handshake(context.Context) error {
	return fmt.Errorf("%w: server/discover: %w", session.ErrHandshake, fmt.Errorf("%w (id 2)", session.ErrNoAnswer))
}

// TestRestartHandshakeFailureReads: the message after R names the failure
// once ("restarted: handshake failed: ..."), without stutter or a package
// prefix, so that what matters fits the line.
func TestRestartHandshakeFailureReads(t *testing.T) {
	f := misbehaving(t, false)
	m := NewModel(Options{Log: f.log, Session: failingHandshake{newFakeServer(f)}, Theme: "dark", HandshakeAfterRestart: true})
	t.Cleanup(m.Close)
	m.Update(tea_WindowSize(120, 30))
	press(m, "R")
	want := "restarted: handshake failed: server/discover: the server exited without answering (id 2)"
	if m.message != want || !m.messageBad {
		t.Errorf("message %q (bad=%v), want %q", m.message, m.messageBad, want)
	}
}

// TestDetailOfTruncatedFrame: a frame over --max-frame was kept in part; the
// JSON tab gives its real size and what was kept, not the kept part as the
// frame's size.
func TestDetailOfTruncatedFrame(t *testing.T) {
	f := newFixture(t)
	big := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("A", 1<<20) + `"}}` + "\n"
	for _, fr := range wire.FramesOf([]byte(big), wire.Options{MaxFrame: 300 << 10}) {
		f.step(time.Millisecond)
		f.log.Append(session.Event{At: f.at, Type: session.EventFrame, Dir: wire.ServerToClient, Frame: fr})
	}
	screen := ansi.Strip(f.model(160, 40, nil).Render())
	if !strings.Contains(screen, "1.0M frame, 307.2k kept (--max-frame)") {
		t.Errorf("detail of a truncated frame:\n%s", screen)
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
	if strings.HasPrefix(m.message, "copied") || !strings.Contains(m.message, "refuse") {
		t.Errorf("message %q", m.message)
	}
	f2 := newFixture(t)
	f2.s2c(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	m2 := f2.model(80, 24, nil)
	m2.key(keyMsg("y"))
	if !strings.HasPrefix(m2.message, "copied frame") {
		t.Errorf("small frame: message %q", m2.message)
	}
}

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

// TestRawRowsNeverCutAnEscape: the Raw tab wraps between escapes, so "\x01"
// or the "\r\n" terminator is never split over two rows (which read as a
// backslash and stray hex digits).
func TestRawRowsNeverCutAnEscape(t *testing.T) {
	st := NewStyles(themes.None(), true)
	vis := wire.Visible([]byte(strings.Repeat("\x01", 9)+"ab"), wire.Notation)
	rows := rawRows(st, vis, `\r\n`, 10, 100)
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
	for _, r := range rawRows(st, "abcdefgh", `\r\n`, 9, 100) {
		got = append(got, ansi.Strip(r))
	}
	if strings.Join(got, "|") != `abcdefgh|\r\n` {
		t.Errorf("rows %q", got)
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
	if len(srv.sent) != n+1 || srv.lastSent() != big+"\n" {
		t.Fatalf("ctrl+s sent %d frames (%d bytes)", len(srv.sent)-n, len(srv.lastSent()))
	}
}

// TestProcessPaneQuotesTheCommand: `sh -c 'echo bye >&2; exit 3'` is shown
// quoted, not as "sh -c echo bye >&2; exit 3", which reads as another
// command.
func TestProcessPaneQuotesTheCommand(t *testing.T) {
	f := misbehaving(t, false)
	m := NewModel(Options{Log: f.log, Theme: "dark", ProcessInfo: func() (cmd, env []string, dir string, pending int64) {
		return []string{"sh", "-c", "echo bye >&2; exit 3"}, nil, "/", 0
	}})
	t.Cleanup(m.Close)
	m.Update(tea_WindowSize(160, 48))
	if screen := ansi.Strip(m.Render()); !strings.Contains(screen, `cmd sh -c 'echo bye >&2; exit 3'`) {
		t.Errorf("process pane:\n%s", screen)
	}
}

// TestFilterRefusesUnknownCode: code:TYPO is an error, not a filter that
// silently matches nothing.
func TestFilterRefusesUnknownCode(t *testing.T) {
	if _, err := parseFilter("code:non-json-lines"); err == nil || !strings.Contains(err.Error(), "no such finding code") {
		t.Errorf("code:non-json-lines: %v", err)
	}
	for _, ok := range []string{"code:non-json-line", "code:*", "!code:reused-id"} {
		if _, err := parseFilter(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
