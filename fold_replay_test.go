package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// projectionFields are the members of the JSON report that the projection
// decides: the era and the handshake, what the server declared and offers,
// the process, the pairing of requests, every finding and the counts.
var projectionFields = []string{
	"era", "protocolVersion", "serverInfo", "process", "frames", "requests",
	"findings", "host", "summary", "totals", "definitions", "rules", "linesmanNotes",
}

// replayIsLive compares the report of a live run with the report of its
// capture, reopened: the projection the capture rebuilds from the log must be
// the live one, field by field.
func replayIsLive(t *testing.T, live, replayed []byte) {
	t.Helper()
	var l, r map[string]json.RawMessage
	if err := json.Unmarshal(live, &l); err != nil {
		t.Fatalf("live report: %v\n%s", err, live)
	}
	if err := json.Unmarshal(replayed, &r); err != nil {
		t.Fatalf("replayed report: %v\n%s", err, replayed)
	}
	for _, k := range projectionFields {
		var lv, rv any
		_ = json.Unmarshal(l[k], &lv)
		_ = json.Unmarshal(r[k], &rv)
		if !reflect.DeepEqual(lv, rv) {
			t.Errorf("%s differs between the live run and its capture reopened:\nlive     %s\nreplayed %s", k, l[k], r[k])
		}
	}
}

// TestReplayEqualsLive is the fold's contract, held over every fake server
// of the suite that a check runs to its end (the floods are left out: past
// the retention budget the live log and its capture keep different windows,
// which the capture says with "dropped" records): check --capture, then
// export --format findings of the capture, which replays the recorded
// events into a fresh projection. Offer, declarations, era, process,
// findings and counts must come out the same.
func TestReplayEqualsLive(t *testing.T) {
	t.Parallel()
	var names []string
	for name := range fakeServers {
		if strings.HasSuffix(name, "-flood") {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	// Most of a run is the servers' own waits (a probe, a timeout, a
	// ladder's rung), not CPU: run several at once, then compare in order.
	type run struct{ live, replayed, errOut []byte }
	runs := make([]run, len(names))
	bin, dir := linesmanBinary(t), t.TempDir()
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			path := filepath.Join(dir, name+".jsonl")
			args := append([]string{"check", "--json", "--timeout", "3s", "--capture", path}, fakeServerArgs(name)...)
			runs[i].live, runs[i].errOut = runQuiet(bin, args...)
			runs[i].replayed, _ = runQuiet(bin, "export", path, "--format", "findings")
		}()
	}
	wg.Wait()
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			r := runs[i]
			if !json.Valid(r.live) || !json.Valid(r.replayed) {
				t.Fatalf("no report: live %q, replayed %q\nstderr:\n%s", r.live, r.replayed, r.errOut)
			}
			replayIsLive(t, r.live, r.replayed)
			linesmanIsNoFaultyHost(t, r.live)
		})
	}
}

// linesmanIsNoFaultyHost: check is the client of the run, and a finding
// that holds the host at fault would be of linesman's own making.
func linesmanIsNoFaultyHost(t *testing.T, report []byte) {
	t.Helper()
	var doc hostBlock
	if err := json.Unmarshal(report, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.hostParty(); len(got) > 0 {
		t.Errorf("linesman, the client of check, drew host findings %q", got)
	}
}

// runQuiet runs the real linesman with args, bounded by hangGuard, and
// returns its stdout and stderr; it may run on any goroutine.
func runQuiet(bin string, args ...string) (stdout, stderr []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	return out.Bytes(), errb.Bytes()
}
