package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"

	"github.com/charmbracelet/x/ansi"
)

// TestDetailOfTruncatedFrame: a frame over --max-frame was kept in part; the
// JSON tab gives its real size and what was kept, not the kept part as the
// frame's size.
func TestDetailOfTruncatedFrame(t *testing.T) {
	f := newFixture(t)
	big := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("A", 1<<20) + `"}}` + "\n"
	for _, fr := range wire.FramesOf([]byte(big), wire.Options{MaxFrame: 300 << 10}) {
		f.step(time.Millisecond)
		f.append(eventlog.Event{Type: eventlog.EventFrame, Dir: wire.ServerToClient, Frame: fr})
	}
	screen := ansi.Strip(f.model(160, 40, nil).Render())
	if !strings.Contains(screen, "1.0 MiB frame, 300 KiB kept (--max-frame)") {
		t.Errorf("detail of a truncated frame:\n%s", screen)
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

// TestRawTabShowsBytesAsTheyWere: the Raw tab shows the wire's bytes as
// they were — a JSON escape `\n` on the wire is the two bytes `\` `n` and
// shows as `\n`, not `\\n` — and only control and invalid bytes are made
// visible (wire.Visible's notation: \x01, \xff).
func TestRawTabShowsBytesAsTheyWere(t *testing.T) {
	f := newFixture(t)
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{"text":"42\n","c":"` + "\x01\xff" + `"}}` + "\n")
	m := f.model(160, 40, nil)
	press(m, "]")
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, `"text":"42\n"`) || strings.Contains(screen, `42\\n`) {
		t.Errorf("raw tab does not show the bytes as they were:\n%s", screen)
	}
	if !strings.Contains(screen, `"c":"\x01\xff"}}⏎`) {
		t.Errorf("raw tab does not make control/invalid bytes visible:\n%s", screen)
	}
}

// TestRawWithoutColour: under NO_COLOR (the colourless theme) the Raw tab
// still tells an escape and the line end from what the server wrote: both
// are in reverse video (SGR 7), the escaped "\n" of a JSON string is not,
// and a ⏎ the server wrote itself is plain too.
func TestRawWithoutColour(t *testing.T) {
	f := newFixture(t)
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{"text":"42\n ⏎","c":"` + "\x01" + `"}}` + "\n")
	m := NewModel(Options{Log: f.log, Tracker: f.tr, NoColor: true, Title: "fixture", Now: func() time.Duration { return f.at }})
	t.Cleanup(m.Close)
	m.Update(tea_WindowSize(160, 40))
	press(m, "]")
	var raw string
	for _, l := range strings.Split(m.Render(), "\n") {
		if strings.Contains(ansi.Strip(l), "L1 ") {
			raw = l
		}
	}
	if strings.Contains(raw, "\x1b[3") || strings.Contains(raw, "\x1b[38") {
		t.Errorf("a colour under NO_COLOR: %q", raw)
	}
	reversed := regexp.MustCompile("\x1b\\[(?:[0-9;]*;)?7m([^\x1b]*)\x1b\\[m").FindAllStringSubmatch(raw, -1)
	var marked []string
	for _, r := range reversed {
		marked = append(marked, r[1])
	}
	if strings.Join(marked, "|") != `\x01|⏎` {
		t.Errorf("in reverse video: %q, want the escape and the line end alone; the line:\n%q", marked, raw)
	}
}

// TestFindingsTabAfterNextFinding: n shows the Findings tab of the frame it
// jumps to, but only for as long as the selection stays on the frames n
// (or N) reached: selecting another frame any other way returns to the tab
// the user had before n (JSON here), so a later frame shows its content
// rather than "no findings on this frame". A Findings tab the user chose
// with ] stays chosen.
func TestFindingsTabAfterNextFinding(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(160, 40, nil)
	press(m, "g", "n")
	if m.detail.tab != tabFindings {
		t.Fatal("n does not show the findings tab")
	}
	press(m, "n")
	if m.detail.tab != tabFindings {
		t.Fatal("a second n left the findings tab")
	}
	for range 3 {
		press(m, "j")
		if m.detail.tab != tabJSON {
			t.Fatalf("moving off the finding n reached leaves the detail on tab %s", tabNames[m.detail.tab])
		}
		if s := ansi.Strip(m.Render()); strings.Contains(s, "no findings on this frame") {
			t.Fatalf("a later frame shows the findings tab:\n%s", s)
		}
	}
	press(m, "]", "n", "j")
	if m.detail.tab != tabRaw {
		t.Fatalf("after ] n j the tab is %s, want Raw (the tab before n)", tabNames[m.detail.tab])
	}
	press(m, "]", "j")
	if m.detail.tab != tabFindings {
		t.Fatal("a Findings tab chosen with ] did not stay chosen")
	}
}
