package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"linesman/wire"
)

// TestDemoCheckIsClean: `linesman check -- linesman demo-server` exits 0 with
// no finding, in either era.
func TestDemoCheckIsClean(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	for _, era := range []string{"auto", "legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			r, code, out := runLinesmanJSON(t, "", "check", "--json", "--era", era, "--", bin, "demo-server")
			if code != 0 || len(r.Findings) != 0 {
				t.Errorf("check exit %d, findings %v; want 0 and none\n%s", code, r.codes(), out)
			}
			want := map[string]string{"auto": "modern", "legacy": "legacy", "modern": "modern"}[era]
			if r.Era != want {
				t.Errorf("era = %q, want %q", r.Era, want)
			}
		})
	}
}

// TestDemoToolsTeachTheirFinding calls each tool through `linesman send` and
// checks it produces exactly the finding it teaches, no more.
func TestDemoToolsTeachTheirFinding(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	for _, tc := range []struct {
		name  string
		flags []string // linesman send flags
		demo  []string // demo-server flags
		tool  string
		args  string
		// frames, when set, is sent instead of one tools/call of tool
		frames string
		want   []string
		check  func(t *testing.T, r demoReport)
	}{
		{name: "echo", tool: "echo"},
		{name: "print_debug isolated", tool: "print_debug", check: stderrHas("DEBUG: print_debug was called")},
		{name: "print_debug unisolated", tool: "print_debug", demo: []string{"--isolate=false"}, want: []string{"non-json-line"}},
		{name: "noisy_child isolated", tool: "noisy_child", check: stderrHas("noisy_child: hello from child process")},
		{name: "noisy_child unisolated", tool: "noisy_child", demo: []string{"--isolate=false"}, want: []string{"non-json-line"}},
		{name: "pretty_reply", tool: "pretty_reply", want: []string{"multi-line-frame"}},
		{name: "slow_count", tool: "slow_count", args: `{"seconds":1}`},
		// Cancelled, it stops and sends nothing more: no late answer, and
		// the server exits as soon as its stdin closes instead of counting
		// for an hour (which would take SIGTERM: ignored-stdin-eof).
		// The _meta written by hand is sent as written (send does not
		// complete it), so it carries what 2026-07-28 requires of every request.
		{name: "slow_count cancelled", frames: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_count","arguments":{"seconds":3600},"_meta":{"progressToken":"t7","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"enough"}}` + "\n",
			check: func(t *testing.T, r demoReport) {
				if r.Process.EndedBy == nil || *r.Process.EndedBy != "stdin-close" {
					t.Errorf("process ended by %v, want stdin-close", r.Process.EndedBy)
				}
				stderrHas("slow_count (id 7) cancelled")(t, r)
			}},
		{name: "crash", tool: "crash", want: []string{"exited-during-request"}, check: func(t *testing.T, r demoReport) {
			if r.Process.ExitCode == nil || *r.Process.ExitCode != 3 {
				t.Errorf("exit code = %v, want 3", r.Process.ExitCode)
			}
			stderrHas("panic: crash tool called")(t, r)
		}},
		{name: "stderr_flood", tool: "stderr_flood", args: `{"mib":2}`},
		{name: "big_reply", tool: "big_reply", args: `{"mib":2}`, flags: []string{"--max-frame", "1048576"}, want: []string{"oversize-frame"}},
		{name: "big_reply under max-frame", tool: "big_reply", args: `{"mib":2}`},
		{name: "reuse_id", tool: "reuse_id", flags: []string{"--era", "legacy"}, want: []string{"reused-id"}},
		// In the 2026-07-28 era sending requests at all is the bigger fault.
		{name: "reuse_id modern", tool: "reuse_id", want: []string{"reused-id", "server-request-in-modern-era"}},
		// A client cannot tell a block-buffered reply from a missing one
		// until stdin closes: the request times out first, then the reply
		// comes out in the flush and is recognised as unflushed output.
		{name: "unflushed", tool: "unflushed", flags: []string{"--timeout", "2s"}, want: []string{"request-timeout", "unflushed-output"}},
		{name: "ignore_eof", tool: "ignore_eof", want: []string{"ignored-stdin-eof"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args == "" {
				args = "{}"
			}
			frame := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"` + tc.tool + `","arguments":` + args + `}}` + "\n"
			if tc.frames != "" {
				frame = tc.frames
			}
			cmdline := append([]string{"send", "--json"}, tc.flags...)
			cmdline = append(append(cmdline, "--", bin, "demo-server"), tc.demo...)
			r, _, out := runLinesmanJSON(t, frame, cmdline...)
			got := r.codes()
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("findings %v, want exactly %v\n%s", got, want, out)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// TestDemoDefaultInspectsTheDemoServer: `linesman` with no arguments opens
// the inspector on the built-in demo server: the era probe's handshake
// completes (modern era, the demo's serverInfo in the status bar), and a
// tools/list typed in the composer lists the demo's tools.
func TestDemoDefaultInspectsTheDemoServer(t *testing.T) {
	t.Parallel()
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
	term.waitFor("Composer [complete] tools/call echo")
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

// TestReadmeTour walks the README's five-minute tour with the keys it
// names: t, a few letters and enter open echo's form, ctrl+s calls it; t,
// pretty and ctrl+s call pretty_reply, an 18-line result flagged
// multi-line-frame and counted in the status bar; n opens its Findings tab,
// [ its Raw tab; q quits with status 0.
func TestReadmeTour(t *testing.T) {
	t.Parallel()
	term := startTerminal(t, 120, 40)
	term.waitFor("modern 2026-07-28", "linesman-demo 0.1.0", "result tools/list")

	term.send("t")
	term.waitFor("Pick tools")
	term.send("ech")
	term.waitFor("filter ▸ ech", "tool     echo")
	term.send("\r")
	term.waitFor("tools/call echo Echo")
	term.send("hello from the tour")
	term.waitFor("hello from the tour")
	term.send("\x13") // ctrl+s
	term.waitFor("tools/call echo", "result tools/call", "text   hello from the tour")

	term.send("t")
	term.waitFor("Pick tools")
	term.send("pretty")
	term.waitFor("tool     pretty_reply")
	term.send("\x13")
	s := term.waitFor("result tools/call [18 lines]", "✖multi-line-frame")
	if !strings.Contains(s, "✖ 1") {
		t.Errorf("the status bar does not count the multi-line frame as an error:\n%s", s)
	}
	info, _ := wire.Lookup("multi-line-frame")
	term.send("n")
	term.waitFor("[Findings(1)]", info.Title)
	term.send("[")
	term.waitFor("[Raw]", `L2   "jsonrpc": "2.0",⏎`)

	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// TestDemoTourUnsafe walks docs/demo.md's guided tour in the unisolated demo
// with the keys it names: the composer's first template lists the tools;
// ctrl+t steps to the print_debug template; its stray line is a frame of its
// own flagged non-json-line and counted in the status bar; n selects it with
// its Findings tab (the registry's explanation), and [ shows its raw bytes.
func TestDemoTourUnsafe(t *testing.T) {
	t.Parallel()
	term := startTerminal(t, 140, 45, "--demo-unsafe")
	term.waitFor("modern 2026-07-28", "linesman-demo 0.1.0", "(unisolated)")

	term.send("c")
	term.waitFor("Composer [complete] tools/list")
	term.send("\x13") // ctrl+s
	term.waitFor("result tools/list")

	term.send("c")
	term.waitFor("Composer")
	for range 2 {
		term.send("\x14") // ctrl+t: next template
	}
	term.waitFor("Composer [complete] tools/call print_debug")
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
	t.Parallel()
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

// TestDemoServerHelpOnStdout: demo-server --help goes to stdout like every
// other mode's help (`linesman demo-server --help | less` showed nothing).
func TestDemoServerHelpOnStdout(t *testing.T) {
	t.Parallel()
	status, out, _ := runBinary(t, nil, "demo-server", "--help")
	if status != 0 || !strings.Contains(string(out), "linesman demo-server") || !strings.Contains(string(out), "-isolate") {
		t.Errorf("status %d, stdout %q", status, out)
	}
}
