package main

// QA: what happens to a server's process group when linesman itself is told
// to stop from outside — above all by a hangup (the terminal closed, the SSH
// session dropped), which by default ends a Go program at once.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHeadlessHangupKillsTheGroup: a hangup during check still shuts the
// server down, kills what it left in its process group, reports, and exits
// like an interrupt. (By default SIGHUP ended linesman on the spot; the
// server died of its parent-death signal but its helper lived on.)
func TestHeadlessHangupKillsTheGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	mark := filepath.Join(t.TempDir(), "mark")
	args := append([]string{"check", "--json", "--stdin-wait", "200ms", "--sigterm-wait", "200ms", "--timeout", "1m",
		"-e", "HEADLESS_MARK=" + mark}, fakeServerArgs("qa-helper-child")...)
	cmd := exec.Command(linesmanBinary(t), args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	helper := waitForPid(t, mark, ended)
	// check is still at work (or in its ladder): hang up on it.
	cmd.Process.Signal(syscall.SIGHUP)
	var err error
	select {
	case err = <-ended:
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		<-ended
		t.Fatal("linesman did not end after SIGHUP")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitSignal {
		t.Errorf("exit: %v, want status %d\n%s", err, exitSignal, out.String())
	}
	waitGone(t, helper, "the server's helper")
	if !strings.Contains(out.String(), `"process"`) {
		t.Errorf("no report after the hangup:\n%s", out.String())
	}
}

// TestUIHangupKillsTheGroup: closing the inspector's terminal kills the
// server's whole process group, not only the server.
func TestUIHangupKillsTheGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	mark := filepath.Join(t.TempDir(), "mark")
	args := append([]string{"--era", "legacy", "-e", "HEADLESS_MARK=" + mark}, fakeServerArgs("qa-helper-child")...)
	term := startTerminal(t, 100, 30, args...)
	ended := make(chan error) // the terminal's own cleanup waits for the process
	helper := waitForPid(t, mark, ended)
	term.waitFor("helper-child")
	term.cmd.Process.Signal(syscall.SIGHUP)
	term.wait()
	waitGone(t, helper, "the server's helper")
}

// TestHeadlessUnderNohupIgnoresHangup: started with SIGHUP ignored (nohup),
// check stays deaf to a hangup and finishes its run; handling SIGHUP must
// not undo nohup (signal.Notify would install a handler).
func TestHeadlessUnderNohupIgnoresHangup(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	args := append([]string{"check", "--json", "--stdin-wait", "300ms", "--sigterm-wait", "300ms",
		"-e", "HEADLESS_MARK=" + mark}, fakeServerArgs("qa-helper-child")...)
	// exec keeps the ignored disposition, as nohup does.
	cmd := exec.Command("sh", append([]string{"-c", `trap '' HUP; exec "$0" "$@"`, linesmanBinary(t)}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	helper := waitForPid(t, mark, ended)
	cmd.Process.Signal(syscall.SIGHUP)
	var err error
	select {
	case err = <-ended:
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		<-ended
		t.Fatal("linesman did not end")
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && (ee.ExitCode() == exitSignal || ee.ExitCode() == -1) {
		t.Errorf("a hangup under nohup ended the run: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), `"interrupted"`) {
		t.Errorf("the report says interrupted:\n%s", out.String())
	}
	waitGone(t, helper, "the server's helper")
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

// interruptAt runs linesman with args and stdin, waits until the fake
// server touches the file HEADLESS_MARK names (the moment to interrupt),
// sends linesman an interrupt, and returns the report it still prints.
func interruptAt(t *testing.T, stdin string, args ...string) jReport {
	t.Helper()
	mark := filepath.Join(t.TempDir(), "mark")
	args = append([]string{args[0], "-e", "HEADLESS_MARK=" + mark}, args[1:]...)
	cmd := exec.Command(linesmanBinary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(hangGuard)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("linesman ended before the mark: %v\n%s", err, out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			t.Fatal("the server never reached the mark")
		}
	}
	cmd.Process.Signal(os.Interrupt)
	var err error
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		<-done
		t.Fatal("linesman did not end after the interrupt")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitSignal {
		t.Errorf("exit: %v, want status %d", err, exitSignal)
	}
	var r jReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("no report: %v\n%s", err, out.String())
	}
	return r
}

// TestHeadlessSendInterrupt: ^C while waiting for an answer still shuts the
// server down and prints the report, then exits 130.
func TestHeadlessSendInterrupt(t *testing.T) {
	args := append([]string{"send", "--json", "--timeout", "1m"}, fakeServerArgs("headless-no-answer")...)
	r := interruptAt(t, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{}}}`+"\n", args...)
	if r.Error != "interrupted" || r.Process.EndedBy == nil || r.Process.ExitCode == nil || *r.Process.ExitCode != 0 {
		t.Errorf("error %q, process %+v", r.Error, r.Process)
	}
	if _, state, _ := r.request(t, "tools/call"); state == "in-flight" || state == "answered" {
		t.Errorf("tools/call %s after the interrupt", state)
	}
}

// TestHeadlessCheckInterruptLadder: ^C during a long shutdown ladder kills
// the process group at once and still reports.
func TestHeadlessCheckInterruptLadder(t *testing.T) {
	args := append([]string{"check", "--json", "--stdin-wait", "1m", "--sigterm-wait", "1m"}, fakeServerArgs("headless-ignore-sigterm")...)
	r := interruptAt(t, "", args...)
	p := r.Process
	if p.Signal == nil || *p.Signal != "SIGKILL" || p.ExitCode != nil || r.Error != "interrupted" {
		t.Errorf("error %q, process %+v", r.Error, p)
	}
}

// TestHeadlessSignalStormStillReports: signals arriving without pause from
// the middle of a run to its end (a supervisor that keeps sending SIGTERM)
// never find linesman without its handler — there used to be a moment
// between the steps and the shutdown ladder when a signal took its default
// action and killed linesman with no report and the server's group alive.
// Every run ends with status 130 and a report.
func TestHeadlessSignalStormStillReports(t *testing.T) {
	for i := range 5 {
		mark := filepath.Join(t.TempDir(), "mark")
		args := append([]string{"check", "--json", "--stdin-wait", "200ms", "--sigterm-wait", "200ms",
			"-e", "HEADLESS_MARK=" + mark}, fakeServerArgs("qa-helper-child")...)
		cmd := exec.Command(linesmanBinary(t), args...)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ended := make(chan error, 1)
		go func() { ended <- cmd.Wait() }()
		helper := waitForPid(t, mark, ended)
		var err error
		guard := time.After(hangGuard)
	storm:
		for {
			select {
			case err = <-ended:
				break storm
			case <-guard:
				cmd.Process.Kill()
				<-ended
				t.Fatal("linesman did not end under the storm")
			default:
				cmd.Process.Signal(syscall.SIGTERM)
			}
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitSignal {
			t.Fatalf("run %d: exit %v, want status %d\n%s", i, err, exitSignal, out.String())
		}
		if !strings.Contains(out.String(), `"interrupted"`) {
			t.Fatalf("run %d: no report of the interrupted run:\n%s", i, out.String())
		}
		waitGone(t, helper, "the server's helper")
	}
}
