package main

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestUIEndToEnd runs the real binary in a pseudo-terminal against a
// misbehaving server: it types a request in the composer, sends it, and
// reads the screen to see the reply and the finding appear; then it quits
// through the shutdown ladder. Throughout, nothing the server wrote may
// reach the terminal as a control sequence.
func TestUIEndToEnd(t *testing.T) {
	t.Parallel()
	args := append([]string{"--era", "legacy", "--stdin-wait", "5s"}, fakeServerArgs("ui-misbehave")...)
	// The "editor" rewrites the id: ctrl+o must suspend the UI, run it on
	// the draft and bring the edited draft back.
	term := startTerminalEnv(t, 120, 40, []string{"VISUAL=", "EDITOR=sed -i s/41/42/"}, args...)

	// The handshake was made in the background: the status bar names the server.
	term.waitFor("legacy 2025-11-25", "ui-fake 9.9", "result initialize")
	// The hostile stderr line is shown inert.
	term.waitFor("␛[2J␛[H␛]0;PWNED-TITLE␇")

	// Compose a ping by hand.
	term.send("c")
	term.waitFor("Composer")
	term.send("\x18") // ctrl+x: clear the template
	term.send(`{"jsonrpc":"2.0","id":41,"method":"ping"}`)
	term.waitFor(`{"jsonrpc":"2.0","id":41,"method":"ping"}`)
	term.send("\x0f") // ctrl+o: $EDITOR
	term.waitFor(`{"jsonrpc":"2.0","id":42,"method":"ping"}`)
	term.send("\x13") // ctrl+s: send
	s := term.waitFor("→ 42", "result ping", "non-json-line", "REPLY-MARKER")
	if !strings.Contains(s, "✖ 1") {
		t.Errorf("the status bar does not count the error finding:\n%s", s)
	}
	// The stray print is a row of its own, inert.
	term.waitFor("non-json oops ␛]0;PWNED-STDOUT␇␛[2J stray print")

	// y copies the selected frame (the reply) through OSC 52.
	term.send("y")
	term.waitFor("via OSC 52")
	reply := `{"jsonrpc":"2.0","id":42,"result":{"pong":"REPLY-MARKER"}}` + "\n"
	osc52 := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(reply))
	deadline := time.Now().Add(20 * time.Second)
	for {
		term.mu.Lock()
		ok := strings.Contains(term.raw.String(), osc52)
		term.mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("y did not write the frame to the clipboard with OSC 52")
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Quit: the ladder runs (stdin closed is enough for this server), linesman exits.
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}

	term.mu.Lock()
	raw := term.raw.String()
	titles := append([]string(nil), term.titles...)
	term.mu.Unlock()
	for _, bad := range []string{"\x1b]0;PWNED", "\x1b]52;c;UFdO", "\x1b[99999999999", "PWNED-CLIP"} {
		if strings.Contains(raw, bad) {
			t.Errorf("the terminal received %q from the server", bad)
		}
	}
	for _, title := range titles {
		if strings.Contains(title, "PWNED") {
			t.Errorf("the server set the window title: %q", title)
		}
	}
	if !strings.Contains(raw, "PWNED-TITLE") {
		t.Error("the hostile stderr line was never shown at all")
	}
}

// TestUINoColor runs the real binary with NO_COLOR set: the screen carries no
// colour at all (bold, reverse and glyphs still tell focus, selection and
// severity).
func TestUINoColor(t *testing.T) {
	t.Parallel()
	args := append([]string{"--era", "legacy"}, fakeServerArgs("ui-misbehave")...)
	term := startTerminalEnv(t, 100, 30, []string{"NO_COLOR=1"}, args...)
	term.waitFor("ui-fake 9.9", "▶ Frames", "✖ 0")
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
	term.mu.Lock()
	raw := term.raw.String()
	term.mu.Unlock()
	sgrs := sgrRE.FindAllStringSubmatch(raw, -1)
	if len(sgrs) == 0 {
		t.Fatal("no styles at all: reverse video and bold should remain")
	}
	for _, m := range sgrs {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 107) {
				t.Fatalf("NO_COLOR: the output sets a colour: %q", m[0])
			}
		}
	}
}

