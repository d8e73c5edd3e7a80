package main

import (
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveSilentList never answers tools/list.
func serveSilentList() {
	s := newFake("silent-list")
	s.on = func(s *fakeMCP, m fakeMsg) bool { return m.Method == "tools/list" }
	s.serve()
}

// A unit-less duration says which unit to add; a duration prints as given:
// check waits a margin past --timeout before it gives up on a call, and
// used to say "within 2s" for --timeout 1s.
func TestDurationsAsGiven(t *testing.T) {
	t.Parallel()
	status, _, errOut := runBinary(t, nil, append([]string{"check", "--timeout", "5"}, fakeServerArgs("headless-good")...)...)
	if status != 2 || !strings.Contains(string(errOut), "add a unit: 5s") {
		t.Errorf("--timeout 5: status %d, stderr %q; want 2 and the hint", status, errOut)
	}
	r, status := checkJSON(t, "headless-silent-list", "--timeout", "1s")
	if status != 1 || !strings.Contains(r.Error, "within 1s") || strings.Contains(r.Error, "within 2s") {
		t.Errorf("--timeout 1s: status %d, error %q; want it to say within 1s", status, r.Error)
	}
}

// serveStdoutClosed answers initialize, then closes its stdout and keeps
// reading stdin until EOF (the process runs on).
func serveStdoutClosed() {
	s := newFake("stdout-closed")
	s.afterInit = func(*fakeMCP) { os.Stdout.Close() }
	s.serve()
}

// A server that closes its stdout and keeps running is named for what it
// did (stdout-closed, "pid still running"), at once: not request-timeout
// after the whole --timeout with advice to flush.
func TestServerClosingItsStdoutIsNamed(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-stdout-closed", "--timeout", "1h")
	if status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	fs := r.findings(t, "stdout-closed")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "closed its stdout") || !strings.Contains(fs[0].Message, "still running") {
		t.Errorf("stdout-closed findings %+v (codes %v)", fs, r.codes())
	}
	if codes := r.codes(); slices.Contains(codes, "request-timeout") || slices.Contains(codes, "unflushed-output") {
		t.Errorf("codes %v: the cause is the closed stdout, not a timeout", codes)
	}
}

// serveDeepInit answers initialize at once with a result nested 100,000
// deep, past the scanner's limit.
func serveDeepInit() {
	s := newFake("deep-init")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method != "initialize" {
			return false
		}
		s.writeLine([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` +
			strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`))
		return true
	}
	s.serve()
}

// An answer to initialize nested deeper than the scanner reads fails the
// handshake when it comes, saying so ("nested deeper than 10000 levels"):
// it used to wait out the whole --timeout and say "no answer to id 2".
func TestDeepInitializeReplyIsNamedAtOnce(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-deep-init", "--era", "legacy", "--timeout", "1h")
	if status != 1 || !strings.Contains(r.Error, "initialize") || !strings.Contains(r.Error, "nested deeper than 10000 levels") {
		t.Errorf("status %d, error %q; want 1 and the depth named", status, r.Error)
	}
}

// serveSelfStop stops itself (SIGSTOP) when its stdin reaches EOF. It
// does not return after the kill: the stop is the whole process's, taken
// when one of its threads takes the signal, and the thread that sent it
// could otherwise reach the exit first (1 run in 10 exited 0 at its EOF).
func serveSelfStop() {
	s := newFake("self-stop")
	s.atEOF = func(*fakeMCP) {
		syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		for {
			time.Sleep(time.Hour)
		}
	}
	s.serve()
}

// A server stopped by SIGSTOP is called stopped, not "still running": it
// cannot read its EOF, and SIGTERM stays pending until SIGCONT.
func TestStoppedServerIsCalledStopped(t *testing.T) {
	t.Parallel()
	r, _ := checkJSON(t, "headless-self-stop", "--stdin-wait", "200ms", "--sigterm-wait", "200ms")
	for _, code := range []string{"ignored-stdin-eof", "needed-sigkill"} {
		fs := r.findings(t, code)
		if len(fs) != 1 || !strings.Contains(fs[0].Message, "was stopped (SIGSTOP)") {
			t.Errorf("%s: %+v; want it to say the server was stopped (SIGSTOP)", code, fs)
		}
	}
}
