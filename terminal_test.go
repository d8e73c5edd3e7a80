package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// A pseudo-terminal harness: the real linesman binary in a pty, its screen
// read through a terminal emulator.

// terminal is the linesman binary running in a pseudo-terminal, its output
// fed to a terminal emulator whose screen the test reads.
type terminal struct {
	t    testing.TB
	cmd  *exec.Cmd
	ptmx *os.File
	em   *vt.SafeEmulator
	// emMu guards the emulator's screen: SafeEmulator does not guard String.
	emMu sync.Mutex

	mu     sync.Mutex
	raw    bytes.Buffer // every byte linesman wrote
	titles []string     // window titles the emulator was told to set

	readDone chan struct{}
	copyDone chan struct{}
	poll     time.Duration // how often waitFor reads the screen (0 = 20 ms)
}

func startTerminal(t testing.TB, w, h int, args ...string) *terminal {
	return startTerminalEnv(t, w, h, nil, args...)
}

func startTerminalEnv(t testing.TB, w, h int, env []string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(linesmanBinary(t), args...)
	cmd.Env = append(append(os.Environ(), "TERM=xterm-256color", "COLORTERM=truecolor"), env...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, cmd: cmd, ptmx: ptmx, em: vt.NewSafeEmulator(w, h), readDone: make(chan struct{})}
	term.em.SetCallbacks(vt.Callbacks{Title: func(s string) {
		term.mu.Lock()
		term.titles = append(term.titles, s)
		term.mu.Unlock()
	}})
	// linesman's output -> the emulator (and a copy of the raw bytes).
	go func() {
		defer close(term.readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				term.mu.Lock()
				term.raw.Write(buf[:n])
				term.mu.Unlock()
				term.emMu.Lock()
				term.em.Write(buf[:n])
				term.emMu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	// The emulator's answers to linesman's queries (background colour,
	// device attributes) -> linesman's input.
	term.copyDone = make(chan struct{})
	go func() {
		defer close(term.copyDone)
		io.Copy(ptmx, term.em)
	}()
	t.Cleanup(term.close)
	return term
}

func (term *terminal) screen() string {
	term.emMu.Lock()
	defer term.emMu.Unlock()
	return term.em.String()
}

// waitFor polls the screen until it contains every string, or fails after
// a generous deadline (the deadline is a guard, not a measurement).
func (term *terminal) waitFor(what ...string) string {
	term.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := term.screen()
		missing := ""
		for _, w := range what {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return s
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("the screen never showed %q; it shows:\n%s", missing, s)
		}
		if term.poll > 0 {
			time.Sleep(term.poll)
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func (term *terminal) send(s string) {
	term.t.Helper()
	if _, err := term.ptmx.WriteString(s); err != nil {
		term.t.Fatal(err)
	}
}

// close quits linesman if it still runs, and waits for it and the readers.
func (term *terminal) close() {
	if term.cmd.ProcessState == nil {
		term.cmd.Process.Kill()
		term.cmd.Wait()
	}
	term.ptmx.Close()
	<-term.readDone
	// End the answer copier by closing the emulator's input pipe directly:
	// Emulator.Close races with a Read in progress (it flips an unguarded flag).
	if pw, ok := term.em.InputPipe().(*io.PipeWriter); ok {
		pw.CloseWithError(io.EOF)
	}
	<-term.copyDone
}

// wait waits for linesman to exit on its own, bounded.
func (term *terminal) wait() error {
	term.t.Helper()
	done := make(chan error, 1)
	go func() { done <- term.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		term.cmd.Process.Kill()
		<-done
		term.t.Fatal("linesman did not exit after quit")
		return nil
	}
}

// sgrRE matches SGR sequences (styles and colours).
var sgrRE = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

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
