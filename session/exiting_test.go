//go:build linux

package session

import (
	"os/exec"
	"testing"
	"time"
)

// TestExitingOrGone: the kernel's word on a process: a running one is not
// on its way out; a zombie (exited, not yet reaped) and a reaped one are.
func TestExitingOrGone(t *testing.T) {
	sleeper := exec.Command("sleep", "1000")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	if exitingOrGone(sleeper.Process.Pid) {
		t.Errorf("a running sleep is called exiting or gone")
	}
	quick := exec.Command("true")
	if err := quick.Start(); err != nil {
		t.Fatal(err)
	}
	pid := quick.Process.Pid
	// Not waited for: it stays a zombie until Wait.
	deadline := time.Now().Add(30 * time.Second)
	for !exitingOrGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never seen exiting or as a zombie", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	quick.Wait()
	if !exitingOrGone(pid) {
		t.Errorf("a reaped pid is not called gone")
	}
}
