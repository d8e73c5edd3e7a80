package ui

import (
	"strings"
	"testing"

	"linesman/wire"
)

// TestDraftKeptAndCleared: esc keeps a draft the user wrote and says so; c
// reopens it; esc at once again clears it (saying so), as does ctrl+x in
// the composer; either way ↑ brings it back. A template nobody touched is
// not kept.
func TestDraftKeptAndCleared(t *testing.T) {
	f := offering(t)
	m := f.model(80, 24, newFakeServer(f))
	draft := `{"jsonrpc":"2.0","id":40,"method":"ping"}`

	press(m, "c", "esc")
	if m.composer.kept || m.message != "" {
		t.Fatalf("an untouched template was kept (%q)", m.message)
	}
	press(m, "c", "ctrl+x")
	typeText(m, draft)
	press(m, "esc")
	if m.composer.open || !m.composer.kept || !strings.Contains(m.message, "draft kept: c reopens it · esc again clears it") {
		t.Fatalf("esc: open %v kept %v, says %q", m.composer.open, m.composer.kept, m.message)
	}
	press(m, "c")
	if m.composer.value() != draft || !strings.Contains(m.composer.status, "your draft") {
		t.Fatalf("c reopens %q (%q)", m.composer.value(), m.composer.status)
	}
	// Another key between the two escs: the draft stays.
	press(m, "esc", "j", "esc")
	if !m.composer.kept {
		t.Fatal("esc after another key cleared the draft")
	}
	press(m, "c", "esc", "esc")
	if m.composer.kept || !strings.Contains(m.message, "draft cleared") {
		t.Fatalf("esc esc: kept %v, says %q", m.composer.kept, m.message)
	}
	press(m, "c")
	if strings.Contains(m.composer.value(), `"id":40`) {
		t.Fatal("the cleared draft came back by itself")
	}
	press(m, "up")
	if m.composer.value() != draft {
		t.Fatalf("↑ does not bring the cleared draft back: %q", m.composer.value())
	}
	// ctrl+x on an entry browsed, unchanged, does not file it again (nor
	// the untouched template left to browse).
	n := len(m.composer.hist.entries)
	press(m, "ctrl+x")
	if m.composer.status != "cleared" || m.composer.value() != "" || len(m.composer.hist.entries) != n {
		t.Fatalf("ctrl+x on a browsed entry: %q, left %q, history %d entries (was %d)", m.composer.status, m.composer.value(), len(m.composer.hist.entries), n)
	}
	// Changed, it is the user's: ctrl+x files it.
	press(m, "up")
	typeText(m, " ")
	press(m, "ctrl+x")
	if !strings.Contains(m.composer.status, "draft cleared (↑ brings it back)") || len(m.composer.hist.entries) != n+1 {
		t.Fatalf("ctrl+x on an edited entry: %q, history %d entries", m.composer.status, len(m.composer.hist.entries))
	}
}

