package eventlog

import (
	"slices"
	"strings"
	"testing"
	"time"

	"linesman/wire"
)

// hostCodes folds a conversation (as fold does) and returns the codes of
// the host rules it raised, on frames and settled apart, in order.
func hostCodes(t *testing.T, events ...any) []string {
	t.Helper()
	tr := NewTracker(TrackerOptions{})
	var got []string
	for i, e := range events {
		ev := Event{Seq: uint64(i + 1), At: ms(10 * (i + 1))}
		switch e := e.(type) {
		case string:
			ev.Type, ev.Dir = EventFrame, wire.ClientToServer
			if e[:2] == "s>" {
				ev.Dir = wire.ServerToClient
			}
			ev.Frame = mkFrame(e[2:])
		case ProcessEvent:
			ev.Type, ev.Process = EventProcess, &e
		case Event:
			e.Seq, e.At = ev.Seq, ev.At
			ev = e
		}
		var fs []wire.Finding
		for _, lf := range tr.Apply(&ev) {
			fs = append(fs, lf.Finding)
		}
		if ev.Frame != nil {
			fs = append(fs, ev.Frame.Findings...)
		}
		for _, f := range fs {
			if strings.HasPrefix(f.Code, "host-") || f.Code == "initialize-not-first" {
				got = append(got, f.Code)
			}
		}
	}
	return got
}

