package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"linesman/capture"
	"linesman/session/eventlog"
)

// tapEnding runs the tap over the fake server name, waits for its "ready"
// line on stderr, lets end end the session the way a host would (close
// stdin, send a signal), and returns the capture the tap recorded.
func tapEnding(t *testing.T, name, ready string, end func(cmd *exec.Cmd, stdin interface{ Close() error })) (*capture.Capture, string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(linesmanBinary(t), "tap", "--dir", dir, "--", testBinary, "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER="+name)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitText(t, stderr, ready)
	end(cmd, stdin)
	waitEnded(t, cmd, "the tap did not end")
	c := tapCapture(t, dir)
	taps, _ := capture.ListTaps(dir)
	tapFiles[c] = taps[0].Path
	var tr bytes.Buffer
	if err := capture.WriteTranscript(&tr, c.Log, c.Header); err != nil {
		t.Fatal(err)
	}
	return c, tr.String()
}

// waitEnded waits for cmd to end, killing it and failing with why after a
// minute (a hang, never a time bound of the test's).
func waitEnded(t *testing.T, cmd *exec.Cmd, why string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal(why)
	}
}

// tapFiles remembers the file each capture of tapEnding was read from.
var tapFiles = map[*capture.Capture]string{}

// loggedCodes lists the finding codes of a capture's log: on frames and
// logged on their own.
func loggedCodes(c *capture.Capture) []string {
	var codes []string
	first, next := c.Log.Bounds()
	for _, ev := range c.Log.Range(first, next) {
		for _, f := range c.Tracker.FindingsOf(&ev) {
			codes = append(codes, f.Code)
		}
		if ev.Type == eventlog.EventFinding {
			codes = append(codes, ev.Finding.Code)
		}
	}
	return codes
}

// tapReport is check --from's JSON process block and text report of a
// tap's capture.
func tapReport(t *testing.T, c *capture.Capture) (proc map[string]any, text string) {
	t.Helper()
	file := tapFiles[c]
	_, out, _ := runBinary(t, nil, "check", "--json", "--from", file)
	var doc struct {
		Process map[string]any `json:"process"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("check --json --from: %v\n%s", err, out)
	}
	_, txt, _ := runBinary(t, nil, "check", "--from", file)
	return doc.Process, string(txt)
}

// TestTapHostClosesStdinCleanExit: a host that opens the tap and closes
// stdin without writing a byte (the spec's shutdown) sees the server exit
// 0; the tap records the host's EOF, so the exit is the end of the
// server's input, not exit-at-start, and every view says the host closed it.
func TestTapHostClosesStdinCleanExit(t *testing.T) {
	t.Parallel()
	c, transcript := tapEnding(t, "signal-default", "signal-default: ready", func(_ *exec.Cmd, stdin interface{ Close() error }) {
		stdin.Close()
	})
	for _, code := range loggedCodes(c) {
		if code == "exit-at-start" {
			t.Errorf("finding %s for a server that exited when its host closed stdin", code)
		}
	}
	p := c.Tracker.Process()
	if !p.Exited() || p.ExitCode != 0 || !p.AfterEOF || !p.ByHost {
		t.Errorf("process %+v; want exited 0, after EOF, by the host", p)
	}
	const words = "after its stdin was closed (by the host)"
	if !strings.Contains(transcript, words) {
		t.Errorf("transcript does not say %q:\n%s", words, transcript)
	}
	proc, text := tapReport(t, c)
	if proc["afterEOF"] != true || proc["endedByHost"] != true {
		t.Errorf("process block %v; want afterEOF and endedByHost", proc)
	}
	if !strings.Contains(text, "exited with code 0, "+words) || strings.Contains(text, "on its own") {
		t.Errorf("text report does not say %q:\n%s", words, text)
	}
}

// TestTapHostSIGTERMEndsServer: the host's SIGTERM, passed on to the
// server, is the host's step: the exit says the host ended it, and is no
// finding against the server.
func TestTapHostSIGTERMEndsServer(t *testing.T) {
	t.Parallel()
	c, transcript := tapEnding(t, "tap-signal", "tap-signal: ready", func(cmd *exec.Cmd, _ interface{ Close() error }) {
		cmd.Process.Signal(syscall.SIGTERM)
	})
	for _, code := range loggedCodes(c) {
		if code == "exit-at-start" {
			t.Errorf("finding %s for a server its host sent SIGTERM", code)
		}
	}
	p := c.Tracker.Process()
	if !p.Exited() || p.ExitCode != 7 || p.Step != eventlog.StepSIGTERM || !p.ByHost {
		t.Errorf("process %+v; want exited 7 after the host's SIGTERM", p)
	}
	const words = "ended by the host's SIGTERM"
	if !strings.Contains(transcript, words) {
		t.Errorf("transcript does not say %q:\n%s", words, transcript)
	}
	proc, text := tapReport(t, c)
	if proc["endedBy"] != "sigterm" || proc["endedByHost"] != true {
		t.Errorf("process block %v; want endedBy sigterm, endedByHost", proc)
	}
	if !strings.Contains(text, "exited with code 7, "+words) {
		t.Errorf("text report does not say %q:\n%s", words, text)
	}
}
