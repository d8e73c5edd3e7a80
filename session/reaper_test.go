//go:build linux

package session

import (
	"bufio"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"linesman/session/eventlog"
)

// BenchmarkServerStart: starting and ending a server (/bin/true) directly
// and through the reaper helper; the ratio is the helper's cost.
func BenchmarkServerStart(b *testing.B) {
	for _, mode := range []struct {
		name   string
		direct bool
	}{{"direct", true}, {"reaper", false}, {"direct-again", true}, {"reaper-again", false}} {
		b.Run(mode.name, func(b *testing.B) {
			noReaper = mode.direct
			defer func() { noReaper = false }()
			for range b.N {
				sp, err := startServer(exec.Command("/bin/true"))
				if err != nil {
					b.Fatal(err)
				}
				sp.waitExit()
				sp.end()
			}
		})
	}
}

// TestStrangerHoldingThePipeIsNotSignalled: a process that is not a
// descendant of the server but opened its stdout pipe through
// /proc/PID/fd/1 keeps the pipe open after the server exits. The shutdown
// that follows used to SIGKILL it with the server's leftovers; it must only
// be named (and the pipe given up on), never signalled.
func TestStrangerHoldingThePipeIsNotSignalled(t *testing.T) {
	s := startFake(t, Config{
		Command:        []string{"sh", "-c", `echo up >&2; read x; exit 0`},
		StdinCloseWait: shortWait, SIGTERMWait: shortWait,
	})
	waitForEvent(t, s.Log(), "the server up", func(ev eventlog.Event) bool { return ev.Type == eventlog.EventStderr })
	pid := s.Info().Pid
	stranger := exec.Command("sh", "-c", fmt.Sprintf(`exec 3>/proc/%d/fd/1; echo open; exec sleep 1000`, pid))
	out, err := stranger.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stranger.Process.Kill(); stranger.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "open\n" {
		t.Fatalf("the stranger did not open the pipe: %q", line)
	}
	if err := s.Send([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	waitForEvent(t, s.Log(), "pipe-held-after-exit", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFinding && ev.Finding.Code == "pipe-held-after-exit"
	})
	s.Shutdown()
	waitClosed(t, s.Done(), "Done")
	// Signalled or not is told by how it ends: SIGTERM (ours, now) or
	// SIGKILL (linesman's, before).
	stranger.Process.Signal(syscall.SIGTERM)
	stranger.Wait()
	if ws, ok := stranger.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signal() == syscall.SIGKILL {
		t.Errorf("the stranger (pid %d), not a descendant of the server, was SIGKILLed", stranger.Process.Pid)
	}
	found := false
	_, end := s.Log().Bounds()
	for _, ev := range s.Log().Range(1, end) {
		found = found || (ev.Type == eventlog.EventNote && strings.Contains(ev.Note, "not a descendant"))
	}
	if !found {
		t.Error("no note names the stranger holding the pipe")
	}
}

// TestWrapperChildLettingGoIsNoFinding: a wrapper exits and its child,
// which shares its stdout, ends a moment later (npm exec → sh → node at the
// end of a session): the pipe was held at the exit, but only by the tree's
// own teardown. pipe-held-after-exit is decided after that, by what holds
// the pipe then: nothing, so no finding (it used to be raised at the exit,
// sometimes saying "held by a descendant outside its process group" of a
// child that was inside it).
func TestWrapperChildLettingGoIsNoFinding(t *testing.T) {
	s := startFake(t, Config{Command: []string{"sh", "-c",
		`p=$$; (while [ "$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null)" = S ] || [ "$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null)" = R ]; do sleep 0.01; done) & exit 0`}})
	waitClosed(t, s.Done(), "Done")
	for _, code := range findingCodes(s.Log()) {
		if code == "pipe-held-after-exit" {
			t.Errorf("pipe-held-after-exit for a child that let go with the wrapper's exit: %v", findingCodes(s.Log()))
		}
	}
	if got := s.Info().HeldPipes; len(got) != 0 {
		t.Errorf("HeldPipes = %q", got)
	}
}
