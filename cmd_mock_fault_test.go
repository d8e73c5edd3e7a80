package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/wire"
)

// mockFaultRun is what `linesman check` saw of `linesman mock --fault
// SPEC` playing a recorded real session (the memory server's): the
// finding codes of warning or more, the tools/list request, the end, and
// the mock's stderr.
type mockFaultRun struct {
	codes  []string
	list   eventlog.Request
	proc   eventlog.ProcessStatus
	stderr string
}

func runMockFault(t *testing.T, spec string) mockFaultRun {
	t.Helper()
	bin := linesmanBinary(t)
	rec := filepath.Join("capture", "testdata", "interop", "npm-server-memory.capture")
	out := filepath.Join(t.TempDir(), "live.jsonl")
	runBinary(t, nil, "check", "--json", "--capture", out, "--timeout", "1s", "--stdin-wait", "300ms", "--sigterm-wait", "300ms",
		"--", bin, "mock", "--timing", "fast", "--fault", spec, rec)
	c, err := capture.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	var run mockFaultRun
	first, next := c.Log.Bounds()
	for seq := first; seq < next; seq++ {
		ev, _ := c.Log.Get(seq)
		if ev.Type == eventlog.EventStderr {
			run.stderr += string(ev.Stderr.Content) + "\n"
		}
		for _, f := range findingsOfEvent(c.Tracker, &ev) {
			if f.Severity >= wire.SeverityWarning && !slices.Contains(run.codes, f.Code) {
				run.codes = append(run.codes, f.Code)
			}
		}
	}
	for _, r := range c.Tracker.Requests() {
		if r.Method == "tools/list" {
			run.list = r
		}
	}
	run.proc = c.Tracker.Process()
	return run
}

// TestMockFaults: `check -- linesman mock --fault SPEC FILE` sees each
// fault's effect on the mocked server (the mock is the server there, so
// the judge rightly charges it), and the mock says each injected fault on
// its stderr, which the check's capture keeps.
func TestMockFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec, said string
		saw        func(r mockFaultRun) bool
	}{
		{"delay:700ms@tools/list", "held back 700ms", func(r mockFaultRun) bool {
			return r.list.State == eventlog.ReqAnswered && r.list.EndedAt-r.list.SentAt >= 700*time.Millisecond
		}},
		{"drop@tools/list", "dropped", func(r mockFaultRun) bool {
			return r.list.TimedOut && slices.Contains(r.codes, "request-timeout")
		}},
		{"error:-32000:busy@tools/list", "replaced by error -32000", func(r mockFaultRun) bool {
			return r.list.State == eventlog.ReqError
		}},
		{"truncate@tools/list", "cut mid-line", func(r mockFaultRun) bool {
			return slices.Contains(r.codes, "non-json-line") && r.list.TimedOut
		}},
		{"corrupt@tools/list", "invalid UTF-8", func(r mockFaultRun) bool { return slices.Contains(r.codes, "invalid-utf8") }},
		{"stray@tools/list", "a stray stdout line", func(r mockFaultRun) bool {
			return slices.Contains(r.codes, "non-json-line") && r.list.State == eventlog.ReqAnswered
		}},
		{"close-stdout@tools/list", "stdout closed", func(r mockFaultRun) bool {
			return slices.Contains(r.codes, "stdout-closed") && r.list.State != eventlog.ReqAnswered
		}},
		{"kill:SIGTERM@tools/list", "SIGTERM sent", func(r mockFaultRun) bool {
			return r.proc.Signal == "SIGTERM" && r.list.State != eventlog.ReqAnswered
		}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			r := runMockFault(t, tc.spec)
			if !tc.saw(r) {
				t.Errorf("check saw tools/list %+v, findings %v, process %+v", r.list, r.codes, r.proc)
			}
			if !strings.Contains(r.stderr, "linesman mock: injected: ") || !strings.Contains(r.stderr, tc.said) {
				t.Errorf("the mock's stderr does not say the fault (%q):\n%s", tc.said, r.stderr)
			}
		})
	}
}
