package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// projectionFields are the members of the JSON report that the projection
// decides: the era and the handshake, what the server declared and offers,
// the process, the pairing of requests, every finding and the counts.
var projectionFields = []string{
	"era", "protocolVersion", "serverInfo", "process", "frames", "requests",
	"findings", "summary", "totals", "definitions", "rules", "linesmanNotes",
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
	var names []string
	for name := range fakeServers {
		if strings.HasSuffix(name, "-flood") {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "run.jsonl")
			args := append([]string{"check", "--json", "--timeout", "3s", "--capture", path}, fakeServerArgs(name)...)
			_, live, errOut := runBinary(t, nil, args...)
			if !json.Valid(live) {
				t.Fatalf("check printed no report:\n%s\nstderr:\n%s", live, errOut)
			}
			_, replayed, errOut := runBinary(t, nil, "export", path, "--format", "findings")
			if !json.Valid(replayed) {
				t.Fatalf("export printed no report:\n%s\nstderr:\n%s", replayed, errOut)
			}
			replayIsLive(t, live, replayed)
		})
	}
}
