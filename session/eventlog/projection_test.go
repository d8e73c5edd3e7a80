package eventlog

import (
	"slices"
	"testing"

	"linesman/wire"
)

// fold applies JSON frames (c> for the client's, s> for the server's) and
// process events to a fresh tracker through its one door.
func fold(t *testing.T, events ...any) *Tracker {
	t.Helper()
	tr := NewTracker(TrackerOptions{})
	for i, e := range events {
		ev := Event{Seq: uint64(i + 1), At: ms(i + 1)}
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
		tr.Apply(&ev)
	}
	return tr
}

// TestOfferIsTheLatestListing: the offer is the most recent listing,
// whole — [a, b] then [a] offers [a] — its pages added up, and a
// list_changed (or a restart) marks it stale without forgetting it.
func TestOfferIsTheLatestListing(t *testing.T) {
	tr := fold(t,
		`c>{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`s>{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}}`,
		`c>{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`s>{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`,
	)
	o := tr.Offer()
	if got := o.Tools.Keys(); !slices.Equal(got, []string{"a"}) || !o.Tools.Listed || o.Tools.Stale {
		t.Fatalf("tools offered after [a, b] then [a]: %v (listed %v, stale %v); want [a]", got, o.Tools.Listed, o.Tools.Stale)
	}
	if o.Prompts.Listed {
		t.Errorf("prompts were never listed: %+v", o.Prompts)
	}

	tr = fold(t,
		`c>{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`s>{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}`,
		`c>{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2"}}`,
		`s>{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}}`,
		`c>{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`s>{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"busy"}}`,
		`s>{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	)
	o = tr.Offer()
	if got := o.Tools.Keys(); !slices.Equal(got, []string{"a", "b"}) || !o.Tools.Stale {
		t.Fatalf("two pages, a failed listing, then list_changed: %v stale %v; want [a b], stale", got, o.Tools.Stale)
	}
}

// TestDeclaresOneRule: null and false declare nothing, {} declares, a
// sub-capability only by true — for both sides.
func TestDeclaresOneRule(t *testing.T) {
	hs := Handshake{
		ServerCapabilities: []byte(`{"tools":null,"prompts":{},"logging":false,"resources":{"subscribe":true,"listChanged":false}}`),
		ClientCapabilities: []byte(`{"roots":{"listChanged":true},"sampling":null}`),
	}
	for _, c := range []struct {
		server bool
		cap    string
		want   bool
	}{
		{true, "tools", false}, {true, "prompts", true}, {true, "logging", false}, {true, "completions", false},
		{true, "resources", true}, {true, "resources.subscribe", true}, {true, "resources.listChanged", false},
		{false, "roots", true}, {false, "roots.listChanged", true}, {false, "sampling", false},
	} {
		got := hs.ClientDeclares(c.cap)
		if c.server {
			got = hs.ServerDeclares(c.cap)
		}
		if got != c.want {
			t.Errorf("declares %s (server %v) = %v, want %v", c.cap, c.server, got, c.want)
		}
	}
}

// TestEraOfADiscoverAnswerIsOneRule: a -32022 listing only legacy versions
// is legacy to the probe (DecideEra) and to the fold of the same bytes (a
// tap, check --from, view) alike; a -32022 listing a modern version is
// modern to both.
func TestEraOfADiscoverAnswerIsOneRule(t *testing.T) {
	discover := `c>{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, c := range []struct {
		answer string
		want   Era
	}{
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2025-06-18"]}}}`, EraLegacy},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2026-07-28"]}}}`, EraModern},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}`, EraLegacy},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, EraLegacy},
	} {
		probe, _, _ := DecideEra(mkFrame(c.answer))
		folded := fold(t, discover, "s>"+c.answer).Handshake().Era
		if probe != c.want || folded != c.want {
			t.Errorf("%s: probe says %s, the fold %s; want %s", c.answer, probe, folded, c.want)
		}
	}
}

// TestProcessExitStands: a shutdown step logged after the exit it led to
// (the signal and its log entry race) leaves the process exited; a start
// after the exit is a new process.
func TestProcessExitStands(t *testing.T) {
	tr := fold(t,
		ProcessEvent{State: StateRunning, Pid: 7},
		ProcessEvent{State: StateExited, Pid: 7, ExitCode: -1, Signal: "SIGTERM", Step: StepSIGTERM},
		ProcessEvent{State: StateExiting, Pid: 7, Step: StepSIGKILL},
	)
	if p := tr.Process(); p.State != StateExited || p.Signal != "SIGTERM" || p.Step != StepSIGTERM {
		t.Fatalf("after an exit and a late step: %+v; want exited by SIGTERM", p)
	}
	tr.Apply(&Event{Seq: 9, At: ms(9), Type: EventProcess, Process: &ProcessEvent{State: StateStarting}})
	if p := tr.Process(); p.State != StateStarting || p.Restarts != 1 {
		t.Fatalf("a start after the exit: %+v; want a new process, 1 restart", p)
	}
}

// TestProgressForNamesItsRequest: a notifications/progress frame leads to
// the request that offered its token, in flight or answered; a token no
// request offered leads nowhere.
func TestProgressForNamesItsRequest(t *testing.T) {
	tr := fold(t,
		`c>{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}}`,
		`s>{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`,
		`s>{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"zz","progress":1}}`,
		`s>{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":2}}`,
		`s>{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
	)
	for seq, want := range map[uint64]uint64{2: 1, 4: 1} {
		if got, ok := tr.ProgressFor(seq); !ok || got != want {
			t.Errorf("ProgressFor(%d) = %d, %v; want %d", seq, got, ok, want)
		}
	}
	for _, seq := range []uint64{1, 3, 5} {
		if got, ok := tr.ProgressFor(seq); ok {
			t.Errorf("ProgressFor(%d) = %d: it is no progress of a known request", seq, got)
		}
	}
}

// TestMissingResultTypeSaidOnce: a 2026-07-28 result without resultType is
// missing-result-type, once — the schema judge, whose union of
// InputRequiredResult | CallToolResult fails on the same member, names the
// member and leaves it to the rule that names it better.
func TestMissingResultTypeSaidOnce(t *testing.T) {
	res := mkFrame(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`)
	fold(t,
		Event{Type: EventEra, Era: &EraDecision{Era: EraModern, Version: ModernProtocolVersion}},
		`c>{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		Event{Type: EventFrame, Dir: wire.ServerToClient, Frame: res},
	)
	var codes []string
	for _, f := range res.Findings {
		codes = append(codes, f.Code)
	}
	if !slices.Equal(codes, []string{"missing-result-type"}) {
		t.Errorf("findings %v; want [missing-result-type]", codes)
	}
}
