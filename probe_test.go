package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
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
