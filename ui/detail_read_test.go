package ui

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// iconResult is a result as go-sdk's everything server sends it: its
// serverInfo in _meta, with a base64 icon of about 60 wrapped lines at 80
// columns, before the content.
func iconResult(id, text string) string {
	icon := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG icon bytes ", 220)))
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"everything","version":"1.0.0","icons":[{"src":"data:image/png;base64,` + icon + `","mimeType":"image/png"}]}},"content":[{"type":"text","text":"` + text + `"}]}}` + "\n"
}

// reading is a modern-era session: the demo's echo and a go-sdk greeting,
// each answered.
func reading(t *testing.T) (*fixture, uint64, uint64) {
	f := newFixture(t)
	f.c2s(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"text":"hi","type":"text"}]}}` + "\n")
	req := f.c2s(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ann"}}}` + "\n")
	res := f.s2c(iconResult("2", "Hi Ann"))
	return f, req, res
}

// detailText is the Detail pane as shown, without styles.
func detailText(m *Model) string {
	return ansi.Strip(m.detail.Render(m.focus == focusDetail))
}

// TestAnswerOnScreenWithoutKeys: at 80×24 the answer a result carries is
// on screen when it arrives, before its JSON: the demo's "hi", and go-sdk's
// "Hi Ann" behind a _meta with a 4 KiB base64 icon, which is folded.
func TestAnswerOnScreenWithoutKeys(t *testing.T) {
	f, _, res := reading(t)
	m := f.model(80, 24, nil)
	golden(t, "reading/answer-80x24.txt", plain(t, m.Render(), 80, 24))
	if d := detailText(m); !strings.Contains(d, "text   Hi Ann") || strings.Contains(d, "iVBOR") {
		t.Errorf("the newest answer's text is not on screen, or its icon is:\n%s", d)
	}
	m.frames.selectSeq(res - 2)
	m.refresh()
	if d := detailText(m); !strings.Contains(d, "text   hi") {
		t.Errorf("the demo's echo is not on screen:\n%s", d)
	}
}

// TestUnfold: o shows the folded _meta whole and folds it again; a frame
// with nothing folded says so.
func TestUnfold(t *testing.T) {
	f, req, _ := reading(t)
	m := f.model(80, 24, nil)
	whole := func() string { return ansi.Strip(strings.Join(m.detail.lines, "\n")) }
	if !strings.Contains(whole(), `"_meta": {…} (`) || strings.Contains(whole(), "base64,") {
		t.Fatalf("the _meta is not folded:\n%s", whole())
	}
	press(m, "o")
	if !strings.Contains(whole(), "data:image/png;base64,") || !strings.Contains(whole(), `"io.modelcontextprotocol/serverInfo": {`) {
		t.Fatalf("o does not unfold:\n%s", whole())
	}
	press(m, "o")
	if strings.Contains(whole(), "base64,") {
		t.Fatal("o again does not fold")
	}
	m.frames.selectSeq(req)
	m.refresh()
	press(m, "o")
	if m.message != "nothing is folded in this frame" || !m.messageBad {
		t.Errorf("o on a frame with nothing folded: %q", m.message)
	}
}

