package ui

import (
	"strings"
	"testing"

	"linesman/wire"

	"github.com/charmbracelet/x/ansi"
)

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
	if last := bottomText(m); !strings.Contains(last, "kind:bogus: want") {
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
