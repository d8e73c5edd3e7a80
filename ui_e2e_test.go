package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// hostileStderr is what the ui-misbehave server writes to stderr at start:
// clear screen, cursor home, an OSC 0 title, an OSC 52 clipboard write and a
// CSI with huge parameters.
const hostileStderr = "\x1b[2J\x1b[H\x1b]0;PWNED-TITLE\x07\x1b]52;c;UFdORUQtQ0xJUA==\x07\x1b[99999999999;99999999999HESC-MARKER\n"

func init() {
	// ui-misbehave: a legacy-era server that refuses server/discover,
	// answers ping after a stray print on stdout (with escape sequences in
	// it), and writes escape sequences to stderr.
	registerFake("ui-misbehave", func() {
		os.Stderr.WriteString(hostileStderr)
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 1<<20), 1<<20)
		for in.Scan() {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
				continue
			}
			switch req.Method {
			case "initialize":
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"ui-fake","version":"9.9"}}}`+"\n", req.ID)
			case "ping":
				fmt.Print("oops \x1b]0;PWNED-STDOUT\x07\x1b[2J stray print\n")
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"pong":"REPLY-MARKER"}}`+"\n", req.ID)
			default:
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`+"\n", req.ID)
			}
		}
	})
}

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

// TestUIEndToEnd runs the real binary in a pseudo-terminal against a
// misbehaving server: it types a request in the composer, sends it, and
// reads the screen to see the reply and the finding appear; then it quits
// through the shutdown ladder. Throughout, nothing the server wrote may
// reach the terminal as a control sequence.
func TestUIEndToEnd(t *testing.T) {
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
	term.waitFor("copied frame")
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

// sgrRE matches SGR sequences (styles and colours).
var sgrRE = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// TestUINoColor runs the real binary with NO_COLOR set: the screen carries no
// colour at all (bold, reverse and glyphs still tell focus, selection and
// severity).
func TestUINoColor(t *testing.T) {
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
	term := startTerminal(t, 120, 36)
	term.waitFor("linesman-demo", "demo server", "● running")
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("linesman exited with %v", err)
	}
}

// TestUIInterruptRunsTheLadder sends SIGINT to linesman: it still shuts the
// server down through the ladder and exits with status 130.
func TestUIInterruptRunsTheLadder(t *testing.T) {
	args := append([]string{"--era", "legacy", "--log", filepath.Join(t.TempDir(), "diag.log")}, fakeServerArgs("ui-misbehave")...)
	term := startTerminal(t, 100, 30, args...)
	term.waitFor("ui-fake 9.9")
	term.cmd.Process.Signal(syscall.SIGINT)
	err := term.wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitSignal {
		t.Fatalf("linesman exited with %v, want status %d", err, exitSignal)
	}
	log, _ := os.ReadFile(args[3])
	if !strings.Contains(string(log), "ended by stdin-close") {
		t.Fatalf("the server was not shut down by the ladder; diagnostics:\n%s", log)
	}
}