// TestSearchInFrame: / in the Detail pane finds a text in the frame, n and
// N move between matches and say when they wrap, esc clears; a text found
// only in what is folded unfolds the frame; / elsewhere still filters.
func TestSearchInFrame(t *testing.T) {
	f, _, _ := reading(t)
	m := f.model(80, 24, nil)
	press(m, "tab")
	if m.focus != focusDetail {
		t.Fatalf("tab goes to the Detail pane, not %v", m.focus)
	}
	press(m, "/")
	typeText(m, "ann")
	press(m, "enter")
	if len(m.detail.search.matches) != 2 || m.message != "match 1 of 2 (n next, N previous)" {
		t.Fatalf("search for ann: %d matches, message %q", len(m.detail.search.matches), m.message)
	}
	golden(t, "reading/search-80x24.txt", plain(t, m.Render(), 80, 24))
	press(m, "n")
	if m.detail.search.cur != 1 || !strings.Contains(detailText(m), `"text": "Hi Ann"`) {
		t.Errorf("n: match %d, the JSON's Hi Ann not on screen:\n%s", m.detail.search.cur, detailText(m))
	}
	press(m, "n")
	if m.detail.search.cur != 0 || !strings.HasPrefix(m.message, "wrapped to the first match") {
		t.Errorf("n past the last match: %d, %q", m.detail.search.cur, m.message)
	}
	press(m, "N")
	if m.detail.search.cur != 1 || !strings.HasPrefix(m.message, "wrapped to the last match") {
		t.Errorf("N before the first match: %d, %q", m.detail.search.cur, m.message)
	}
	// In what is folded: the icon's bytes.
	press(m, "/", "ctrl+u")
	typeText(m, "image/png")
	press(m, "enter")
	if !m.detail.unfold || len(m.detail.search.matches) == 0 || !strings.Contains(m.message, "unfolded") {
		t.Errorf("a text in the folded _meta: unfold %v, %d matches, %q", m.detail.unfold, len(m.detail.search.matches), m.message)
	}
	press(m, "/", "esc")
	if m.detail.search.query != "" {
		t.Error("esc does not clear the search")
	}
	press(m, "n")
	if strings.HasPrefix(m.message, "match") {
		t.Error("n without a search moves in matches")
	}
	press(m, "shift+tab", "/")
	if !m.filtering || m.searching {
		t.Error("/ in the Frames pane does not open the filter")
	}
}

// TestGotoPair: x goes from an answer to its request and back, in the
// Frames and Detail panes, as the projection paired them; a progress
// notification goes to its request; another notification says it has none.
func TestGotoPair(t *testing.T) {
	f, req, res := reading(t)
	note := f.s2c(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}` + "\n")
	m := f.model(80, 24, nil)
	m.frames.selectSeq(res)
	m.refresh()
	press(m, "x")
	if got := m.frames.SelectedSeq(); got != req {
		t.Fatalf("x on the answer selected #%d, want its request #%d", got, req)
	}
	press(m, "tab", "x")
	if got := m.frames.SelectedSeq(); got != res || m.focus != focusDetail {
		t.Fatalf("x in the Detail pane on the request selected #%d, want its answer #%d", got, res)
	}
	m.frames.selectSeq(note)
	m.refresh()
	press(m, "x")
	if m.message != "a notification has no request or answer" || m.frames.SelectedSeq() != note {
		t.Errorf("x on a notification: %q", m.message)
	}
	// A progress notification goes to the request that offered its token.
	g := misbehaving(t, true)
	m = g.model(80, 24, nil)
	prog := findSeq(t, m, `"progressToken":"p3","progress":2`)
	m.frames.selectSeq(prog)
	m.refresh()
	press(m, "x")
	if want := findSeq(t, m, `"city":"Oslo"`); m.frames.SelectedSeq() != want {
		t.Errorf("x on a progress notification selected #%d, want its request #%d (%q)", m.frames.SelectedSeq(), want, m.message)
	}
}

// TestAnswerStaysInert: the text an answer carries, decoded from its JSON
// string, is shown inert: escapes a server wrote as \u001b, a BEL, a C1
// CSI and a bidi override reach the screen as pictures, never as bytes.
func TestAnswerStaysInert(t *testing.T) {
	f := newFixture(t)
	f.c2s(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\u001b]52;c;ZXZpbA==\u0007b\u009b2Jc\u202ed"}],"structuredContent":{"k":"\u001b]0;t\u0007"},"isError":true}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"e\u001b[2J\u202e","data":"\u001b]0;x\u0007"}}` + "\n")
	m := f.model(120, 40, nil)
	for _, seq := range m.c.ix.frames[1:] {
		m.frames.selectSeq(seq)
		m.refresh()
		raw := m.detail.Render(false)
		for _, bad := range []string{"\x1b]", "\x07", "\u009b", "\u202e", "\x1b[2J"} {
			if strings.Contains(raw, bad) {
				t.Errorf("frame #%d: %q reached the screen:\n%q", seq, bad, raw)
			}
		}
		if !strings.Contains(ansi.Strip(raw), "␛") {
			t.Errorf("frame #%d: the escape is not shown as a picture:\n%s", seq, ansi.Strip(raw))
		}
	}
}
