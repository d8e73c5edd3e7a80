package capture

import (
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// TestRoundTripIntercept: every step of interception reads back as it was
// logged — a client's frame held then edited (the edit crossing the wire),
// one dropped with linesman's answer, a server's frame held then released —
// and the rebuilt projection agrees with the live one: no request timed out
// while the server's stdout was held, nothing is held at the end.
func TestRoundTripIntercept(t *testing.T) {
	const timeout = 20 * time.Millisecond
	s := newScript(0, 0)
	s.tr = eventlog.NewTracker(eventlog.TrackerOptions{Timeout: timeout})
	held := func(raw string) *wire.Frame { return wire.FramesOf([]byte(raw), wire.Options{})[0] }
	icept := func(ie eventlog.InterceptEvent, f *wire.Frame, note string) {
		ev := eventlog.Event{Type: eventlog.EventIntercept, Intercept: &ie, Note: note}
		if f != nil {
			ev.Dir, ev.Frame = ie.Dir, f
		}
		s.fact(ev)
	}
	c2s := wire.ClientToServer
	icept(eventlog.InterceptEvent{Action: eventlog.InterceptHeld, Hold: 1, Dir: c2s, Filter: "method:tools/call"},
		held("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n"), "held #1")
	edit := held("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"b\\u00e9\"}}\n")
	icept(eventlog.InterceptEvent{Action: eventlog.InterceptEdited, Hold: 1, Dir: c2s}, edit, "edited #1")
	s.send(string(edit.Raw()))
	icept(eventlog.InterceptEvent{Action: eventlog.InterceptHeld, Hold: 2, Dir: c2s, Filter: "method:tools/call"},
		held("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}\n"), "held #2")
	icept(eventlog.InterceptEvent{Action: eventlog.InterceptDropped, Hold: 2, Dir: c2s,
		Answer: `{"jsonrpc":"2.0","id":2,"error":{"code":-32050,"message":"dropped by linesman (intercept)"}}`}, nil, "dropped #2")
	s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n")
	s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"))
	_, next := s.log.Bounds()
	icept(eventlog.InterceptEvent{Action: eventlog.InterceptHeld, Hold: 3, Dir: wire.ServerToClient, FrameSeq: next - 1, Filter: "dir:s2c"}, nil, "held #3")
	time.Sleep(3 * timeout) // held past request 3's deadline: no timeout
	if _, ok := s.tr.NextDeadline(); ok {
		t.Error("a deadline runs while the server's stdout is held")
	}
	icept(eventlog.InterceptEvent{Action: eventlog.InterceptReleased, Hold: 3, Dir: wire.ServerToClient, FrameSeq: next - 1}, nil, "released #3")
	s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n"))

	c, err := Open(record(t, s.log, Header{TimeoutNs: int64(timeout)}))
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, s.log, c.Log)
	if got := c.Tracker.Intercepts(); got[eventlog.InterceptHeld] != 3 || got[eventlog.InterceptEdited] != 1 || got[eventlog.InterceptDropped] != 1 {
		t.Errorf("intercepts read back %v", got)
	}
	if len(c.Tracker.Held()) != 0 {
		t.Errorf("held at the end: %v", c.Tracker.Held())
	}
	if a, ok := c.Tracker.Intercepted(next - 1); !ok || a != eventlog.InterceptReleased {
		t.Errorf("the server's frame: %v %v", a, ok)
	}
	for _, r := range c.Tracker.Requests() {
		if r.TimedOut {
			t.Errorf("request %s timed out", r.ID)
		}
	}
}