// TestUIDefaultIsTheDemo runs linesman with no command: it inspects its own
// demo server (os.Executable() demo-server), handshake made.
func TestUIDefaultIsTheDemo(t *testing.T) {
	t.Parallel()
	term := startTerminal(t, 120, 36)
	term.waitFor("linesman-demo", "demo server", "● running")
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// TestUIShowsAFailedHandshake: when the background handshake fails, the
// inspector says so in its events pane (it only went to --log before, and
// the user saw a request-timeout badge at best).
func TestUIShowsAFailedHandshake(t *testing.T) {
	t.Parallel()
	args := append([]string{"--timeout", "300ms"}, fakeServerArgs("qa-deaf")...)
	term := startTerminal(t, 160, 40, args...)
	term.waitFor("handshake failed: initialize: no answer to id")
	term.send("q")
	term.wait()
}

// TestServerHasNoControllingTerminal: the child runs in a session of its
// own, so /dev/tty does not open for it, and nothing it tries can clear
// linesman's screen or set the terminal's title.
func TestServerHasNoControllingTerminal(t *testing.T) {
	t.Parallel()
	args := append([]string{"--no-handshake"}, fakeServerArgs("tty-open")...)
	term := startTerminal(t, 120, 36, args...)
	defer term.close()
	screen := term.waitFor("tty-open-")
	if strings.Contains(screen, "tty-open-ok") || strings.Contains(screen, "HELLO-FROM-TTY") {
		t.Fatalf("the server reached the terminal through /dev/tty:\n%s", screen)
	}
	term.waitFor("tty-open-failed")
	term.mu.Lock()
	titles := slices.Clone(term.titles)
	term.mu.Unlock()
	if slices.Contains(titles, "TTYPWN") {
		t.Fatalf("the server set the window title: %q", titles)
	}
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// BenchmarkUIKeyLatency measures, on the real binary in a pseudo-terminal,
// the time from a key press (? toggles the full help) to the screen showing
// its effect: with an idle server, and while the server writes 50,000 frames
// a second. The flood/idle ratio is the figure behind "a flood must not make
// keys lag" (it includes the terminal emulator's work on the flood's redraws).
func BenchmarkUIKeyLatency(b *testing.B) {
	var idle float64
	for _, server := range []string{"ui-idle", "ui-flood"} {
		b.Run(server, func(b *testing.B) {
			args := append([]string{"--era", "legacy", "--timeout", "2s", "--no-handshake"}, fakeServerArgs(server)...)
			term := startTerminal(b, 120, 40, args...)
			term.poll = time.Millisecond
			if server == "ui-flood" {
				term.waitFor("notifications/message")
			} else {
				term.waitFor("Frames 0")
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				term.send("?")
				term.waitFor("Filter syntax")
				term.send("?")
				term.waitFor("▶ Frames")
			}
			b.StopTimer()
			ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(2*b.N)
			b.ReportMetric(ms, "ms/key")
			if server == "ui-idle" {
				idle = ms
			} else if idle > 0 {
				b.ReportMetric(ms/idle, "flood/idle")
			}
			term.send("q")
			term.send("q")
			term.wait()
		})
	}
}

// TestUIInspectUsageErrors checks the inspector's command line: every
// mistake is a usage error (status 2) that says what to do, and none starts
// a server.
func TestUIInspectUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--theme", "sepia"}, "unknown theme"},
		{[]string{"--demo-unsafe", "--", "cat"}, "--demo-unsafe applies to the built-in demo server only"},
		{[]string{"--era", "medieval"}, "--era"},
		{[]string{"--", "cat"}, "needs a terminal"}, // stdout is a buffer here
	} {
		var stdout, stderr bytes.Buffer
		if got := runArgs(c.args, strings.NewReader(""), &stdout, &stderr); got != exitUsage {
			t.Errorf("linesman %v: status %d, want %d (stderr %q)", c.args, got, exitUsage, stderr.String())
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("linesman %v: stderr %q does not say %q", c.args, stderr.String(), c.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("linesman %v wrote to stdout: %q", c.args, stdout.String())
		}
	}
}
