package main

// QA: what happens to a server's process group when linesman itself is told
// to stop from outside — above all by a hangup (the terminal closed, the SSH
// session dropped), which by default ends a Go program at once.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
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
	t.Parallel()
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
	if !errors.As(err, &ee) || ee.ExitCode() != 129 {
		t.Errorf("exit: %v, want status 129 (SIGHUP)\n%s", err, out.String())
	}
	waitGone(t, helper, "the server's helper")
	if !strings.Contains(out.String(), `"process"`) {
		t.Errorf("no report after the hangup:\n%s", out.String())
	}
}

// TestUIHangupKillsTheGroup: closing the inspector's terminal kills the
// server's whole process group, not only the server.
func TestUIHangupKillsTheGroup(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	if errors.As(err, &ee) && (ee.ExitCode() == 129 || ee.ExitCode() == -1) {
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
	t.Parallel()
	args := append([]string{"--era", "legacy", "--log", filepath.Join(t.TempDir(), "diag.log")}, fakeServerArgs("ui-misbehave")...)
	term := startTerminal(t, 100, 30, args...)
	term.waitFor("ui-fake 9.9")
	term.cmd.Process.Signal(syscall.SIGINT)
	err := term.wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("linesman exited with %v, want status 130", err)
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
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want status 130 (SIGINT)", err)
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
	t.Parallel()
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
	t.Parallel()
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
// Every run ends with status 143 and a report.
func TestHeadlessSignalStormStillReports(t *testing.T) {
	t.Parallel()
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
		if !errors.As(err, &ee) || ee.ExitCode() != 143 {
			t.Fatalf("run %d: exit %v, want status 143 (SIGTERM)\n%s", i, err, out.String())
		}
		if !strings.Contains(out.String(), `"interrupted"`) {
			t.Fatalf("run %d: no report of the interrupted run:\n%s", i, out.String())
		}
		waitGone(t, helper, "the server's helper")
	}
}

// stopSignalCases are the signals that stop a run, and the status the
// policy (signals.go) gives each: 128+n.
var stopSignalCases = []struct {
	sig  syscall.Signal
	want int
}{
	{syscall.SIGINT, 130},
	{syscall.SIGTERM, 143},
	{syscall.SIGHUP, 129},
}

// signalledRun is a linesman started by a case of TestSignalStatusEveryMode:
// ready returns once it is at work, then the test signals it; wait returns
// its exit status.
type signalledRun struct {
	cmd   *exec.Cmd
	ready func()
	wait  func() int
}

// startSignalled starts linesman with args (and env added to its
// environment), its stderr in a buffer; ready waits until the buffer holds
// want.
func startSignalled(t *testing.T, want string, stdin io.Reader, env []string, args ...string) signalledRun {
	t.Helper()
	cmd := exec.Command(linesmanBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	errb := &syncBuffer{}
	cmd.Stderr = errb
	cmd.Stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	return signalledRun{
		cmd:   cmd,
		ready: func() { waitText(t, errb, want) },
		wait: func() int {
			select {
			case <-done:
			case <-time.After(hangGuard):
				t.Fatalf("linesman did not end after the signal; stderr:\n%s", errb.String())
			}
			return cmd.ProcessState.ExitCode() // -1: killed by the signal
		},
	}
}

// TestSignalStatusEveryMode: SIGINT, SIGTERM and SIGHUP from outside end
// every mode with one status, 128+n (signals.go): the inspector and view in
// a pseudo-terminal, check, send, a followed transcript, and tap (whose
// server dies of the signal passed on). The inspector shuts its server down
// through the ladder first (a hangup kills the group at once). Before the
// policy the inspector exited 0 on SIGTERM, check and send 130 on every
// signal, view 0 or 1, and view's inspector died of SIGHUP.
func TestSignalStatusEveryMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capFile := filepath.Join(dir, "run.jsonl")
	if status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", capFile}, fakeServerArgs("headless-good")...)...); status != 0 {
		t.Fatalf("check --capture: status %d\n%s", status, errOut)
	}
	headless := map[string]func(t *testing.T) signalledRun{
		// check: in its shutdown ladder, which would wait minutes (the
		// server stays up after stdin closes, and ignores SIGTERM).
		"check": func(t *testing.T) signalledRun {
			mark := filepath.Join(t.TempDir(), "mark")
			r := startSignalled(t, "", nil, nil, append([]string{"check", "--stdin-wait", "1m", "--sigterm-wait", "1m",
				"-e", "HEADLESS_MARK=" + mark}, fakeServerArgs("headless-ignore-sigterm")...)...)
			r.ready = func() { waitMark(t, mark) }
			return r
		},
		// send: waiting for an answer that never comes.
		"send": func(t *testing.T) signalledRun {
			mark := filepath.Join(t.TempDir(), "mark")
			in := strings.NewReader(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{}}}` + "\n")
			r := startSignalled(t, "", in, nil, append([]string{"send", "--timeout", "1m", "-e", "HEADLESS_MARK=" + mark},
				fakeServerArgs("headless-no-answer")...)...)
			r.ready = func() { waitMark(t, mark) }
			return r
		},
		"view --follow (waiting)": func(t *testing.T) signalledRun {
			return startSignalled(t, "waiting for", nil, nil, "view", "--follow", "--text", filepath.Join(t.TempDir(), "later.jsonl"))
		},
		"tap": func(t *testing.T) signalledRun {
			// The host's end, open until the test ends (a real pipe: Wait
			// must not wait for a copier).
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { pr.Close(); pw.Close() })
			return startSignalled(t, "signal-default: ready", pr, []string{fakeServers.Env("signal-default")},
				append([]string{"tap", "--dir", t.TempDir(), "--"}, fakeServers.Command("signal-default")...)...)
		},
	}
	for _, sc := range stopSignalCases {
		t.Run(sc.sig.String(), func(t *testing.T) {
			for mode, start := range headless {
				t.Logf("%s", mode)
				r := start(t)
				r.ready()
				r.cmd.Process.Signal(sc.sig)
				if got := r.wait(); got != sc.want {
					t.Errorf("%s: exit status %d, want %d", mode, got, sc.want)
				}
			}
			inspectorSignalled(t, sc.sig, sc.want)
			viewSignalled(t, capFile, sc.sig, sc.want)
		})
	}
}

// waitMark waits until the fake server has created the file mark.
func waitMark(t *testing.T, mark string) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never reached its mark")
		}
	}
}

// inspectorSignalled signals the inspector in a pseudo-terminal and checks
// its status and, but for a hangup, that the ladder shut the server down.
func inspectorSignalled(t *testing.T, sig syscall.Signal, want int) {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "diag.log")
	term := startTerminal(t, 100, 30, append([]string{"--era", "legacy", "--log", logFile}, fakeServerArgs("ui-misbehave")...)...)
	term.waitFor("ui-fake 9.9")
	term.cmd.Process.Signal(sig)
	term.wait()
	if got := term.cmd.ProcessState.ExitCode(); got != want {
		t.Errorf("inspector: exit status %d, want %d", got, want)
	}
	if sig == syscall.SIGHUP {
		return
	}
	if log, _ := os.ReadFile(logFile); !strings.Contains(string(log), "ended by stdin-close") {
		t.Errorf("inspector: the server was not shut down by the ladder; diagnostics:\n%s", log)
	}
}

// viewSignalled signals view's inspector, in a pseudo-terminal, on a
// capture, and checks its status.
func viewSignalled(t *testing.T, capFile string, sig syscall.Signal, want int) {
	t.Helper()
	term := startTerminal(t, 160, 40, "view", capFile)
	term.waitFor("capture run.jsonl")
	term.cmd.Process.Signal(sig)
	term.wait()
	if got := term.cmd.ProcessState.ExitCode(); got != want {
		t.Errorf("view: exit status %d, want %d", got, want)
	}
}
