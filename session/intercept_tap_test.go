package session

import (
	"bytes"
	"strings"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// TestInterceptTap: a tap started with Config.Intercept holds the host's
// frames before the server (cat, which echoes them) and the server's
// before the host. A held host request edited reaches the server as
// edited; a held server frame edited reaches the host as edited; a dropped
// host request is answered to the host by linesman and never reaches the
// server; the log has every step. Without Intercept nothing is held.
func TestInterceptTap(t *testing.T) {
	log := eventlog.NewLog(0)
	tee := &teeBuffer{}
	s, err := Start(Config{Command: []string{"cat"}, Log: log, Observe: true, NoHandshake: true, StdoutTee: tee, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	in := s.Inlet()
	teeHas := func(what, text string) {
		t.Helper()
		waitFor(t, what, func() bool { return strings.Contains(string(tee.bytes()), text) })
	}
	call := func(id, name string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `"}}` + "\n"
	}
	s.SetInterceptor(holdWhen(wire.ClientToServer, func(m *wire.Message) bool { return m.Method == "tools/call" }), "method:tools/call dir:c2s")
	in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/a"}` + "\n" + call("1", "orig")[:20]))
	in.Write([]byte(call("1", "orig")[20:]))
	h := waitHeld(t, s, 1)[0]
	teeHas("the notification past the held call", "notifications/a")
	if err := s.Release(h.Hold, []byte(call("1", "edited"))); err != nil {
		t.Fatal(err)
	}
	teeHas("the edited call, echoed", `"edited"`)
	if strings.Contains(string(tee.bytes()), `"orig"`) {
		t.Fatalf("the held call reached the server as it was: %q", tee.bytes())
	}
	in.Write([]byte(call("2", "gone")))
	if err := s.Drop(waitHeld(t, s, 1)[0].Hold); err != nil {
		t.Fatal(err)
	}
	teeHas("linesman's answer to the dropped request", `"code":-32050`)
	if !bytes.Contains(tee.bytes(), []byte(`"id":2`)) {
		t.Fatalf("the answer is not to id 2: %q", tee.bytes())
	}

	s.SetInterceptor(holdWhen(wire.ServerToClient, func(m *wire.Message) bool { return m.Method == "ping" }), "method:ping dir:s2c")
	in.Write([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n"))
	h = waitHeld(t, s, 1)[0]
	if h.Dir != wire.ServerToClient || bytes.Contains(tee.bytes(), []byte(`"id":7`)) {
		t.Fatalf("the server's ping was not held before the host: %+v %q", h, tee.bytes())
	}
	if err := s.Release(h.Hold, []byte(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"edited":true}}`)); err != nil {
		t.Fatal(err)
	}
	teeHas("the server's edited ping", `"edited":true}}`+"\n")
	s.SetInterceptor(nil, "")
	in.Close()
	waitClosed(t, s.Done(), "the session's end")

	if got := framesWith(s, wire.ClientToServer, `"gone"`); len(got) != 0 {
		t.Errorf("the dropped request was logged as crossing the wire")
	}
	if got := framesWith(s, wire.ClientToServer, `"edited"`); len(got) != 1 {
		t.Errorf("the edited request was not logged as crossing: %d", len(got))
	}
	var steps []string
	for _, ev := range interceptEvents(s) {
		steps = append(steps, string(ev.Intercept.Action)+" "+ev.Intercept.Dir.String())
	}
	want := "held c2s,edited c2s,held c2s,dropped c2s,held s2c,edited s2c"
	if strings.Join(steps, ",") != want {
		t.Errorf("intercept events %v, want %s\n%s", steps, want, dumpLog(log))
	}
}
