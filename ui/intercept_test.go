package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// waitUntil polls cond (a hang guard, not a measurement), letting the
// model read the log between tries.
func waitUntil(t *testing.T, m *Model, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s (message %q)", what, m.message)
		}
		time.Sleep(5 * time.Millisecond)
	}
	m.Update(logMsg{})
}

// arm types a filter into the intercept prompt (i).
func arm(m *Model, filter string) {
	press(m, "i")
	m.icptIn.SetValue("")
	typeText(m, filter)
	press(m, "enter")
}

func lastIntercept(log *eventlog.Log) (eventlog.Event, bool) {
	first, end := log.Bounds()
	evs := log.Range(first, end)
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == eventlog.EventIntercept {
			return evs[i], true
		}
	}
	return eventlog.Event{}, false
}

func framesSent(log *eventlog.Log, dir wire.Dir, text string) int {
	n := 0
	first, end := log.Bounds()
	for _, ev := range log.Range(first, end) {
		if ev.Type == eventlog.EventFrame && ev.Dir == dir && strings.Contains(string(ev.Frame.Raw()), text) {
			n++
		}
	}
	return n
}

func callEcho(id, text string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`+"\n", id, text)
}

// TestInterceptKeysClientFrames drives the model with keys against the
// demo server: i arms a filter; a request the user sends is held (a row of
// its own, marked held, the key bar offering release, edit and drop); e
// edits it in the composer and ctrl+s releases the edit, which is what
// crosses the wire; d drops the next one, which never does.
func TestInterceptKeysClientFrames(t *testing.T) {
	s, m := startDemo(t, eventlog.EraLegacy)
	arm(m, "method:tools/call dir:c2s")
	if !strings.Contains(m.message, "intercept on") || m.c.icptFilter != "method:tools/call dir:c2s" {
		t.Fatalf("arming: %q", m.message)
	}
	if err := s.Send(callEcho("50", "original")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, m, "held frame", func() bool { return len(s.Held()) == 1 })
	press(m, "G")
	view := ansi.Strip(m.View().Content)
	if !strings.Contains(view, "⏸ held tools/call echo") || !strings.Contains(view, "⏸ 1 held") {
		t.Fatalf("the held frame is not shown held:\n%s", view)
	}
	if bar := ansi.Strip(m.bottomLine()); !strings.Contains(bar, "a release") || !strings.Contains(bar, "d drop") {
		t.Errorf("key bar on a held row: %q", bar)
	}
	if framesSent(s.Log(), wire.ClientToServer, "original") != 0 {
		t.Fatal("a held frame crossed the wire")
	}
	press(m, "e")
	if !m.composer.open || !strings.Contains(m.composer.value(), "original") {
		t.Fatalf("e did not open the held frame: %q", m.composer.value())
	}
	m.composer.setDraft(strings.Replace(m.composer.value(), "original", "edited", 1))
	press(m, "ctrl+s")
	waitUntil(t, m, "edited frame on the wire", func() bool { return framesSent(s.Log(), wire.ClientToServer, "edited") == 1 })
	if ev, _ := lastIntercept(s.Log()); ev.Intercept.Action != eventlog.InterceptEdited {
		t.Errorf("last intercept step %v", ev.Intercept.Action)
	}

	// The edited call's answer comes first, so that the held frame is the
	// last row G goes to (an answer logged after it was the last row).
	waitUntil(t, m, "the edited call's answer", func() bool { return framesSent(s.Log(), wire.ServerToClient, "edited") == 1 })
	if err := s.Send(callEcho("51", "dropme")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, m, "second held frame", func() bool { return len(s.Held()) == 1 })
	press(m, "G", "d")
	waitUntil(t, m, "drop", func() bool { return len(s.Held()) == 0 })
	ev, _ := lastIntercept(s.Log())
	if ev.Intercept.Action != eventlog.InterceptDropped || !strings.Contains(ev.Intercept.Answer, "-32050") {
		t.Errorf("drop logged as %+v", ev.Intercept)
	}
	if framesSent(s.Log(), wire.ClientToServer, "dropme") != 0 {
		t.Error("a dropped frame crossed the wire")
	}
	if view := ansi.Strip(m.View().Content); !strings.Contains(view, "✗ dropped tools/call echo") {
		t.Errorf("the dropped frame's row:\n%s", view)
	}
	// An empty filter disarms.
	arm(m, "")
	if m.c.icptFilter != "" || !strings.Contains(m.message, "intercept off") {
		t.Errorf("disarming: %q", m.message)
	}
}

// TestInterceptKeysServerFrames: a server's answer held (the stdout
// reader waiting) is shown on its row as held until a releases it.
func TestInterceptKeysServerFrames(t *testing.T) {
	s, m := startDemo(t, eventlog.EraLegacy)
	arm(m, "dir:s2c tool:echo")
	if err := s.Send(callEcho("60", "back")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, m, "held answer", func() bool { return len(s.Held()) == 1 })
	press(m, "G")
	if view := ansi.Strip(m.View().Content); !strings.Contains(view, "⏸ held result tools/call") {
		t.Fatalf("the held answer is not shown held:\n%s", view)
	}
	press(m, "a")
	waitUntil(t, m, "release", func() bool { return len(s.Held()) == 0 })
	if ev, _ := lastIntercept(s.Log()); ev.Intercept.Action != eventlog.InterceptReleased || ev.Intercept.Dir != wire.ServerToClient {
		t.Errorf("release logged as %+v", ev.Intercept)
	}
	if view := ansi.Strip(m.View().Content); !strings.Contains(view, "▷ released result tools/call") {
		t.Errorf("the released answer's row:\n%s", view)
	}
}
