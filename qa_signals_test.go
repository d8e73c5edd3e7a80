package main

// QA: what happens to a server's process group when linesman itself is told
// to stop from outside — above all by a hangup (the terminal closed, the SSH
// session dropped), which by default ends a Go program at once.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func init() {
	// qa-helper-child: a server that starts a helper in its own process
	// group (stdout not inherited, so nothing holds the wire), writes the
	// helper's pid to HEADLESS_MARK once the handshake is done, and then
	// ignores both stdin EOF and SIGTERM.
	registerFake("qa-helper-child", func() {
		signal.Ignore(syscall.SIGTERM)
		helper := exec.Command("sleep", "300")
		if err := helper.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "cannot start the helper:", err)
			os.Exit(1)
		}
		s := newFake("helper-child")
		s.afterInit = func(*fakeMCP) {
			if mark := os.Getenv("HEADLESS_MARK"); mark != "" {
				os.WriteFile(mark, []byte(strconv.Itoa(helper.Process.Pid)), 0o600)
			}
		}
		s.atEOF = func(*fakeMCP) {
			for {
				time.Sleep(time.Hour)
			}
		}
		s.serve()
	})
}

// waitForPid waits until the fake server has written its helper's pid to
// mark; ended reports linesman's early exit.
func waitForPid(t *testing.T, mark string, ended <-chan error) int {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		if b, err := os.ReadFile(mark); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			// Whatever the outcome, the helper must not outlive the test.
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			return pid
		}
		select {
		case err := <-ended:
			t.Fatalf("linesman ended before the server was ready: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never wrote its helper's pid")
		}
	}
}

// alive reports whether pid is a process that has not exited (a zombie
// waiting for its parent counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) STATE ...: comm may hold spaces, so look after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits, bounded, for pid to exit.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) outlived linesman", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

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

func init() {
	// qa-deaf: reads everything, answers nothing.
	registerFake("qa-deaf", func() {
		io.Copy(io.Discard, os.Stdin)
	})
}

// TestUIShowsAFailedHandshake: when the background handshake fails, the
// inspector says so in its events pane (it only went to --log before, and
// the user saw a request-timeout badge at best).
func TestUIShowsAFailedHandshake(t *testing.T) {
	args := append([]string{"--timeout", "300ms"}, fakeServerArgs("qa-deaf")...)
	term := startTerminal(t, 160, 40, args...)
	term.waitFor("handshake failed: initialize: no answer to id")
	term.send("q")
	term.wait()
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
