//go:build linux

package session

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"0linesman/reaper"
)

// The reaper helper started ahead of need (reaper.Prespawn), driven as
// startReaper drives it: this test binary is the helper, as the linesman
// binary is in use.

// TestPrespawnedHelperUnusedEnds: a waiting helper whose control socket
// closes before a start request (linesman ended without starting a server)
// exits at once, with status 0 and without a word.
func TestPrespawnedHelperUnusedEnds(t *testing.T) {
	pre := reaper.Prespawn()
	if pre == nil {
		t.Fatal("no helper could be started")
	}
	pre.Ctl.Close()
	said, _ := io.ReadAll(pre.Events)
	pre.Events.Close()
	ws, err := pre.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !ws.Exited() || ws.ExitStatus() != 0 || len(said) != 0 {
		t.Errorf("an unused helper ended with status %v and said %q", ws, said)
	}
}

// TestPrespawnedHelperStartsTheServer: the start request carries the
// program, its arguments, environment, working directory and stdio; the
// server runs with exactly those, under the helper (its subreaper), and its
// exit status comes back as from a helper started for it.
func TestPrespawnedHelperStartsTheServer(t *testing.T) {
	pre := reaper.Prespawn()
	if pre == nil {
		t.Fatal("no helper could be started")
	}
	dir := t.TempDir()
	p, err := newPipes()
	if err != nil {
		t.Fatal(err)
	}
	defer p.closeAll()
	cmd := exec.Command("/bin/sh", "-c", `read line; echo "$line|$1|$MARK|$(pwd)|$(tr '\0' ' ' </proc/$PPID/cmdline)"; echo to-stderr >&2; exit 7`, "sh", "arg one")
	cmd.Env = []string{"MARK=env-ok", "PATH=" + os.Getenv("PATH")}
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.stdinR, p.stdoutW, p.stderrW
	rc, err := startPrespawned(pre, cmd)
	if err != nil {
		t.Fatal(err)
	}
	p.closeChildEnds()
	if rc.helperPid() != pre.Pid {
		t.Errorf("the server was started by helper %d, not by the waiting one (%d)", rc.helperPid(), pre.Pid)
	}
	io.WriteString(p.stdinW, "hello\n")
	p.stdinW.Close()
	out, _ := io.ReadAll(p.stdoutR)
	errOut, _ := io.ReadAll(p.stderrR)
	code, sig, err := rc.waitExit()
	rc.end()
	want := "hello|arg one|env-ok|" + dir + "|" + reaper.Arg0 + " \n"
	if string(out) != want {
		t.Errorf("the server saw\n%q, want\n%q", out, want)
	}
	if strings.TrimSpace(string(errOut)) != "to-stderr" {
		t.Errorf("stderr: %q", errOut)
	}
	if code != 7 || sig != 0 || err != nil {
		t.Errorf("exit: code %d signal %v err %v, want code 7", code, sig, err)
	}
}

// TestPrespawnedHelperReportsStartFailure: a program that cannot be
// executed fails as exec would have said, and the helper ends.
func TestPrespawnedHelperReportsStartFailure(t *testing.T) {
	pre := reaper.Prespawn()
	if pre == nil {
		t.Fatal("no helper could be started")
	}
	p, err := newPipes()
	if err != nil {
		t.Fatal(err)
	}
	defer p.closeAll()
	cmd := &exec.Cmd{Path: t.TempDir(), Args: []string{"a-directory"}}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.stdinR, p.stdoutW, p.stderrW
	rc, err := startPrespawned(pre, cmd)
	if err == nil {
		rc.end()
		t.Fatal("a directory was started as a server")
	}
	if reason := startReason(err); reason != StartNotExecutable {
		t.Errorf("start error %v: reason %q, want %q", err, reason, StartNotExecutable)
	}
	// startPrespawned reaped it: its pid is free.
	if err := syscall.Kill(pre.Pid, 0); err != syscall.ESRCH {
		t.Errorf("the helper (pid %d) is still there: kill 0 says %v", pre.Pid, err)
	}
}

// TestStartsServer: the command lines for which linesman starts a helper at
// init.
func TestStartsServer(t *testing.T) {
	for _, c := range []struct {
		args string
		want bool
	}{
		{"", true}, // the inspector on the demo server
		{"send -- node server.js", true},
		{"check --era legacy --json -- ./server", true},
		{"-- python3 server.py", true},
		{"check --config cfg.json github", true},
		{"--config cfg.json", true},
		{"send --", false},
		{"check --config cfg.json --all", false},
		{"send --help -- x", false},
		{"--version", false},
		{"explain blank-line", false},
		{"view capture.lmcap", false},
		{"demo-server", false},
	} {
		if got := reaper.StartsServer(strings.Fields(c.args)); got != c.want {
			t.Errorf("StartsServer(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
