package main

// QA: flags may follow the positional arguments, as the usage lines of
// export ("export FILE --format F") already allow.

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFlagsAfterPositionals: "explain CODE --json" and "view FILE --text"
// work like their flags-first forms (they used to take --json for a code
// and refuse the file); "--" still ends the flags.
func TestFlagsAfterPositionals(t *testing.T) {
	status, out, errOut := runBinary(t, nil, "explain", "non-json-line", "--json")
	var infos []map[string]any
	if status != 0 || json.Unmarshal(out, &infos) != nil || len(infos) != 1 || infos[0]["code"] != "non-json-line" {
		t.Errorf("explain CODE --json: status %d\n%s\n%s", status, out, errOut)
	}
	if status, _, errOut := runBinary(t, nil, "explain", "--", "--json"); status != exitUsage || !strings.Contains(string(errOut), `unknown finding code "--json"`) {
		t.Errorf("explain -- --json: status %d, %s", status, errOut)
	}

	capFile := filepath.Join(t.TempDir(), "run.jsonl")
	if status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", capFile}, fakeServerArgs("headless-good")...)...); status != 0 {
		t.Fatalf("check --capture: status %d\n%s", status, errOut)
	}
	if _, err := os.Stat(capFile); err != nil {
		t.Fatal(err)
	}
	status, out, errOut = runBinary(t, nil, "view", capFile, "--text")
	if status != 0 || !strings.HasPrefix(string(out), "# linesman session:") {
		t.Errorf("view FILE --text: status %d\n%.300s\n%s", status, out, errOut)
	}
}

// TestLadderWaitsMustBePositive: --stdin-wait 0 or a negative wait is a
// usage error, not a silent 2s (the session's default for zero).
func TestLadderWaitsMustBePositive(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--sigterm-wait", "0", "--", "true"},
		{"send", "--stdin-wait", "-1s", "--", "true"},
		{"--stdin-wait", "0s", "--", "true"},
	} {
		status, _, errOut := runBinary(t, nil, args...)
		if status != exitUsage || !strings.Contains(string(errOut), "want a positive duration") {
			t.Errorf("linesman %s: status %d, stderr %q", strings.Join(args, " "), status, errOut)
		}
	}
}

// TestCaptureDoesNotClobberOtherFiles: --capture over a file that is not a
// capture is refused before any server starts (it used to be truncated);
// an older capture is overwritten as before.
func TestCaptureDoesNotClobberOtherFiles(t *testing.T) {
	dir := t.TempDir()
	precious := filepath.Join(dir, "server.py")
	if err := os.WriteFile(precious, []byte("print('my server')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", precious}, fakeServerArgs("headless-good")...)...)
	if b, _ := os.ReadFile(precious); status != exitUsage || string(b) != "print('my server')\n" || !strings.Contains(string(errOut), "not a linesman capture") {
		t.Errorf("status %d, file now %q, stderr %q", status, b, errOut)
	}
	old := filepath.Join(dir, "old.jsonl")
	for i := range 2 { // the second run overwrites the first capture
		if status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", old}, fakeServerArgs("headless-good")...)...); status != 0 {
			t.Fatalf("run %d over a capture: status %d, %s", i, status, errOut)
		}
	}
}

// TestHelpStatesEveryExitStatus: check and send --help list the statuses
// they can exit with, 130 for an interrupt included.
func TestHelpStatesEveryExitStatus(t *testing.T) {
	for _, mode := range []string{"check", "send"} {
		_, out, errOut := runBinary(t, nil, mode, "--help")
		help := string(out) + string(errOut)
		for _, want := range []string{"0 no finding", "2 usage error", "130 interrupted"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s --help lacks %q", mode, want)
			}
		}
	}
}

// TestDevNullIsNotATerminal: /dev/null is a character device but no
// terminal. `view F > /dev/null` used to start the inspector (and fail: no
// TTY), and `send < /dev/null` printed the hint meant for a person typing.
func TestDevNullIsNotATerminal(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	defer devNull.Close()
	capFile := filepath.Join(t.TempDir(), "run.jsonl")
	if status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", capFile}, fakeServerArgs("headless-good")...)...); status != 0 {
		t.Fatalf("check --capture: status %d\n%s", status, errOut)
	}

	view := exec.Command(linesmanBinary(t), "view", capFile)
	view.Stdout = devNull
	var errb strings.Builder
	view.Stderr = &errb
	if err := view.Run(); err != nil {
		t.Errorf("view > /dev/null: %v\n%s", err, errb.String())
	}

	send := exec.Command(linesmanBinary(t), append([]string{"send", "--json"}, fakeServerArgs("headless-good")...)...)
	send.Stdin = devNull
	var out, errs strings.Builder
	send.Stdout, send.Stderr = &out, &errs
	if err := send.Run(); err != nil || strings.Contains(errs.String(), "ctrl+d") {
		t.Errorf("send < /dev/null: %v, stderr %q", err, errs.String())
	}
}

// TestViewFollowWaitsForTheFile: `view --follow F` started before the
// linesman that records F waits for it to appear (it failed at once with
// "no such file"), then follows it.
func TestViewFollowWaitsForTheFile(t *testing.T) {
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
	// The follower prints the session; then an interrupt ends it cleanly.
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(out.String(), "exited") {
		if time.Now().After(deadline) {
			t.Fatal("the follower never printed the session")
		}
		time.Sleep(20 * time.Millisecond)
	}
	view.Process.Signal(os.Interrupt)
	if err := view.Wait(); err != nil {
		t.Errorf("view --follow after ^C: %v", err)
	}
}

// lockedBuffer is a bytes.Buffer that a child's output can be copied into
// while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestDemoServerHelpOnStdout: demo-server --help goes to stdout like every
// other mode's help (`linesman demo-server --help | less` showed nothing).
func TestDemoServerHelpOnStdout(t *testing.T) {
	status, out, _ := runBinary(t, nil, "demo-server", "--help")
	if status != 0 || !strings.Contains(string(out), "linesman demo-server") || !strings.Contains(string(out), "-isolate") {
		t.Errorf("status %d, stdout %q", status, out)
	}
}
