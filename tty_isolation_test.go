package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

func init() {
	// A server that tries to reach the user's terminal behind linesman's
	// back, through /dev/tty, as ssh, sudo or a stray library might.
	registerFake("tty-open", func() {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tty-open-failed: %v\n", err)
		} else {
			tty.WriteString("\x1b]0;TTYPWN\x07\x1b[2J\x1b[HHELLO-FROM-TTY")
			tty.Close()
			fmt.Fprintln(os.Stderr, "tty-open-ok")
		}
		io.Copy(io.Discard, os.Stdin)
	})
}

// TestServerHasNoControllingTerminal: the child runs in a session of its
// own, so /dev/tty does not open for it, and nothing it tries can clear
// linesman's screen or set the terminal's title.
func TestServerHasNoControllingTerminal(t *testing.T) {
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
