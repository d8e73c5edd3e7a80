package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// holdWhen is an interceptor holding the frames going dir that cond likes.
func holdWhen(dir wire.Dir, cond func(m *wire.Message) bool) Interceptor {
	return func(d wire.Dir, f *wire.Frame) bool { return d == dir && cond(&f.Msg) }
}

// waitHeld waits until n frames are held and returns them.
func waitHeld(t *testing.T, s *Session, n int) []HeldFrame {
	t.Helper()
	waitFor(t, "a held frame", func() bool { return len(s.Held()) == n })
	return s.Held()
}

// frameWith returns the frames of the log going dir whose bytes hold text.
func framesWith(s *Session, dir wire.Dir, text string) []eventlog.Event {
	var out []eventlog.Event
	first, end := s.Log().Bounds()
	for _, ev := range s.Log().Range(first, end) {
		if ev.Type == eventlog.EventFrame && ev.Dir == dir && strings.Contains(string(ev.Frame.Raw()), text) {
			out = append(out, ev)
		}
	}
	return out
}

func interceptEvents(s *Session) []eventlog.Event {
	var out []eventlog.Event
	first, end := s.Log().Bounds()
	for _, ev := range s.Log().Range(first, end) {
		if ev.Type == eventlog.EventIntercept {
			out = append(out, ev)
		}
	}
	return out
}

func TestInterceptClientFrames(t *testing.T) {
	s := startProto(t, "proto-legacy", Config{Era: eventlog.EraLegacy})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	s.SetInterceptor(holdWhen(wire.ClientToServer, func(m *wire.Message) bool { return m.Method == "tools/call" }), "method:tools/call dir:c2s")
	call := func(id, name string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `"}}` + "\n")
	}
	// Held: not written, not logged as a frame; the frames of the same
	// Send that do not match go on.
	if err := s.Send(append([]byte(`{"jsonrpc":"2.0","method":"notifications/x"}`+"\n"), call("100", "first")...)); err != nil {
		t.Fatal(err)
	}
	h := waitHeld(t, s, 1)[0]
	if h.Dir != wire.ClientToServer || h.Frame.Msg.ID != wire.IntID(100) {
		t.Fatalf("held %+v", h)
	}
	if len(framesWith(s, wire.ClientToServer, `"first"`)) != 0 || len(framesWith(s, wire.ClientToServer, "notifications/x")) != 1 {
		t.Fatalf("the held frame was logged, or the other one not:\n%s", dumpLog(s.Log()))
	}
	// Edited: the edit crosses the wire and is what the log's frame holds.
	if err := s.Release(h.Hold, call("100", "edited")); err != nil {
		t.Fatal(err)
	}
	waitLog(t, s, "the answer to 100", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFrame && ev.Dir == wire.ServerToClient && ev.Frame.Msg.ID == wire.IntID(100)
	})
	if sent := framesWith(s, wire.ClientToServer, `"edited"`); len(sent) != 1 {
		t.Fatalf("the edit was not sent:\n%s", dumpLog(s.Log()))
	}
	// Dropped: never sent; linesman's answer is in the event.
	if err := s.Send(call("101", "dropme")); err != nil {
		t.Fatal(err)
	}
	h = waitHeld(t, s, 1)[0]
	if err := s.Drop(h.Hold); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop(h.Hold); !errors.Is(err, ErrNotHeld) {
		t.Errorf("dropping twice: %v", err)
	}
	// Released as it was.
	if err := s.Send(call("102", "asis")); err != nil {
		t.Fatal(err)
	}
	h = waitHeld(t, s, 1)[0]
	if err := s.Release(h.Hold, nil); err != nil {
		t.Fatal(err)
	}
	waitLog(t, s, "the answer to 102", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFrame && ev.Dir == wire.ServerToClient && ev.Frame.Msg.ID == wire.IntID(102)
	})
	if len(framesWith(s, wire.ClientToServer, `"dropme"`)) != 0 || len(framesWith(s, wire.ClientToServer, `"asis"`)) != 1 {
		t.Fatalf("wire:\n%s", dumpLog(s.Log()))
	}
	var steps []string
	for _, ev := range interceptEvents(s) {
		steps = append(steps, string(ev.Intercept.Action))
		if ev.Intercept.Action == eventlog.InterceptDropped && !strings.Contains(ev.Intercept.Answer, "-32050") {
			t.Errorf("dropped request answered with %q", ev.Intercept.Answer)
		}
	}
	if got := strings.Join(steps, " "); got != "held edited held dropped held released" {
		t.Errorf("intercept events %q", got)
	}
	if n := s.Tracker().Intercepts(); n[eventlog.InterceptHeld] != 3 || len(s.Tracker().Held()) != 0 {
		t.Errorf("projection: %v, held %v", n, s.Tracker().Held())
	}
}

