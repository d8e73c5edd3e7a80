package report

import (
	"strings"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// TestTotalsExactPastRetention floods a log with a million frames under a
// 1 MiB retention budget: the report's totals, summary and stderr count
// every frame, byte, finding and request exactly; the era decision logged
// first is still among the notes; the report says what it does not list.
func TestTotalsExactPastRetention(t *testing.T) {
	if testing.Short() {
		t.Skip("a million frames")
	}
	const flood = 1_000_000
	log := eventlog.NewLog(1 << 20)
	tr := eventlog.NewTracker(eventlog.TrackerOptions{})
	var bytes [3]int64
	frame := func(dir wire.Dir, f *wire.Frame) {
		bytes[dir] += f.Size()
		log.AppendWith(func(seq uint64, at time.Duration) eventlog.Event {
			tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: seq, Dir: dir, Frame: f, At: at})
			return eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: f}
		})
	}
	one := func(s string) *wire.Frame { return wire.FramesOf([]byte(s+"\n"), wire.Options{})[0] }
	log.AppendWith(func(seq uint64, at time.Duration) eventlog.Event {
		ev := eventlog.Event{Type: eventlog.EventEra, Era: &eventlog.EraDecision{Era: eventlog.EraLegacy, Version: "2025-11-25"},
			Note: "era legacy, as asked", At: at}
		tr.Apply(&ev)
		return ev
	})
	frame(wire.ClientToServer, one(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`))
	frame(wire.ServerToClient, one(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"flood","version":"1"}}}`))
	frame(wire.ClientToServer, one(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	// The flood shares two frames (log events are immutable): a log message,
	// and every thousandth a stray print.
	msg := one(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"tick"}}`)
	stray := one(`stray print`)
	for i := 1; i <= flood; i++ {
		if i%1000 == 0 {
			frame(wire.ServerToClient, stray)
		} else {
			frame(wire.ServerToClient, msg)
		}
	}
	for i := 0; i < 3; i++ {
		log.Append(eventlog.Event{Type: eventlog.EventStderr, Stderr: &wire.Line{Content: []byte("err"), Term: wire.TermLF, Length: 3}})
	}
	frame(wire.ClientToServer, one(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	frame(wire.ServerToClient, one(`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`))

	r := FromLog(log, tr, Meta{Mode: "check"})
	tot := r.Totals
	if tot.Frames.C2S != 3 || tot.Frames.S2C != flood+2 {
		t.Errorf("frames: %+v, want 3 and %d", tot.Frames, flood+2)
	}
	if tot.Bytes.C2S != bytes[wire.ClientToServer] || tot.Bytes.S2C != bytes[wire.ServerToClient] {
		t.Errorf("bytes: %+v, want %d and %d", tot.Bytes, bytes[wire.ClientToServer], bytes[wire.ServerToClient])
	}
	if tot.Findings["non-json-line"] != flood/1000 || r.Summary.Errors != flood/1000 {
		t.Errorf("findings %v, summary %+v: want %d non-json-line errors", tot.Findings, r.Summary, flood/1000)
	}
	if r.Summary.Frames != flood+5 || tot.StderrLines != 3 || r.StderrLines != 3 {
		t.Errorf("summary %+v, stderr lines %d/%d", r.Summary, tot.StderrLines, r.StderrLines)
	}
	if tot.Requests["answered"] != 2 || len(tot.Requests) != 1 {
		t.Errorf("requests by state: %v", tot.Requests)
	}
	if len(r.Notes) != 1 || r.Notes[0].Text != "era legacy, as asked" || r.Era != "legacy" {
		t.Errorf("notes %+v, era %s: the era decision must survive retention", r.Notes, r.Era)
	}
	d := r.Dropped
	if d == nil || d.Events == 0 || d.Frames != r.Summary.Frames-len(r.Frames) || d.Frames <= 0 ||
		d.Findings != flood/1000-len(r.Findings) {
		t.Fatalf("dropped: %+v (listed %d frames, %d findings)", d, len(r.Frames), len(r.Findings))
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3 frames sent, 1000002 received; 2 requests (2 answered)",
		"counted above but not listed", "linesman: era legacy, as asked", "1000 errors"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
}
