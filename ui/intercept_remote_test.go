package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// controllerLog is a Controller that records what it is asked.
type controllerLog struct {
	calls []string
	fail  error
}

func (c *controllerLog) Arm(filter string) error {
	c.calls = append(c.calls, "arm "+filter)
	return c.fail
}

func (c *controllerLog) Release(hold uint64, edited []byte) error {
	c.calls = append(c.calls, fmt.Sprintf("release %d %s", hold, strings.TrimSuffix(string(edited), "\n")))
	return nil
}

func (c *controllerLog) Drop(hold uint64) error {
	c.calls = append(c.calls, fmt.Sprintf("drop %d", hold))
	return nil
}

// TestInterceptThroughController: following a tap that accepts a
// controller (Session nil, Options.Controller set), i arms the tap with the
// filter's words, and on a held row a releases, e edits (ctrl+s releases
// the edit) and d drops — each asked of the controller; a filter the tap
// refuses is said and not shown as armed. Without a controller the keys
// say why they do nothing.
func TestInterceptThroughController(t *testing.T) {
	f := newFixture(t)
	f.c2s(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	held := func(hold uint64, id string) uint64 {
		fr := wire.FramesOf(callEcho(id, "hi"), wire.Options{})[0]
		f.step(1)
		return f.append(eventlog.Event{Type: eventlog.EventIntercept, Dir: wire.ClientToServer, Frame: fr,
			Intercept: &eventlog.InterceptEvent{Action: eventlog.InterceptHeld, Hold: hold, Dir: wire.ClientToServer, Filter: "tool:echo"}})
	}
	first, second := held(1, "5"), held(2, "6")

	ctl := &controllerLog{}
	m := f.model(80, 24, nil)
	m.opts.ReadOnly = "a tap is read-only"
	if why := m.whyNoIntercept(); why == "" {
		t.Fatal("intercept offered with no controller")
	}
	m.opts.Controller = ctl

	arm(m, "tool:echo")
	if m.c.icptFilter != "tool:echo" {
		t.Fatalf("armed %q (message %q)", m.c.icptFilter, m.message)
	}
	m.frames.follow = false
	m.frames.selectSeq(first)
	m.refresh()
	press(m, "e")
	if !m.composer.open {
		t.Fatalf("e did not open the composer: %q", m.message)
	}
	m.composer.openText("edit", strings.Replace(string(callEcho("5", "edited")), "\n", "", 1))
	m.composer.hold, m.composer.holdDir = 1, wire.ClientToServer
	press(m, "ctrl+s")
	m.frames.selectSeq(second)
	m.refresh()
	press(m, "d")

	want := []string{"arm tool:echo", `release 1 {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"edited"}}}`, "drop 2"}
	if strings.Join(ctl.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the controller was asked\n%s\nwant\n%s\n(message %q)", strings.Join(ctl.calls, "\n"), strings.Join(want, "\n"), m.message)
	}
	ctl.fail = errors.New("the tap is gone")
	arm(m, "method:x")
	if m.c.icptFilter != "tool:echo" || !strings.Contains(m.message, "the tap did not take it") {
		t.Fatalf("a refused filter: armed %q, message %q", m.c.icptFilter, m.message)
	}
}