const (
	hostInit     = `c>{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}`
	hostInitRes  = `s>{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	hostInited   = `c>{"jsonrpc":"2.0","method":"notifications/initialized"}`
	hostList     = `c>{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	hostDiscover = `c>{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"h","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	hostNotFound = `s>{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`
	hostModern   = `s>{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	hostUnsupp   = `s>{"jsonrpc":"2.0","id":0,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-09-01"],"requested":"2026-07-28"}}}`
	hostModList  = `c>{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"h","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
)

func hostSignal(step ShutdownStep, sig string) ProcessEvent {
	return ProcessEvent{State: StateExiting, Step: step, Signal: sig, ByHost: true}
}

var hostStdinClosed = Event{Type: EventStdinClosed, Stdin: &StdinEvent{ByHost: true}}

// TestHostRules: each host rule, with a conversation that breaks it and
// one that does not.
func TestHostRules(t *testing.T) {
	exited := ProcessEvent{State: StateExited, ExitCode: -1, Signal: "SIGTERM", Step: StepSIGTERM, ByHost: true}
	cases := []struct {
		name   string
		events []any
		want   []string
	}{
		// The probe and its fallback.
		{"legacy answer, modern requests", []any{hostDiscover, hostNotFound, hostModList}, []string{"host-fallback-missing"}},
		{"legacy answer, fallback", []any{hostDiscover, hostNotFound, hostInit, hostInitRes, hostInited, hostList}, nil},
		{"-32602 is legacy too", []any{hostDiscover, `s>{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"bad"}}`, hostModList}, []string{"host-fallback-missing"}},
		{"modern answer, initialize", []any{hostDiscover, hostModern, hostInit}, []string{"host-fallback-needless"}},
		{"-32022, initialize", []any{hostDiscover, hostUnsupp, hostInit}, []string{"host-fallback-needless"}},
		{"modern answer, modern requests", []any{hostDiscover, hostModern, hostModList}, nil},
		{"no answer, fallback", []any{hostDiscover, hostInit, hostInitRes, hostInited}, nil},
		{"the client pinned its era", []any{Event{Type: EventEra, Era: &EraDecision{Era: EraModern, Version: "2026-07-28"}}, hostDiscover, hostNotFound, hostModList}, nil},

		// Cancelling initialize.
		{"cancel initialize", []any{hostInit, `c>{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`}, []string{"host-cancel-initialize"}},
		{"cancel a call", []any{hostInit, hostInitRes, hostInited, hostList, `c>{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`}, nil},

		// Re-initialising a restarted server.
		{"restart, no initialize", []any{hostInit, hostInitRes, hostInited, Event{Type: EventRestart, Restart: &RestartEvent{N: 1}}, hostList}, []string{"host-restart-not-reinitialized"}},
		{"restart, initialize", []any{hostInit, hostInitRes, hostInited, Event{Type: EventRestart, Restart: &RestartEvent{N: 1}}, hostInit, hostInitRes, hostInited, hostList}, nil},
		{"no restart, no initialize", []any{hostList}, []string{"initialize-not-first"}},

		// The shutdown sequence.
		{"signal with stdin open", []any{hostInit, hostInitRes, hostSignal(StepSIGTERM, "SIGTERM"), exited}, []string{"host-signal-before-close"}},
		{"kill at once", []any{hostInit, hostInitRes, hostStdinClosed, hostSignal(StepSIGKILL, "SIGKILL")}, []string{"host-kill-first"}},
		{"kill without close or term", []any{hostSignal(StepSIGKILL, "SIGKILL")}, []string{"host-signal-before-close", "host-kill-first"}},
		{"close, term, kill", []any{hostInit, hostInitRes, hostStdinClosed, hostSignal(StepSIGTERM, "SIGTERM"), hostSignal(StepSIGKILL, "SIGKILL")}, nil},
		{"linesman's own ladder", []any{ProcessEvent{State: StateExiting, Step: StepSIGKILL, Signal: "SIGKILL"}}, nil},
		{"close logged after the signal it came before", []any{hostInit, hostInitRes, ProcessEvent{State: StateExiting, Step: StepSIGTERM, Signal: "SIGTERM", ByHost: true, AfterEOF: true}, hostStdinClosed}, nil},
		{"a signal after the exit", []any{hostStdinClosed, ProcessEvent{State: StateExited, AfterEOF: true, ByHost: true}, hostSignal(StepSIGTERM, "SIGTERM")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := hostCodes(t, tc.events...); !slices.Equal(got, tc.want) {
				t.Errorf("host findings %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHostRulesHoldTheHost: every host rule's finding holds the host at
// fault wherever it points, and a finding logged apart from a frame that is
// no host rule's (a timeout of the host's request) holds the server.
func TestHostRulesHoldTheHost(t *testing.T) {
	for _, i := range wire.Codes() {
		if strings.HasPrefix(i.Code, "host-") != (i.Party == wire.PartyHost) {
			t.Errorf("%s: party %v", i.Code, i.Party)
		}
	}
	if p := wire.PartyOf("host-kill-first", 0, false); p != wire.PartyHost {
		t.Errorf("host-kill-first: %v", p)
	}
	if p := wire.PartyOf("request-timeout", wire.ClientToServer, false); p != wire.PartyServer {
		t.Errorf("a timeout of the host's request: %v", p)
	}
	if p := wire.PartyOf("reused-id", wire.ClientToServer, true); p != wire.PartyHost {
		t.Errorf("the host's reused id: %v", p)
	}
	if p := wire.PartyOf("reused-id", wire.ServerToClient, true); p != wire.PartyServer {
		t.Errorf("the server's reused id: %v", p)
	}
}

// TestServerIgnoresTheHostsShutdown: under a tap the host runs the
// shutdown, and the server is held to its side of it as linesman's own
// ladder holds it: still running when the host signals it, a second and a
// half or more after the host closed its stdin, it ignored the close
// (ignored-stdin-eof; the go-sdk client waits 5 s, the TypeScript SDK's 2 s);
// still running that long after the host's SIGTERM, it needed SIGKILL
// (needed-sigkill). A host that signals sooner, or a server that exits on
// the close, draws neither; neither is the host's.
func TestServerIgnoresTheHostsShutdown(t *testing.T) {
	closed := func(at time.Duration) Event {
		return Event{Type: EventStdinClosed, At: at, Stdin: &StdinEvent{ByHost: true}}
	}
	sig := func(at time.Duration, step ShutdownStep, name string) Event {
		return Event{Type: EventProcess, At: at, Process: &ProcessEvent{State: StateExiting, Step: step, Signal: name, ByHost: true, AfterEOF: true}}
	}
	exit := func(at time.Duration) Event {
		return Event{Type: EventProcess, At: at, Process: &ProcessEvent{State: StateExited, ExitCode: 0, AfterEOF: true, ByHost: true}}
	}
	s := time.Second
	cases := []struct {
		name   string
		events []Event
		want   []string
	}{
		{"term 5 s after the close", []Event{closed(s), sig(6*s, StepSIGTERM, "SIGTERM")}, []string{"ignored-stdin-eof"}},
		{"term 2 s after the close, kill 2 s later", []Event{closed(s), sig(3*s, StepSIGTERM, "SIGTERM"), sig(5*s, StepSIGKILL, "SIGKILL")}, []string{"ignored-stdin-eof", "needed-sigkill"}},
		{"kill 2 s after the close", []Event{closed(s), sig(3*s, StepSIGKILL, "SIGKILL")}, []string{"ignored-stdin-eof", "host-kill-first"}},
		{"term at once after the close", []Event{closed(s), sig(s+5*time.Millisecond, StepSIGTERM, "SIGTERM")}, nil},
		{"term at once, kill at once", []Event{closed(s), sig(s+time.Millisecond, StepSIGTERM, "SIGTERM"), sig(s+2*time.Millisecond, StepSIGKILL, "SIGKILL")}, nil},
		{"exits on the close", []Event{closed(s), exit(s + 10*time.Millisecond), sig(6*s, StepSIGTERM, "SIGTERM")}, nil},
		{"term without a close", []Event{{Type: EventProcess, At: 6 * s, Process: &ProcessEvent{State: StateExiting, Step: StepSIGTERM, Signal: "SIGTERM", ByHost: true}}}, []string{"host-signal-before-close"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(TrackerOptions{})
			var got []string
			for i, ev := range tc.events {
				ev.Seq = uint64(i + 1)
				for _, lf := range tr.Apply(&ev) {
					got = append(got, lf.Finding.Code)
					if want := strings.HasPrefix(lf.Finding.Code, "host-"); (wire.PartyOf(lf.Finding.Code, lf.Dir, false) == wire.PartyHost) != want {
						t.Errorf("%s holds the wrong party", lf.Finding.Code)
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
