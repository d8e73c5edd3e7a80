package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/wire"
)

// TestViewFollow runs `linesman view --follow --text` on a capture that a
// recorder in this test is still writing: the reader prints every event, in
// order, while the writer goes on (the writer waits to see some of them
// printed before appending more, so following is really live), and ends
// cleanly on SIGINT.
func TestViewFollow(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	path := filepath.Join(t.TempDir(), "live.jsonl")
	log := eventlog.NewLog(0)
	tr := eventlog.NewTracker(eventlog.TrackerOptions{})
	rec, err := capture.Create(path, log, capture.Header{Command: []string{"srv"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()

	cmd := exec.Command(bin, "view", "--follow", "--text", "--poll", "2ms", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	rows := make(chan string, 1024)
	go func() {
		defer close(rows)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			rows <- sc.Text()
		}
	}()

	marker := regexp.MustCompile(`(?:#(\d+) |note note-(\d+)$)`)
	seen := 0 // Seq of the last event the reader printed
	waitFor := func(seq int) {
		t.Helper()
		deadline := time.After(time.Minute)
		for seen < seq {
			select {
			case row, ok := <-rows:
				if !ok {
					t.Fatalf("view ended before printing event %d", seq)
				}
				m := marker.FindStringSubmatch(row)
				if m == nil {
					continue
				}
				n, _ := strconv.Atoi(m[1] + m[2])
				if n != seen+1 {
					t.Fatalf("printed event %d after %d: %q", n, seen, row)
				}
				seen = n
			case <-deadline:
				t.Fatalf("event %d not printed after a minute (last %d)", seq, seen)
			}
		}
	}
	const n = 400
	for i := 1; i <= n; i++ {
		if i%2 == 1 {
			raw := fmt.Appendf(nil, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"i\":%d,\"pad\":%q}}\n", i, strings.Repeat("z", i*97%5000))
			for _, f := range wire.FramesOf(raw, wire.Options{}) {
				log.AppendWith(func(seq uint64, at time.Duration) eventlog.Event {
					tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: seq, Dir: wire.ServerToClient, Frame: f, At: at})
					return eventlog.Event{Type: eventlog.EventFrame, Dir: wire.ServerToClient, Frame: f}
				})
			}
		} else {
			log.Append(eventlog.Event{Type: eventlog.EventNote, Note: fmt.Sprintf("note-%d", i)})
		}
		if i%100 == 0 {
			waitFor(i)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for range rows {
	}
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
		t.Errorf("view --follow after SIGINT: %v; want status 130, as tail -f", err)
	}
}

// TestViewFollowWaitsForTheFile: `view --follow F` started before the
// linesman that records F waits for it to appear (it failed at once with
// "no such file"), then follows it.
func TestViewFollowWaitsForTheFile(t *testing.T) {
	t.Parallel()
	capFile := filepath.Join(t.TempDir(), "later.jsonl")
	view := exec.Command(linesmanBinary(t), "view", "--follow", "--text", "--poll", "20ms", capFile)
	var out lockedBuffer
	view.Stdout = &out
	errPipe, err := view.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := view.Start(); err != nil {
		t.Fatal(err)
	}
	defer view.Process.Kill()
	// Wait until it says it waits: only then create the file.
	said := make(chan string, 1)
	go func() {
		b := make([]byte, 512)
		n, _ := errPipe.Read(b)
		said <- string(b[:n])
		io.Copy(io.Discard, errPipe)
	}()
	select {
	case s := <-said:
		if !strings.Contains(s, "waiting for") {
			t.Fatalf("view --follow of a missing file: %q", s)
		}
	case <-time.After(hangGuard):
		t.Fatal("view --follow neither waited nor failed")
	}
	if status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", capFile}, fakeServerArgs("headless-good")...)...); status != 0 {
		t.Fatalf("check --capture: status %d\n%s", status, errOut)
	}
	// The follower prints the session; then an interrupt ends it (130).
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(out.String(), "exited") {
		if time.Now().After(deadline) {
			t.Fatal("the follower never printed the session")
		}
		time.Sleep(20 * time.Millisecond)
	}
	view.Process.Signal(os.Interrupt)
	if err := view.Wait(); view.ProcessState.ExitCode() != 130 {
		t.Errorf("view --follow after ^C: %v; want status 130, as tail -f", err)
	}
}

// TestUIViewExport records the demo server with check --capture, opens the
// capture with `linesman view` in a pseudo-terminal, and exports it with X
// (format key, file name typed over the offered one, enter): each file is
// byte for byte what `linesman export FILE --format F` writes.
func TestUIViewExport(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.jsonl")
	if out, err := exec.Command(bin, "check", "--json", "--capture", path, "--", bin, "demo-server").CombinedOutput(); err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	term := startTerminal(t, 160, 40, "view", path)
	term.waitFor("capture demo.jsonl")
	for _, c := range []struct{ key, format, what string }{
		{"r", "replay", "client frames as a replay script"},
		{"f", "findings", "wrote the findings report"},
		{"t", "transcript", "events as a transcript"},
	} {
		out := filepath.Join(dir, "ui-"+c.format)
		term.send("X")
		term.waitFor("export as:")
		term.send(c.key)
		term.waitFor("export "+c.format+" to: ", "the path is editable")
		term.send("\x15" + out + "\r") // ctrl+u clears the offered name
		term.waitFor(c.what)
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exec.Command(bin, "export", path, "--format", c.format).Output()
		if err != nil {
			t.Fatalf("export --format %s: %v", c.format, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the UI's export differs from linesman export:\n--- ui ---\n%s\n--- export ---\n%s", c.format, got, want)
		}
	}
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("view: %v", err)
	}
}

// craftedViewText is what a crafted capture puts in a finding's code and a
// process record's signal: OSC 2 (the pane's title), OSC 52 (the
// clipboard), APC, DCS (DECUDK), the 8-bit CSI and the bidi override.
const craftedViewText = "\x1b]2;PWNED-TITLE\x07\x1b]52;c;UFdORUQ=\x1b\\\x1b_apc\x1b\\\x1bP0|23/706f776e\x1b\\\u009b2J\u202eevil"

// writeCraftedCapture writes, in a temp dir, a capture whose finding code
// and process signal hold craftedViewText.
func writeCraftedCapture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "crafted.jsonl")
	log := eventlog.NewLog(0)
	rec, err := capture.Create(path, log, capture.Header{Command: []string{"srv"}})
	if err != nil {
		t.Fatal(err)
	}
	log.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 42}})
	log.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{Finding: wire.Finding{Code: craftedViewText, Severity: wire.SeverityError, Message: "crafted"}}})
	log.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 42, ExitCode: -1, Signal: craftedViewText}})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestViewTranscriptOfACraftedCaptureIsInert: view --text, and view with a
