//go:build linux

package main

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperKillerTree is a server that double-forks a daemon into a session
// of its own and then sends sig to its parent — the reaper helper that
// contains it — and stays.
func helperKillerTree(sig string) containTree {
	return containTree{"helper-" + sig, `(setsid sh -c 'touch "$D/ready"; exec sleep 1000' </dev/null >/dev/null 2>&1 &); ` +
		`while [ ! -e "$D/ready" ]; do sleep 0.01; done; kill -` + sig + ` $PPID; exec sleep 1000`}
}

var helperKillers = []containTree{helperKillerTree("KILL"), helperKillerTree("STOP")}

var helperKinds = []struct{ name, env string }{{"", "LINESMAN_PRESPAWN=1"}, {"-late-helper", "LINESMAN_PRESPAWN=0"}}

// TestContainHelperKilledCheck: a server whose tree SIGKILLs or SIGSTOPs
// its containment helper leaves nothing behind after check, and the report
// says containment was lost and names what linesman killed; the server's
// end is containment's, not judged as exit-at-start. Before, the daemon
// outlived check (SIGKILL: "exited, on its own"; SIGSTOP: after 14.7 s,
// with the stopped helper).
func TestContainHelperKilledCheck(t *testing.T) {
	t.Parallel()
	for _, tree := range helperKillers {
		for _, helper := range helperKinds {
			t.Run(tree.name+helper.name, func(t *testing.T) {
				t.Parallel()
				cmd, mark, out := startContainTreeEnv(t, tree, []string{helper.env}, "--json")
				cmd.Wait()
				if !treeGone(mark, 15*time.Second) {
					t.Errorf("the tree outlived check: %s", describePids(marked(mark)))
				}
				rep := out.String()
				if !strings.Contains(rep, "containment lost") || !strings.Contains(rep, "sleep") {
					t.Errorf("the report does not say containment was lost and what was killed:\n%s", rep)
				}
				if strings.Contains(rep, "exit-at-start") || strings.Contains(rep, "escaped containment") {
					t.Errorf("the report blames the server's exit or names escapees:\n%s", rep)
				}
			})
		}
	}
}

// TestContainHelperKilledTap: the same trees under a tap, whose host keeps
// its stdin open: the tree is gone while the tap still runs, and the
// capture notes the loss.
func TestContainHelperKilledTap(t *testing.T) {
	for _, tree := range helperKillers {
		t.Run(tree.name, func(t *testing.T) {
			t.Parallel()
			mark, dir := newContainMark(t)
			taps := t.TempDir()
			cmd := exec.Command(linesmanBinary(t), "tap", "--dir", taps, "--", "sh", "-c", tree.script)
			cmd.Env = append(os.Environ(), containMark+"="+mark, "D="+dir)
			host, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			waitReady(t, dir)
			if !treeGone(mark, 15*time.Second) {
				t.Errorf("the tree outlived its helper under a tap: %s", describePids(marked(mark)))
			}
			host.Close()
			ended := make(chan error, 1)
			go func() { ended <- cmd.Wait() }()
			select {
			case <-ended:
			case <-time.After(hangGuard):
				t.Fatal("the tap did not end after its host closed stdin")
			}
			c := tapCapture(t, taps)
			var notes []string
			first, next := c.Log.Bounds()
			for _, ev := range c.Log.Range(first, next) {
				if ev.Note != "" {
					notes = append(notes, ev.Note)
				}
			}
			if !strings.Contains(strings.Join(notes, "\n"), "containment lost") {
				t.Errorf("the capture does not note the lost containment: %q", notes)
			}
		})
	}
}

// TestContainHelperKilledInspector: the same trees in the inspector: the
// tree is gone while the inspector still runs.
func TestContainHelperKilledInspector(t *testing.T) {
	for _, tree := range helperKillers {
		t.Run(tree.name, func(t *testing.T) {
			t.Parallel()
			mark, dir := newContainMark(t)
			term := startTerminal(t, 100, 30, "--era", "legacy", "-e", containMark+"="+mark, "-e", "D="+dir, "--", "sh", "-c", tree.script)
			waitReady(t, dir)
			if !treeGone(mark, 15*time.Second) {
				t.Errorf("the tree outlived its helper in the inspector: %s", describePids(marked(mark)))
			}
			term.cmd.Process.Signal(syscall.SIGKILL)
			term.wait()
		})
	}
}

// newContainMark returns a fresh mark and a private directory; whatever
// carries the mark is killed at the test's end.
func newContainMark(t *testing.T) (mark, dir string) {
	b := make([]byte, 8)
	rand.Read(b)
	mark = hex.EncodeToString(b)
	t.Cleanup(func() {
		for _, pid := range marked(mark) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return mark, t.TempDir()
}

func waitReady(t *testing.T, dir string) {
	t.Helper()
	if !pollUntil(hangGuard, func() bool { _, err := os.Stat(filepath.Join(dir, "ready")); return err == nil }) {
		t.Fatal("the tree never got ready")
	}
}
