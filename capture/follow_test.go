package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"linesman/session/eventlog"
)

// waitLen waits until log holds n events, failing the test after a generous
// deadline (a guard against hanging, not a timing assertion).
func waitLen(t *testing.T, log *eventlog.Log, n int) {
	t.Helper()
	sig, cancel := log.Subscribe()
	defer cancel()
	deadline := time.After(time.Minute)
	for log.Len() < n {
		select {
		case <-sig:
		case <-deadline:
			t.Fatalf("the follower has %d events after a minute, want %d", log.Len(), n)
		}
	}
}

// TestFollowWhileWriting: a recorder writes a log that another goroutine
// keeps appending to (frames up to 256 KiB, so the follower often meets half
// a record), while a Follower tails the file; the follower's log ends up
// identical to the writer's, every event in order.
func TestFollowWhileWriting(t *testing.T) {
	s := newScript(0, 0)
	path := filepath.Join(t.TempDir(), "live.jsonl")
	rec, err := Create(path, s.log, Header{Command: []string{"srv"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()

	fl, err := Follow(context.Background(), path, FollowOptions{Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Stop()

	const n = 600
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			switch i % 4 {
			case 0:
				s.send(fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\"}\n", i))
			case 1:
				pad := strings.Repeat("x", (i*997)%(256<<10))
				s.serve(t, fmt.Appendf(nil, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"pad\":\"%s\"}}\n", i-1, pad))
			case 2:
				s.stderr(t, fmt.Appendf(nil, "\x1b[33mlog line %d\xff\n", i))
			case 3:
				s.note(fmt.Sprintf("note %d", i))
			}
		}
	}()
	<-done
	waitLen(t, fl.Capture().Log, n)
	if err := fl.Stop(); err != nil {
		t.Fatal(err)
	}
	sameEvents(t, s.log, fl.Capture().Log)
	if c := fl.Capture(); c.Torn != 0 {
		t.Errorf("torn %d after a clean write", c.Torn)
	}
}

// TestFollowPartialLineWaits: half a record is not an event yet; it becomes
// one when the rest arrives. A follower started before the header exists
// waits for it.
func TestFollowPartialLineWaits(t *testing.T) {
	s := newScript(0, 0)
	for i := range 3 {
		s.send(fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i))
	}
	full, err := os.ReadFile(record(t, s.log, Header{}))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n") // header, 3 records, ""

	path := filepath.Join(t.TempDir(), "growing.jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write := func(s string) {
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write(lines[0][:10]) // half a header

	type result struct {
		fl  *Follower
		err error
	}
	started := make(chan result)
	go func() {
		fl, err := Follow(context.Background(), path, FollowOptions{Poll: time.Millisecond})
		started <- result{fl, err}
	}()
	write(lines[0][10:] + lines[1] + lines[2][:20])
	r := <-started
	if r.err != nil {
		t.Fatal(r.err)
	}
	fl := r.fl
	defer fl.Stop()
	log := fl.Capture().Log
	waitLen(t, log, 1)
	// The follower has read to the end of the file, half a record included.
	write(lines[2][20:] + lines[3])
	waitLen(t, log, 3)
	if err := fl.Stop(); err != nil {
		t.Fatal(err)
	}
	sameEvents(t, s.log, log)

	// Stopped with half a record pending: reported as torn.
	write(lines[3][:5])
	fl2, err := Follow(context.Background(), path, FollowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := fl2.Stop(); err != nil {
		t.Fatal(err)
	}
	if c := fl2.Capture(); c.Torn != 5 || c.Log.Len() != 3 {
		t.Errorf("torn %d with %d events, want 5 with 3", c.Torn, c.Log.Len())
	}
}

func TestFollowGivesUpWithoutHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Follow(ctx, path, FollowOptions{}); err == nil {
		t.Fatal("Follow returned without a header")
	}
}

// TestFollowTruncated: a capture only grows; one that shrinks under the
// follower (a new recording over it) ends the follow with ErrTruncated
// rather than with a silent stall.
func TestFollowTruncated(t *testing.T) {
	s := newScript(0, 0)
	s.note("one")
	s.note("two")
	path := record(t, s.log, Header{})
	fl, err := Follow(context.Background(), path, FollowOptions{Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	waitLen(t, fl.Capture().Log, 2)
	if err := os.Truncate(path, 10); err != nil {
		t.Fatal(err)
	}
	select {
	case <-fl.Done():
	case <-time.After(time.Minute):
		t.Fatal("the follower did not notice the truncation in a minute")
	}
	if err := fl.Stop(); !errors.Is(err, ErrTruncated) {
		t.Errorf("Stop: %v, want ErrTruncated", err)
	}
}
