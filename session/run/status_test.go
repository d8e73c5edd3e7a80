package run

import (
	"fmt"
	"sync/atomic"
	"testing"

	"linesman/session"
)

// TestTapExitStatus: a tap exits as a shell reports its server's end.
func TestTapExitStatus(t *testing.T) {
	for _, c := range []struct {
		info session.ProcessInfo
		want int
	}{
		{session.ProcessInfo{ExitCode: 0}, 0},
		{session.ProcessInfo{ExitCode: 3}, 3},
		{session.ProcessInfo{ExitCode: -1}, StatusFailed},
		{session.ProcessInfo{Signal: "SIGTERM"}, 143},
		{session.ProcessInfo{Signal: "SIGKILL"}, 137},
		{session.ProcessInfo{Signal: "signal 40"}, 168},
		{session.ProcessInfo{Signal: "gone"}, 137},
	} {
		if got := tapExitStatus(c.info); got != c.want {
			t.Errorf("%+v: %d, want %d", c.info, got, c.want)
		}
	}
}

// TestStartFailureStatus: a command not found is 127, one that cannot be
// executed 126, as a shell says.
func TestStartFailureStatus(t *testing.T) {
	for reason, want := range map[string]int{session.StartNotFound: 127, session.StartNotExecutable: 126} {
		err := fmt.Errorf("start: %w", &session.StartError{Reason: reason})
		if got := startFailureStatus(err); got != want {
			t.Errorf("%v: %d, want %d", reason, got, want)
		}
	}
	if got := startFailureStatus(fmt.Errorf("other")); got != StatusFailed {
		t.Errorf("another error: %d", got)
	}
}

// TestCaptureFileName: under check --all --capture DIR, a server's name
// becomes a file name of DIR, never a path out of it.
func TestCaptureFileName(t *testing.T) {
	for name, want := range map[string]string{
		"weather":         "weather.jsonl",
		"proj:srv":        "proj_srv.jsonl",
		"../../etc/x":     "_.._etc_x.jsonl",
		"a b/c\x1b":       "a_b_c_.jsonl",
		".hidden.v1-beta": "hidden.v1-beta.jsonl",
	} {
		if got := captureFileName(name); got != want {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
}

// TestRunPoolBoundsParallelism: every job runs once, never more than
// parallel at a time.
func TestRunPoolBoundsParallelism(t *testing.T) {
	var running, peak, done atomic.Int32
	runPool(50, 3, func(int) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		done.Add(1)
		running.Add(-1)
	})
	if done.Load() != 50 || peak.Load() > 3 {
		t.Errorf("done %d, peak %d", done.Load(), peak.Load())
	}
}
