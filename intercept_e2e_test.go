package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/wire"
)

// TestUIInterceptBothWays runs the real binary on the demo server in a
// pseudo-terminal with a capture: i arms tool:echo, and calls of echo made
// through the picker are held on their way out and their answers on their
// way back; each direction sees a frame edited (e, ctrl+x, the new text,
// ctrl+s), dropped (d) and released (a). The capture records every step,
// the wire carries the client's edit and never the dropped request, and
// the server's frames stay what the server wrote.
func TestUIInterceptBothWays(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "held.jsonl")
	term := startTerminal(t, 120, 40, "--capture", path)
	term.waitFor("linesman-demo", "result tools/list")
	term.send("i")
	term.waitFor("intercept:")
	term.send("tool:echo\r")
	term.waitFor("i:tool:echo")

	call := func(text string) {
		t.Helper()
		term.send("t")
		term.waitFor("▶ Pick")
		term.send("echo")
		term.waitFor("filter ▸ echo")
		term.send("\r")
		term.waitFor("▶ tools/call echo")
		term.send(text)
		term.waitFor(text)
		term.send("\x13") // ctrl+s
	}
	edit := func(frame, want string) {
		t.Helper()
		term.send("e")
		term.waitFor("edit of held")
		term.send("\x18") // ctrl+x: from scratch
		term.send(frame)
		term.send("\x13")
		term.waitFor(want)
	}
	// client→server edited; its answer (server→client) edited.
	call("first-call")
	term.waitFor("⏸ held tools/call echo")
	edit(`{"jsonrpc":"2.0","id":900,"method":"tools/call","params":{"name":"echo","arguments":{"text":"edited-c2s"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "released held #1 as edited")
	term.waitFor("⏸ held result tools/call")
	edit(`{"jsonrpc":"2.0","id":900,"result":{"content":[{"type":"text","text":"edited-s2c"}]}}`, "released held #2 as edited")
	// client→server dropped.
	call("second-call")
	term.waitFor("⏸ 1 held")
	term.send("d")
	term.waitFor("dropped held #3")
	// client→server released; its answer dropped.
	call("third-call")
	term.waitFor("⏸ 1 held")
	term.send("a")
	term.waitFor("⏸ held result tools/call")
	term.send("d")
	term.waitFor("dropped held #5")
	// server→client released.
	call("fourth-call")
	term.waitFor("⏸ 1 held")
	term.send("a")
	term.waitFor("⏸ held result tools/call")
	term.send("a")
	term.waitFor("released held #7")
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}

	c, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	var wireC2S, wireS2C, edits string
	first, end := c.Log.Bounds()
	for _, ev := range c.Log.Range(first, end) {
		switch ev.Type {
		case eventlog.EventIntercept:
			steps = append(steps, ev.Intercept.Dir.String()+" "+string(ev.Intercept.Action))
			if ev.Frame != nil {
				edits += string(ev.Frame.Raw())
			}
		case eventlog.EventFrame:
			if ev.Dir == wire.ClientToServer {
				wireC2S += string(ev.Frame.Raw())
			} else {
				wireS2C += string(ev.Frame.Raw())
			}
		}
	}
	want := []string{"c2s held", "c2s edited", "s2c held", "s2c edited", "c2s held", "c2s dropped",
		"c2s held", "c2s released", "s2c held", "s2c dropped", "c2s held", "c2s released", "s2c held", "s2c released"}
	if !slices.Equal(steps, want) {
		t.Errorf("the capture's intercept steps:\n%q\nwant\n%q", steps, want)
	}
	for _, w := range []struct {
		where, text string
		in          bool
	}{
		{"wire c2s", "edited-c2s", true}, {"wire c2s", "first-call", false}, {"wire c2s", "second-call", false},
		{"wire c2s", "third-call", true}, {"wire s2c", "edited-s2c", false},
		{"intercept frames", "edited-s2c", true}, {"intercept frames", "second-call", true},
	} {
		got := map[string]string{"wire c2s": wireC2S, "wire s2c": wireS2C, "intercept frames": edits}[w.where]
		if strings.Contains(got, w.text) != w.in {
			t.Errorf("%s holds %q: %v, want %v", w.where, w.text, !w.in, w.in)
		}
	}
	// The server is not charged for what linesman held, edited or dropped.
	for _, r := range c.Tracker.Requests() {
		if r.TimedOut {
			t.Errorf("request %s timed out", r.ID)
		}
	}
}
