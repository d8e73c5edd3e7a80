package session

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"linesman/session/eventlog"
)

// TestTransportStressExitRace is the race the .NET SDK fixed: many workers
// each spawn a server that exits at once with a stderr line, send it a
// request and close it. No worker may hang; every send succeeds or fails
// with that worker's exit code and stderr line; every cycle ends exited
// with code 3.
//
// LINESMAN_STRESS_CYCLES=2000 runs the long version (16 × 2,000). The
// default, 16 × 15, keeps the suite's share small: every cycle now starts
// the reaper helper, which re-runs the test binary (under -race, 800
// cycles took 5 of the session package's 6 minutes).
func TestTransportStressExitRace(t *testing.T) {
	const workers = 16
	cycles := 15
	if n, err := strconv.Atoi(os.Getenv("LINESMAN_STRESS_CYCLES")); err == nil && n > 0 {
		cycles = n
	}
	if testing.Short() {
		cycles = 5
	}
	start := time.Now()
	var (
		mu                        sync.Mutex
		sendOK, sendExited, total int
	)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			marker := fmt.Sprintf("worker-%d", w)
			for c := range cycles {
				ok, exited, err := stressCycle(marker)
				if err != nil {
					t.Errorf("%s cycle %d: %v", marker, c, err)
					return
				}
				mu.Lock()
				total++
				if ok {
					sendOK++
				}
				if exited {
					sendExited++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d cycles (%d workers × %d) in %s: %d sends queued, %d refused with the exit status",
		total, workers, cycles, time.Since(start).Round(time.Millisecond), sendOK, sendExited)
	checkNoTransportGoroutines(t)
}

// stressCycle runs one spawn → send → close cycle and checks it.
func stressCycle(marker string) (sendOK, sendExited bool, err error) {
	s, err := Start(Config{
		Command: []string{"sh", "-c", "echo " + marker + " >&2; exit 3"},
		// The ladder is not under test here; a loaded machine must not
		// turn a clean exit into a SIGTERM.
		StdinCloseWait: 30 * time.Second,
	})
	if err != nil {
		return false, false, err
	}
	defer s.Kill()
	serr := s.Send(request(1, "initialize"))
	var ee *ExitedError
	switch {
	case serr == nil:
		sendOK = true
	case errors.As(serr, &ee):
		sendExited = true
		if ee.ExitCode != 3 || ee.Signal != "" {
			return false, false, fmt.Errorf("send: exit code %d signal %q, want 3", ee.ExitCode, ee.Signal)
		}
		if len(ee.StderrTail) != 1 || ee.StderrTail[0] != marker {
			return false, false, fmt.Errorf("send: stderr tail %q, want [%s]", ee.StderrTail, marker)
		}
	default:
		return false, false, fmt.Errorf("send: %v", serr)
	}
	s.Shutdown()
	select {
	case <-s.Done():
	case <-time.After(testWait):
		return false, false, fmt.Errorf("hang: not done within %s (%+v)", testWait, s.Info())
	}
	info := s.Info()
	if info.State != eventlog.StateExited || info.ExitCode != 3 || info.Signal != "" {
		return false, false, fmt.Errorf("ended %s with code %d signal %q, want exited with 3", info.State, info.ExitCode, info.Signal)
	}
	if tail := s.StderrTail(2); len(tail) != 1 || tail[0] != marker {
		return false, false, fmt.Errorf("stderr tail %q, want [%s]", tail, marker)
	}
	return sendOK, sendExited, nil
}