// TestHistoryWalk: ↑ at the first line shows the requests sent, newest
// first, each with the next free id; ↓ at the last line goes forward and,
// past the newest, back to the draft being written. Moving inside a text
// of several lines still moves the cursor.
func TestHistoryWalk(t *testing.T) {
	f := offering(t)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	send := func(text string) {
		press(m, "c", "ctrl+x")
		typeText(m, text)
		press(m, "ctrl+s")
	}
	send(`{"jsonrpc":"2.0","id":10,"method":"ping"}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	press(m, "c", "ctrl+x")
	typeText(m, "mine")
	press(m, "up")
	if v := m.composer.value(); v != `{"jsonrpc":"2.0","method":"notifications/initialized"}` {
		t.Fatalf("↑ shows %q; want the newest sent, as it was (a notification has no id)", v)
	}
	press(m, "up")
	if v := m.composer.value(); v != `{"jsonrpc":"2.0","id":11,"method":"ping"}` || !strings.Contains(m.composer.status, "fresh id (was 10)") {
		t.Fatalf("second ↑ shows %q (%q); want the ping with the next free id", v, m.composer.status)
	}
	press(m, "up")
	if !strings.Contains(m.composer.status, "oldest") {
		t.Errorf("↑ past the oldest says %q", m.composer.status)
	}
	press(m, "down", "down")
	if v := m.composer.value(); v != "mine" {
		t.Fatalf("↓ past the newest shows %q, want the draft", v)
	}
	// A text of several lines: ↑ moves the cursor until the first line.
	press(m, "ctrl+x")
	typeText(m, "a")
	m.composer.ta.InsertString("\nb")
	press(m, "up")
	if m.composer.value() != "a\nb" || m.composer.ta.Line() != 0 {
		t.Fatalf("↑ on the second line: %q, line %d", m.composer.value(), m.composer.ta.Line())
	}
}

func TestRenewID(t *testing.T) {
	for _, c := range []struct{ in, want, old string }{
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, "3"},
		{`{"id":"a","method":"x","params":{"_meta":{"progressToken":"a"},"id":"a"}}`, `{"id":9,"method":"x","params":{"_meta":{"progressToken":9},"id":"a"}}`, `"a"`},
		{"{\n  \"params\": {\"_meta\": {\"progressToken\": 3}},\n  \"method\": \"x\",\n  \"id\": 3\n}\n", "{\n  \"params\": {\"_meta\": {\"progressToken\": 9}},\n  \"method\": \"x\",\n  \"id\": 9\n}\n", "3"},
		{`{"id":3,"method":"x","params":{"_meta":{"progressToken":"p3"}}}`, `{"id":9,"method":"x","params":{"_meta":{"progressToken":"p3"}}}`, "3"},
	} {
		got, old, ok := renewID([]byte(c.in), "9")
		if !ok || string(got) != c.want || old != c.old {
			t.Errorf("%s: %s (old %s, ok %v), want %s", c.in, got, old, ok, c.want)
		}
	}
	for _, in := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"id":3,"method":"x"} {"id":4}`,
		`not json`,
	} {
		if got, _, ok := renewID([]byte(in), "9"); ok || string(got) != in {
			t.Errorf("%s was renewed: %s", in, got)
		}
	}
}

// listingServer is a live server that sends requests with fresh ids, as
// the session does: the picker asks it for the lists nobody asked for.
type listingServer struct {
	*fakeServer
	asked []string
}

func (s *listingServer) Request(method string, _ any) (wire.ID, error) {
	id := s.f.tr.NextID()
	s.asked = append(s.asked, method)
	return id, s.Send([]byte(`{"jsonrpc":"2.0","id":` + idJSON(id) + `,"method":` + jsonText(method) + "}\n"))
}

// TestPickerListsWhatIsDeclared: opening the picker asks for the lists
// the server declares (its capabilities) and nobody listed yet, once.
func TestPickerListsWhatIsDeclared(t *testing.T) {
	f := misbehaving(t, true) // declares tools only, and listed them
	srv := &listingServer{fakeServer: newFakeServer(f)}
	m := f.model(80, 24, srv)
	press(m, "t")
	if len(srv.asked) != 0 {
		t.Fatalf("asked for %v though tools were listed and nothing else declared", srv.asked)
	}
	f2 := newFixture(t)
	f2.c2s(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}` + "\n")
	f2.s2c(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"prompts":{},"resources":{}},"serverInfo":{"name":"p","version":"1"}}}` + "\n")
	srv2 := &listingServer{fakeServer: newFakeServer(f2)}
	m2 := f2.model(80, 24, srv2)
	press(m2, "t")
	if got := strings.Join(srv2.asked, " "); got != "prompts/list resources/list resources/templates/list" {
		t.Fatalf("asked for %q", got)
	}
	if !strings.Contains(m2.pickerCounts(), "tools not listed") {
		t.Errorf("counts: %s", m2.pickerCounts())
	}
	press(m2, "esc", "t")
	if len(srv2.asked) != 3 {
		t.Fatalf("asked again: %v", srv2.asked)
	}
}
