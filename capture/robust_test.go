package capture

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linesman/session/eventlog"
)

// TestCreateLocksTheFile: a second recorder aimed at a file another one is
// writing fails with ErrBusy instead of truncating it and interleaving its
// records (two runs used to leave "seq 4 is not after the last event
// (29)": a file no reader could open); the first recorder's file is whole,
// and once it is closed the name is free again.
func TestCreateLocksTheFile(t *testing.T) {
	s := newScript(0, 0)
	s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
	path := filepath.Join(t.TempDir(), "shared.jsonl")
	first, err := Create(path, s.log, Header{Command: []string{"srv"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckNotBusy(path); !errors.Is(err, ErrBusy) {
		t.Errorf("CheckNotBusy while recording: %v, want ErrBusy", err)
	}
	other := newScript(0, 0)
	other.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"other\"}\n")
	if r, err := Create(path, other.log, Header{Command: []string{"other"}}); !errors.Is(err, ErrBusy) {
		if r != nil {
			r.Close()
		}
		t.Fatalf("a second recorder on the same file: %v, want ErrBusy", err)
	}
	s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := Open(path)
	if err != nil || c.SkippedCount != 0 || c.Records != 2 || c.Header.Command[0] != "srv" {
		t.Fatalf("the first recorder's file: %v, %+v", err, c)
	}
	if err := CheckNotBusy(path); err != nil {
		t.Errorf("CheckNotBusy after the recorder closed: %v", err)
	}
	second, err := Create(path, other.log, Header{Command: []string{"other"}})
	if err != nil {
		t.Fatalf("the name is not free after Close: %v", err)
	}
	second.Close()
}

// TestOpenSkipsBadRecords: records written over each other by two writers
// (seqs going back), a line of garbage and a record of an unknown shape
// are skipped with their line numbers; everything else opens.
func TestOpenSkipsBadRecords(t *testing.T) {
	hdr := `{"type":"header","format":"linesman-capture","version":1,"start":"2026-01-02T03:04:05Z"}`
	frame := func(seq, id string) string {
		return `{"type":"frame","seq":` + seq + `,"at":5,"dir":"c2s","lines":[{"text":"{\"jsonrpc\":\"2.0\",\"id\":` + id + `,\"method\":\"ping\"}","term":"lf","len":40}]}`
	}
	text := strings.Join([]string{hdr, frame("1", "1"), frame("2", "2"), frame("1", "9"), "\x1b]0;garbage\x07 {oops", frame("3", "3"),
		`{"type":"note","seq":4,"at":7,"note":"kept"}`}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "interleaved.jsonl")
	os.WriteFile(path, []byte(text), 0o600)
	c, err := Open(path)
	if err != nil {
		t.Fatalf("one bad record made the whole file unreadable: %v", err)
	}
	if c.SkippedCount != 2 || len(c.Skipped) != 2 || c.Skipped[0].Line != 4 || c.Skipped[1].Line != 5 {
		t.Fatalf("skipped %+v, want lines 4 and 5", c.Skipped)
	}
	if !strings.Contains(c.Skipped[0].Reason, "seq") || c.Log.Len() != 4 {
		t.Errorf("skipped %+v; log has %d events, want 4", c.Skipped, c.Log.Len())
	}
}

// TestOpenBoundsLines: a file with no newline (/dev/zero never ends) is
// refused once its first line passes the header's bound instead of being
// read into memory without end; a record line longer than any record can
// be is skipped as it streams by, and the records after it are read.
func TestOpenBoundsLines(t *testing.T) {
	if _, err := Open("/dev/zero"); !errors.Is(err, ErrNotCapture) || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("/dev/zero: %v, want ErrNotCapture (first line too long)", err)
	}
	hdr := `{"type":"header","format":"linesman-capture","version":1,"start":"2026-01-02T03:04:05Z","maxFrame":1024}` + "\n"
	path := filepath.Join(t.TempDir(), "overlong.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(hdr)
	junk := strings.Repeat("x", 1<<20)
	for range 3 { // 3 MiB, past 6×1024 + 1 MiB
		f.WriteString(junk)
	}
	f.WriteString("\n" + `{"type":"note","seq":1,"at":7,"note":"after"}` + "\n")
	f.Close()
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.SkippedCount != 1 || c.Skipped[0].Line != 2 || c.Skipped[0].Bytes != 3<<20 || c.Log.Len() != 1 {
		t.Errorf("skipped %+v, log %d events", c.Skipped, c.Log.Len())
	}
	if ev, _ := c.Log.Get(1); ev.Type != eventlog.EventNote || ev.Note != "after" {
		t.Errorf("the record after the long line: %+v", ev)
	}
}
