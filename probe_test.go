package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// loadMachine keeps every core busy with spinning goroutines until the test
// ends: the verdicts a test compares must not depend on it.
func loadMachine(t *testing.T) {
	t.Helper()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(1)
			for !stop.Load() {
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			_ = x
		}()
	}
	t.Cleanup(func() { stop.Store(true); wg.Wait() })
}

// findingCodes lists a report's finding codes.
func findingCodes(r jReport) []string {
	var codes []string
	for _, f := range r.Findings {
		codes = append(codes, f.Code)
	}
	return codes
}

// TestProbeWaitsForSlowServer: a server that sleeps before it reads stdin,
// and one that takes its time over its first answer, both longer than the
// 3 s the probe once waited, on a loaded machine: the probe waits for
// their answer, so the era is the one the answer tells (legacy: -32601),
// and no late-response is charged to them.
func TestProbeWaitsForSlowServer(t *testing.T) {
	loadMachine(t)
	for _, fake := range []string{"slow-start", "slow-answer"} {
		t.Run(fake, func(t *testing.T) {
			t.Parallel()
			r, status := checkJSON(t, fake)
			if status != 0 || r.Era != "legacy" || len(r.Findings) != 0 {
				t.Errorf("status %d, era %q, findings %v; want 0, legacy, none", status, r.Era, findingCodes(r))
			}
		})
	}
}

// TestProbeAbandonedIsNoFinding: a server that answers the probe only
// after linesman gave up on it (--probe-timeout passed, whatever the
// machine's speed: it holds the answer until initialize comes) gets no
// late-response for linesman's impatience, and a request the user writes
// by hand with the probe's id is no reused-id of it.
func TestProbeAbandonedIsNoFinding(t *testing.T) {
	t.Parallel()
	input := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"
	r, status := sendJSON(t, "probe-held", input, "--probe-timeout", "100ms")
	if status != 0 || r.Era != "legacy" {
		t.Errorf("status %d, era %q; want 0, legacy", status, r.Era)
	}
	for _, code := range findingCodes(r) {
		switch code {
		case "late-response", "reused-id", "reused-id-in-flight":
			t.Errorf("finding %s of linesman's own abandoned probe", code)
		}
	}
	var probe, late bool
	for _, q := range r.Requests {
		if q.Method == "server/discover" {
			probe = true
			late = q.ResponseSeq != nil
		}
	}
	if !probe || !late {
		t.Errorf("the probe's late answer is not paired with it (probe %v, answered %v)", probe, late)
	}
}

// TestProbeAtTheTimeoutIsNoTimeout: with --timeout under --probe-timeout's
// default the probe's bound is the timeout itself, and two of linesman's
// clocks end the same wait: the probe giving up (legacy follows, no
// finding) and the tracker's tick (request-timeout, charged to the
// server). A linesman the machine did not run across that instant (here
// stopped, as a loaded machine's scheduler stops it) woke with both due,
// and the same server drew request-timeout in some runs and nothing in
// others. The probe's own bound decides, whatever the machine's speed.
func TestProbeAtTheTimeoutIsNoTimeout(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			r, err := checkStopped(t, append([]string{"check", "--json", "--timeout", "300ms"}, fakeServerArgs("probe-held")...))
			if err != nil || r.Era != "legacy" || len(r.Findings) != 0 {
				t.Errorf("%v, era %q, findings %v; want exit 0, legacy, none", err, r.Era, findingCodes(r))
			}
		})
	}
}

// checkStopped runs linesman with args, stopped (SIGSTOP) from 100 ms
// after its start to 900 ms, as a loaded machine's scheduler stops it, and
// returns its JSON report and how it exited.
func checkStopped(t *testing.T, args []string) (jReport, error) {
	t.Helper()
	cmd := exec.Command(linesmanBinary(t), args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(800 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGCONT)
	err := cmd.Wait()
	var r jReport
	if jerr := json.Unmarshal(out.Bytes(), &r); jerr != nil {
		t.Fatalf("%v; report is not JSON (%v):\n%s", err, jerr, out.Bytes())
	}
	return r, err
}

// TestProbeAnsweredWhileStoppedIsTheAnswer: a server that answered the
// probe within its bound, while linesman was not run (stopped across the
// answer and the bound, as a loaded machine stops it), is judged by its
// answer when linesman wakes and logs it before giving up: linesman picked
// between the answer and its expired bound at random, and in some runs fell
// back to initialize after a modern answer, drawing host-fallback-needless
// of its own making.
func TestProbeAnsweredWhileStoppedIsTheAnswer(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			// The demo server (modern) starts 200 ms late and answers at
			// once, while linesman is stopped, before the probe's bound.
			r, err := checkStopped(t, []string{"check", "--json", "--probe-timeout", "400ms", "--",
				"sh", "-c", `sleep 0.2; exec "$0" demo-server`, linesmanBinary(t)})
			if err != nil || len(r.Findings) != 0 {
				t.Errorf("%v, era %q, findings %v; want exit 0 and no finding", err, r.Era, findingCodes(r))
			}
		})
	}
}
