package main

import (
	"strings"
	"testing"
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
	// The reply is selected (follow mode); its pretty JSON starts with the
	// first tool.
	term.waitFor("← 90", "result tools/list", `"name": "echo"`)

	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// TestDemoUnsafeShowsTheStrayPrint follows the README's tour in the
// unisolated demo: print_debug's stray line is a frame of its own, flagged
// non-json-line, and counted as an error in the status bar.
func TestDemoUnsafeShowsTheStrayPrint(t *testing.T) {
	term := startTerminal(t, 140, 45, "--demo-unsafe")
	term.waitFor("modern 2026-07-28", "linesman-demo 0.1.0")
	term.send("c")
	term.waitFor("Composer")
	term.send("\x18")
	term.send(`{"jsonrpc":"2.0","id":91,"method":"tools/call","params":{"name":"print_debug"}}`)
	term.waitFor(`"print_debug"}`)
	term.send("\x13")
	s := term.waitFor("non-json-line", "← 91")
	if !strings.Contains(s, "✖ 1") {
		t.Errorf("the status bar does not count the stray print as an error:\n%s", s)
	}
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}