func TestInterceptServerRequestDropped(t *testing.T) {
	s := startProto(t, "proto-asks", Config{Era: eventlog.EraLegacy})
	s.SetInterceptor(holdWhen(wire.ServerToClient, func(m *wire.Message) bool { return m.Method == "roots/list" }), "method:roots/list")
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	h := waitHeld(t, s, 1)[0]
	if h.Seq == 0 || h.Frame.Msg.Method != "roots/list" {
		t.Fatalf("held %+v", h)
	}
	// The stdout reader waits: what the server wrote next is not read.
	time.Sleep(200 * time.Millisecond)
	if got := framesWith(s, wire.ServerToClient, "sampling/createMessage"); len(got) != 0 {
		t.Fatalf("the server's next frame was read while one was held:\n%s", dumpLog(s.Log()))
	}
	if got := framesWith(s, wire.ClientToServer, `"roots":[`); len(got) != 0 {
		t.Fatal("the client side answered a held request")
	}
	if err := s.Drop(h.Hold); err != nil {
		t.Fatal(err)
	}
	// linesman's error reaches the server; the rest is read again.
	ans := answerTo(t, s, 2)
	if ans.Msg.Kind != wire.KindError || ans.Msg.ErrorCode() != eventlog.CodeInterceptDropped {
		t.Errorf("the dropped request was answered %s", ans.Raw())
	}
	waitLog(t, s, "the server reporting the error", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventStderr && strings.Contains(string(ev.Stderr.Content), "-32050")
	})
	waitLog(t, s, "the next server frame", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFrame && ev.Frame.Msg.Method == "sampling/createMessage"
	})
}

func TestInterceptServerAnswerEditedAndReleased(t *testing.T) {
	s := startProto(t, "proto-legacy", Config{Era: eventlog.EraLegacy, Timeout: 300 * time.Millisecond})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	// Hold the answers to the first call only (id 100).
	s.SetInterceptor(holdWhen(wire.ServerToClient, func(m *wire.Message) bool { return m.ID == wire.IntID(100) }), "id:100")
	req := func(id string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo"}}` + "\n")
	}
	if err := s.Send(append(req("100"), req("101")...)); err != nil {
		t.Fatal(err)
	}
	h := waitHeld(t, s, 1)[0]
	// Held longer than the timeout: the answer to 101 waits in the pipe,
	// and the server is not charged for linesman's wait.
	time.Sleep(time.Second)
	if err := s.Release(h.Hold, []byte(`{"jsonrpc":"2.0","id":100,"result":{"content":[{"type":"text","text":"edited"}]}}`)); err != nil {
		t.Fatal(err)
	}
	waitLog(t, s, "the answer to 101", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFrame && ev.Dir == wire.ServerToClient && ev.Frame.Msg.ID == wire.IntID(101)
	})
	time.Sleep(400 * time.Millisecond) // past a tick and the old deadline
	first, end := s.Log().Bounds()
	for _, ev := range s.Log().Range(first, end) {
		if ev.Type == eventlog.EventFinding && ev.Finding.Code == "request-timeout" {
			t.Errorf("the server was charged for the hold: %s", ev.Finding.Message)
		}
	}
	// The log's frame is what the server wrote; the edit is the event's.
	if len(framesWith(s, wire.ServerToClient, "edited")) != 0 {
		t.Error("the edit was logged as the server's frame")
	}
	evs := interceptEvents(s)
	if last := evs[len(evs)-1]; last.Intercept.Action != eventlog.InterceptEdited || !strings.Contains(string(last.Frame.Raw()), "edited") || last.Intercept.FrameSeq != h.Seq {
		t.Errorf("edited event %+v", last.Intercept)
	}

	// A Call waiting on a held answer gets it once released (as edited).
	s.SetInterceptor(holdWhen(wire.ServerToClient, func(m *wire.Message) bool { return m.Kind == wire.KindResult }), "kind:result")
	got := make(chan *wire.Frame, 1)
	go func() {
		f, err := s.Call(context.Background(), "tools/call", map[string]any{"name": "echo"})
		if err != nil {
			t.Error(err)
		}
		got <- f
	}()
	h = waitHeld(t, s, 1)[0]
	select {
	case f := <-got:
		t.Fatalf("Call saw a held answer: %s", f.Raw())
	case <-time.After(100 * time.Millisecond):
	}
	edited := strings.Replace(string(h.Frame.Raw()), "echo", "hacked", 1)
	if err := s.Release(h.Hold, []byte(edited)); err != nil {
		t.Fatal(err)
	}
	if f := <-got; !strings.Contains(string(f.Raw()), "hacked") {
		t.Errorf("Call got %s, want the edit", f.Raw())
	}
	s.SetInterceptor(nil, "")
}