// stdout that is not a terminal, print a crafted capture's finding code
// and process signal inert, as export does: no ESC, no C1, no bidi control.
func TestViewTranscriptOfACraftedCaptureIsInert(t *testing.T) {
	t.Parallel()
	path := writeCraftedCapture(t)
	for _, args := range [][]string{{"view", "--text", path}, {"view", path}} {
		var out, errb bytes.Buffer
		if status := runArgs(args, nil, &out, &errb); status != exitOK {
			t.Fatalf("%v: status %d\n%s", args, status, errb.Bytes())
		}
		if !strings.Contains(out.String(), "evil") || !strings.Contains(out.String(), "crafted") {
			t.Fatalf("%v: the crafted fields are not printed at all:\n%s", args, out.Bytes())
		}
		if err := terminalSafe(out.Bytes()); err != nil {
			t.Errorf("%v: %v\n%q", args, err, out.Bytes())
		}
	}
}

// TestViewFollowOfACraftedCaptureIsInert: view --follow, piped, prints the
// crafted capture's code and signal inert too, until interrupted.
func TestViewFollowOfACraftedCaptureIsInert(t *testing.T) {
	t.Parallel()
	path := writeCraftedCapture(t)
	cmd := exec.Command(linesmanBinary(t), "view", "--follow", "--poll", "2ms", path)
	var out lockedBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if !pollUntil(time.Minute, func() bool { return strings.Contains(out.String(), "exited by") }) {
		t.Fatalf("view --follow never printed the exit:\n%q", out.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if err := terminalSafe([]byte(out.String())); err != nil {
		t.Errorf("view --follow: %v\n%q", err, out.String())
	}
}
