package main

import (
	"strings"
	"testing"
	"time"

	"linesman/wire"
)

// TestDemoDefaultInspectsTheDemoServer: `linesman` with no arguments opens
// the inspector on the built-in demo server: the era probe's handshake
// completes (modern era, the demo's serverInfo in the status bar), and a
// tools/list typed in the composer lists the demo's tools.
func TestDemoDefaultInspectsTheDemoServer(t *testing.T) {
	term := startTerminal(t, 140, 45)
	term.waitFor("modern 2026-07-28", "linesman-demo 0.1.0")

	term.send("c")
	term.waitFor("Composer")
	term.send("\x18") // ctrl+x: clear the template
	term.send(`{"jsonrpc":"2.0","id":90,"method":"tools/list"}`)
	term.waitFor(`"method":"tools/list"}`)
	term.send("\x13") // ctrl+s: send
	term.waitFor("← 90", "result tools/list", `"tools": [`)
	// The tools are listed: the composer now offers a template per tool.
	term.send("c")
	term.waitFor("Composer")
	term.send("\x14") // ctrl+t: next template
	term.waitFor("Composer tools/call echo")
	term.send("\x1b") // esc: close the composer
	// Wait for it to close: an esc followed at once by q reads as alt+q.
	for deadline := time.Now().Add(20 * time.Second); strings.Contains(term.screen(), "Composer"); {
		if time.Now().After(deadline) {
			t.Fatalf("esc did not close the composer:\n%s", term.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}

	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// TestDemoTourUnsafe walks the README's guided tour in the unisolated demo
// with the keys it names: the composer's first template lists the tools;
// ctrl+t steps to the print_debug template; its stray line is a frame of its
// own flagged non-json-line and counted in the status bar; n selects it with
// its Findings tab (the registry's explanation), and [ shows its raw bytes.
func TestDemoTourUnsafe(t *testing.T) {
	term := startTerminal(t, 140, 45, "--demo-unsafe")
	term.waitFor("modern 2026-07-28", "linesman-demo 0.1.0", "(unisolated)")

	term.send("c")
	term.waitFor("Composer tools/list")
	term.send("\x13") // ctrl+s
	term.waitFor("result tools/list")

	term.send("c")
	term.waitFor("Composer")
	for range 2 {
		term.send("\x14") // ctrl+t: next template
	}
	term.waitFor("Composer tools/call print_debug")
	term.send("\x13")
	s := term.waitFor("non-json-line", "result tools/call")
	if !strings.Contains(s, "✖ 1") {
		t.Errorf("the status bar does not count the stray print as an error:\n%s", s)
	}

	info, _ := wire.Lookup("non-json-line")
	term.send("n")
	term.waitFor("← server→client non-json", "[Findings(1)]", info.Title)
	term.send("[")
	term.waitFor("[Raw]", "DEBUG: print_debug was called")

	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// TestDemoTourCancel: slow_count shows its progress in the In flight pane;
// x there cancels it, and the demo server stops counting (its stderr says so)
// and sends nothing more for it.
func TestDemoTourCancel(t *testing.T) {
	term := startTerminal(t, 140, 45)
	term.waitFor("modern 2026-07-28", "linesman-demo 0.1.0")
	term.send("c")
	term.waitFor("Composer")
	term.send("\x18") // ctrl+x: write from scratch
	term.send(`{"jsonrpc":"2.0","id":60,"method":"tools/call","params":{"name":"slow_count","arguments":{"seconds":3600},"_meta":{"progressToken":60}}}`)
	term.waitFor(`3600`)
	term.send("\x13")
	term.waitFor("slow_count (id 60): 1 of 3600")
	for i := 0; focusedPane(term.screen()) != "In flight"; i++ {
		if i == 6 {
			t.Fatalf("tab never focused the In flight pane:\n%s", term.screen())
		}
		was := focusedPane(term.screen())
		term.send("\t")
		// Wait for the focus to move before looking again, or tabs pile up.
		for deadline := time.Now().Add(20 * time.Second); focusedPane(term.screen()) == was; {
			if time.Now().After(deadline) {
				t.Fatalf("tab did not move the focus from %q", was)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	term.send("x")
	term.waitFor("slow_count (id 60) cancelled", "nothing in flight")
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// focusedPane returns the title of the pane marked focused (▶) on screen.
func focusedPane(screen string) string {
	_, after, ok := strings.Cut(screen, "▶ ")
	if !ok {
		return ""
	}
	for _, name := range []string{"Frames", "Detail", "In flight", "Process", "stderr", "Composer"} {
		if strings.HasPrefix(after, name) {
			return name
		}
	}
	title, _, _ := strings.Cut(after, "  ")
	return title
}
