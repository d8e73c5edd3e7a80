package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// TestInFlightHintWhenTheServerIsSilent: a request waiting while the
// server writes nothing gets a hint after a few seconds — on the model's
// clock, driven here, not on the wall's — and loses it when the server
// speaks again.
func TestInFlightHintWhenTheServerIsSilent(t *testing.T) {
	f := newFixture(t)
	f.c2s(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}` + "\n")
	now := f.at
	m := NewModel(Options{Log: f.log, Tracker: f.tr, Theme: "dark", Now: func() time.Duration { return now }})
	t.Cleanup(m.Close)
	m.Update(tea_WindowSize(160, 48))
	screen := func() string { return ansi.Strip(m.Render()) }

	now += quietHint - time.Millisecond
	m.Update(tickMsg{})
	if strings.Contains(screen(), "silent") {
		t.Fatalf("a hint before %s:\n%s", quietHint, screen())
	}
	now += time.Millisecond
	m.Update(tickMsg{})
	s := screen()
	for _, want := range []string{"▲ silent 5.0s", "no bytes from the server since 0.002s, 5.0s ago"} {
		if !strings.Contains(s, want) {
			t.Errorf("after %s of silence the screen lacks %q:\n%s", quietHint, want, s)
		}
	}
	if h := strings.Join(m.inflight.hint(), " "); !strings.Contains(squash(h), squash("is its stdout buffered? see explain unflushed-output")) {
		t.Errorf("the hint does not point at the explanation: %q", h)
	}
	// The hint fits at 80×24 too: the title says it short, zoom says it all.
	m.Update(tea_WindowSize(80, 24))
	if !strings.Contains(screen(), "▲ silent 5.0s") {
		t.Errorf("80×24: the In flight title does not say the server is silent:\n%s", screen())
	}
	for m.focus != focusInFlight {
		press(m, "tab")
	}
	press(m, "z")
	if s := screen(); !strings.Contains(strings.ReplaceAll(squash(s), "\n", ""), squash("is its stdout buffered? see explain unflushed-output")) {
		t.Errorf("80×24 zoomed: the hint is not whole:\n%s", s)
	}
	press(m, "z")
	// The server speaks: the hint goes.
	f.at = now
	f.s2c(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}` + "\n")
	m.Update(logMsg{})
	if strings.Contains(screen(), "silent") {
		t.Errorf("the hint stays after the server wrote:\n%s", screen())
	}
}
