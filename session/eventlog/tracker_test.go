package eventlog

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"linesman/wire"
)

// A script step: a frame one way or the other, or an event of the session.
type step struct {
	at   time.Duration
	dir  wire.Dir // frame direction, or 0 for the events below
	json string
	ev   string // "tick", "close" (stdin closed), "exit", "restart"
}

func ms(n int) time.Duration  { return time.Duration(n) * time.Millisecond }
func sec(n int) time.Duration { return time.Duration(n) * time.Second }

func c(at time.Duration, json string) step  { return step{at: at, dir: wire.ClientToServer, json: json} }
func s(at time.Duration, json string) step  { return step{at: at, dir: wire.ServerToClient, json: json} }
func ev(at time.Duration, what string) step { return step{at: at, ev: what} }

// mkFrame classifies one JSON text into a frame, as the framer would.
func mkFrame(text string) *wire.Frame {
	msg, fs := wire.Classify([]byte(text))
	return &wire.Frame{
		Lines:    []wire.Line{{Content: []byte(text), Term: wire.TermLF, Length: int64(len(text))}},
		Msg:      msg,
		Findings: fs,
	}
}

// run plays a script through a fresh tracker. Each step gets the Seq of its
// position (1-based), as if every step were one logged event. It returns
// the protocol findings as "seq:code:severity" in the order raised.
func run(t *testing.T, tr *Tracker, steps []step) []string {
	t.Helper()
	var got []string
	for i, st := range steps {
		seq := uint64(i + 1)
		switch st.ev {
		case "":
			f := mkFrame(st.json)
			if f.Msg.Kind == wire.KindNonJSON || f.Msg.Kind == wire.KindInvalid {
				t.Fatalf("step %d: script frame is not JSON-RPC: %s", seq, st.json)
			}
			before := len(f.Findings)
			tr.frame(seq, st.dir, f, st.at)
			for _, fd := range f.Findings[before:] {
				got = append(got, fmt.Sprintf("%d:%s:%s", seq, fd.Code, fd.Severity))
			}
		case "tick":
			for _, lf := range tr.tick(st.at) {
				got = append(got, fmt.Sprintf("%d:%s:%s", lf.FrameSeq, lf.Code, lf.Severity))
			}
		case "close":
			tr.stdinClosed(st.at, false)
		case "exit":
			for _, lf := range tr.exited(st.at) {
				got = append(got, fmt.Sprintf("%d:%s:%s", lf.FrameSeq, lf.Code, lf.Severity))
			}
		case "restart":
			tr.restarted(st.at)
		default:
			t.Fatalf("unknown event %q", st.ev)
		}
	}
	return got
}

// states renders every tracked request as "dir id method state[+late][+timedout]".
func states(tr *Tracker) []string {
	var out []string
	for _, r := range tr.Requests() {
		s := fmt.Sprintf("%s %s %s %s", r.Dir, r.ID, r.Method, r.State)
		if r.Late {
			s += "+late"
		}
		if r.TimedOut {
			s += "+timedout"
		}
		out = append(out, s)
	}
	return out
}

// Building blocks of scripts.
const (
	initReq     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initRes     = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	discoverReq = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	discoverRes = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},"cacheScope":"private","ttlMs":0}}`
)

func req(id any, method string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{}}`, jsonID(id), method)
}

func reqTok(id any, method, token string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{"_meta":{"progressToken":%q}}}`, jsonID(id), method, token)
}

func res(id any) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, jsonID(id)) }

func resType(id any, rt string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":%q}}`, jsonID(id), rt)
}

func errRes(id any, code int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"nope"}}`, jsonID(id), code)
}

func notif(method string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method) }

func cancelled(id any) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`, jsonID(id))
}

func progress(token string, p float64) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%q,"progress":%g,"total":10}}`, token, p)
}

func jsonID(id any) string {
	switch v := id.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	default:
		return fmt.Sprint(v)
	}
}

// legacyOpen is a clean legacy handshake (seqs 1-3).
func legacyOpen() []step {
	return []step{c(0, initReq), s(ms(1), initRes), c(ms(2), initialized)}
}

// modernOpen is a clean modern probe (seqs 1-2).
func modernOpen() []step { return []step{c(0, discoverReq), s(ms(1), discoverRes)} }

func TestTrackerScripts(t *testing.T) {
	// The bare fold: these scripts abbreviate params and results, which the
	// protocol rules (session/protocol, tested on their own) would judge.
	opts := TrackerOptions{Timeout: sec(10), MaxTimeout: sec(30), UnflushedAfter: sec(1), NoProtocolRules: true}
	cases := []struct {
		name   string
		era    Era // pinned; EraUnknown = let the tracker infer it
		steps  []step
		want   []string
		states []string // nil = not checked
	}{
		{
			name: "clean legacy conversation",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), req(2, "tools/list")), s(ms(4), res(2)),
				s(ms(5), req(1, "ping")), c(ms(6), res(1)), // the server's id 1 is its own
				c(ms(7), reqTok(3, "tools/call", "p")), s(ms(8), progress("p", 1)), s(ms(9), progress("p", 2)),
				s(ms(10), res(3)),
				s(ms(11), notif("notifications/tools/list_changed")),
				ev(sec(100), "tick"), ev(sec(101), "close"), ev(sec(102), "exit"),
			),
			states: []string{
				"c2s 1 initialize answered", "c2s 2 tools/list answered",
				"s2c 1 ping answered", "c2s 3 tools/call answered",
			},
		},
		{
			name: "clean modern conversation with input_required and a retry",
			era:  EraModern,
			steps: append(modernOpen(),
				c(ms(3), req(2, "tools/list")), s(ms(4), resType(2, "complete")),
				c(ms(5), req(3, "tools/call")), s(ms(6), resType(3, "input_required")),
				c(ms(7), req(4, "tools/call")), s(ms(8), resType(4, "complete")),
				ev(sec(100), "tick"),
			),
			states: []string{
				"c2s 1 server/discover answered", "c2s 2 tools/list answered",
				"c2s 3 tools/call answered", "c2s 4 tools/call answered",
			},
		},
		{
			name: "directions are separate id spaces",
			era:  EraLegacy,
			steps: []step{
				c(0, initReq), s(ms(1), req(1, "ping")), c(ms(2), res(1)), s(ms(3), initRes),
			},
			states: []string{"c2s 1 initialize answered", "s2c 1 ping answered"},
		},
		{
			name: "reused-id-in-flight legacy: both tracked, answered in order",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), req(5, "tools/call")), c(ms(4), req(5, "tools/list")),
				s(ms(5), res(5)), s(ms(6), res(5)),
			),
			want:   []string{"5:reused-id-in-flight:error"},
			states: []string{"c2s 1 initialize answered", "c2s 5 tools/call answered", "c2s 5 tools/list answered"},
		},
		{
			name: "reused-id-in-flight modern",
			era:  EraModern,
			steps: append(modernOpen(),
				c(ms(3), req(5, "tools/call")), c(ms(4), req(5, "tools/call")),
			),
			want: []string{"4:reused-id-in-flight:error"},
		},
		{
			name: "reused-id-in-flight by the server",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				s(ms(3), req(7, "roots/list")), s(ms(4), req(7, "roots/list")),
			),
			want: []string{"5:reused-id-in-flight:error"},
		},
		{
			name:  "reused-id legacy is a warning",
			era:   EraLegacy,
			steps: append(legacyOpen(), c(ms(3), req(1, "ping"))),
			want:  []string{"4:reused-id:warning"},
		},
		{
			name:  "reused-id modern is a note",
			era:   EraModern,
			steps: append(modernOpen(), c(ms(3), req(1, "tools/list"))),
			want:  []string{"3:reused-id:note"},
		},
		{
			name:  "reused-id by the server",
			era:   EraLegacy,
			steps: append(legacyOpen(), s(ms(3), req(1, "ping")), c(ms(4), res(1)), s(ms(5), req(1, "ping"))),
			want:  []string{"6:reused-id:warning"},
		},
		{
			name:  "unknown-response-id legacy",
			era:   EraLegacy,
			steps: append(legacyOpen(), s(ms(3), res(9))),
			want:  []string{"4:unknown-response-id:error"},
		},
		{
			name:  "unknown-response-id modern",
			era:   EraModern,
			steps: append(modernOpen(), s(ms(3), resType("x", "complete"))),
			want:  []string{"3:unknown-response-id:error"},
		},
		{
			name:  "unknown-response-id from the client",
			era:   EraLegacy,
			steps: append(legacyOpen(), c(ms(3), res(4))),
			want:  []string{"4:unknown-response-id:error"},
		},
		{
			name:  "error with null id is legal",
			era:   EraLegacy,
			steps: append(legacyOpen(), s(ms(3), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)),
		},
		{
			name:   "duplicate-response legacy",
			era:    EraLegacy,
			steps:  append(legacyOpen(), c(ms(3), req(2, "tools/list")), s(ms(4), res(2)), s(ms(5), errRes(2, -32603))),
			want:   []string{"6:duplicate-response:error"},
			states: []string{"c2s 1 initialize answered", "c2s 2 tools/list answered"},
		},
		{
			name:  "duplicate-response modern",
			era:   EraModern,
			steps: append(modernOpen(), s(ms(3), discoverRes)),
			want:  []string{"3:duplicate-response:error"},
		},
		{
			name:   "id-type-mismatch: string answers integer",
			era:    EraLegacy,
			steps:  append(legacyOpen(), c(ms(3), req(2, "tools/list")), s(ms(4), res("2"))),
			want:   []string{"5:id-type-mismatch:warning"},
			states: []string{"c2s 1 initialize answered", "c2s 2 tools/list answered"},
		},
		{
			name:  "id-type-mismatch: integer answers string, modern",
			era:   EraModern,
			steps: append(modernOpen(), c(ms(3), req("7", "tools/list")), s(ms(4), resType(7, "complete"))),
			want:  []string{"4:id-type-mismatch:warning"},
		},
		{
			name: "late-response after cancel",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), req(2, "tools/call")), c(ms(4), cancelled(2)), s(ms(5), res(2)),
			),
			want:   []string{"6:late-response:note"},
			states: []string{"c2s 1 initialize answered", "c2s 2 tools/call cancelled+late"},
		},
		{
			// The server answered request 3, sent after the cancel, before
			// it answered 2: it had read the cancel, and answered anyway.
			name: "late-response after the cancel was read",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), req(2, "tools/call")), c(ms(4), cancelled(2)), c(ms(5), req(3, "tools/list")),
				s(ms(6), res(3)), s(ms(7), res(2)),
			),
			want: []string{"8:late-response:warning"},
		},
		{
			// An answer to a later request written before the cancel was
			// read proves nothing: request 3 came before the cancel.
			name: "late-response, the later answer to an earlier request",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), req(2, "tools/call")), c(ms(4), req(3, "tools/list")), c(ms(5), cancelled(2)),
				s(ms(6), res(3)), s(ms(7), res(2)),
			),
			want: []string{"8:late-response:note"},
		},
		{
			name: "cancel-unknown-request: an id never sent; an answered one may be cancelled",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), req(2, "tools/call")), s(ms(4), res(2)), c(ms(5), cancelled(2)),
				c(ms(6), cancelled(9)), c(ms(7), cancelled("2")),
			),
			want:   []string{"7:cancel-unknown-request:warning", "8:cancel-unknown-request:warning"},
			states: []string{"c2s 1 initialize answered", "c2s 2 tools/call answered"},
		},
		{
			name: "progress goes on after a CreateTaskResult (2025-11-25 tasks)",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","task":{"ttl":1000},"_meta":{"progressToken":"p"}}}`),
				s(ms(4), `{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":1000}}}`),
				s(ms(5), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`),
				s(ms(6), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`),
			),
			want:   []string{"7:progress-not-increasing:warning"},
			states: []string{"c2s 1 initialize answered", "c2s 2 tools/call answered"},
		},
		{
			name: "progress-token-reused while in flight, not after",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"p"}}}`),
				c(ms(4), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"p"}}}`),
				s(ms(5), res(2)), s(ms(6), res(3)),
				c(ms(7), `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"p"}}}`),
				s(ms(8), res(4)),
			),
			want:   []string{"5:progress-token-reused:error"},
			states: []string{"c2s 1 initialize answered", "c2s 2 tools/call answered", "c2s 3 tools/call answered", "c2s 4 tools/call answered"},
		},
		{
			name: "late-response modern, then a duplicate",
			era:  EraModern,
			steps: append(modernOpen(),
				c(ms(3), req(2, "tools/call")), c(ms(4), cancelled(2)),
				s(ms(5), resType(2, "complete")), s(ms(6), resType(2, "complete")),
			),
			want: []string{"5:late-response:note", "6:duplicate-response:error"},
		},
		{
			name: "request-timeout legacy",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(sec(1), req(2, "tools/call")),
				ev(sec(10), "tick"), ev(sec(11), "tick"), ev(sec(12), "tick"),
				s(sec(13), res(2)), // answered after all: no further finding
			),
			want:   []string{"4:request-timeout:warning"},
			states: []string{"c2s 1 initialize answered", "c2s 2 tools/call answered+timedout"},
		},
		{
			name: "request-timeout modern, reset by progress up to the maximum",
			era:  EraModern,
			steps: append(modernOpen(),
				c(0, reqTok(2, "tools/call", "t")),
				s(sec(8), progress("t", 1)), ev(sec(12), "tick"), // deadline moved to 18 s
				s(sec(16), progress("t", 2)), ev(sec(23), "tick"), // 26 s
				s(sec(24), progress("t", 3)), ev(sec(29), "tick"), // capped at 30 s, not 34 s
				ev(sec(30), "tick"),
			),
			want: []string{"3:request-timeout:warning"},
		},
		{
			name: "server requests do not time out",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				s(sec(1), req(1, "sampling/createMessage")), ev(sec(100), "tick"),
			),
		},
		{
			name: "progress-not-increasing",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), reqTok(2, "tools/call", "p")), s(ms(4), progress("p", 5)), s(ms(5), progress("p", 5)),
				s(ms(6), progress("p", 4)), s(ms(7), res(2)),
			),
			want: []string{"6:progress-not-increasing:warning", "7:progress-not-increasing:warning"},
		},
		{
			name: "progress-not-increasing modern",
			era:  EraModern,
			steps: append(modernOpen(),
				c(ms(3), reqTok(2, "tools/call", "p")), s(ms(4), progress("p", 5)), s(ms(5), progress("p", 1)),
			),
			want: []string{"5:progress-not-increasing:warning"},
		},
		{
			name: "progress-after-completion",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), reqTok(2, "tools/call", "p")), s(ms(4), res(2)), s(ms(5), progress("p", 1)),
			),
			want: []string{"6:progress-after-completion:warning"},
		},
		{
			name: "progress-after-completion modern",
			era:  EraModern,
			steps: append(modernOpen(),
				c(ms(3), reqTok(2, "tools/call", "p")), s(ms(4), resType(2, "complete")), s(ms(5), progress("p", 1)),
			),
			want: []string{"5:progress-after-completion:warning"},
		},
		{
			name: "progress after cancel is not flagged",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), reqTok(2, "tools/call", "p")), c(ms(4), cancelled(2)), s(ms(5), progress("p", 1)),
			),
		},
		{
			name:  "progress-unknown-token",
			era:   EraLegacy,
			steps: append(legacyOpen(), s(ms(3), progress("nobody", 1))),
			want:  []string{"4:progress-unknown-token:error"},
		},
		{
			name:  "progress-unknown-token modern",
			era:   EraModern,
			steps: append(modernOpen(), s(ms(3), progress("nobody", 1))),
			want:  []string{"3:progress-unknown-token:error"},
		},
		{
			name:  "server-request-in-modern-era",
			era:   EraModern,
			steps: append(modernOpen(), s(ms(3), req(1, "roots/list")), c(ms(4), res(1))),
			want:  []string{"3:server-request-in-modern-era:error"},
		},
		{
			name:  "server requests are fine in the legacy era",
			era:   EraLegacy,
			steps: append(legacyOpen(), s(ms(3), req(1, "roots/list")), c(ms(4), res(1))),
		},
		{
			name:  "missing-result-type modern",
			era:   EraModern,
			steps: append(modernOpen(), c(ms(3), req(2, "tools/list")), s(ms(4), res(2))),
			want:  []string{"4:missing-result-type:warning"},
		},
		{
			name:  "no resultType is fine in the legacy era",
			era:   EraLegacy,
			steps: append(legacyOpen(), c(ms(3), req(2, "tools/list")), s(ms(4), res(2))),
		},
		{
			name:  "errors need no resultType",
			era:   EraModern,
			steps: append(modernOpen(), c(ms(3), req(2, "tools/list")), s(ms(4), errRes(2, -32601))),
		},
		{
			name:  "unknown-result-type modern",
			era:   EraModern,
			steps: append(modernOpen(), c(ms(3), req(2, "tools/list")), s(ms(4), resType(2, "partial"))),
			want:  []string{"4:unknown-result-type:error"},
		},
		{
			name:  "resultType is not judged in the legacy era",
			era:   EraLegacy,
			steps: append(legacyOpen(), c(ms(3), req(2, "tools/list")), s(ms(4), resType(2, "partial"))),
		},
		{
			name: "message-before-initialized",
			era:  EraLegacy,
			steps: []step{
				c(0, initReq),
				s(ms(1), notif("notifications/message")), // logging is allowed
				s(ms(2), req(1, "ping")),                 // and so is ping
				c(ms(3), res(1)),
				s(ms(4), initRes),
				s(ms(5), notif("notifications/tools/list_changed")), // a notification, not a request
				s(ms(6), req(2, "roots/list")),
				c(ms(7), res(2)),
				c(ms(8), initialized),
				s(ms(9), notif("notifications/tools/list_changed")),
			},
			want: []string{"7:message-before-initialized:warning"},
		},
		{
			name: "message-before-initialized is a legacy rule",
			era:  EraModern,
			steps: append(modernOpen(),
				s(ms(3), notif("notifications/tools/list_changed")),
			),
		},
		{
			name: "unflushed-output at stdin close",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(sec(1), req(2, "tools/list")), c(sec(1), req(3, "tools/call")),
				ev(sec(5), "close"),
				s(sec(5)+ms(1), res(2)), s(sec(5)+ms(2), res(3)),
			),
			want: []string{"7:unflushed-output:warning"},
		},
		{
			name: "unflushed-output at exit",
			era:  EraModern,
			steps: append(modernOpen(),
				c(sec(1), req(2, "tools/list")),
				ev(sec(5), "exit"),
				s(sec(5)+ms(1), resType(2, "complete")),
			),
			want:   []string{"3:exited-during-request:error", "5:unflushed-output:warning"},
			states: []string{"c2s 1 server/discover answered", "c2s 2 tools/list answered"},
		},
		{
			name: "unflushed-output in a burst as the process exits on its own",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(sec(1), req(2, "tools/list")), c(sec(2), req(3, "tools/call")),
				s(sec(5), res(2)), s(sec(5)+ms(1), res(3)),
				ev(sec(5)+ms(20), "exit"),
			),
			want: []string{"6:unflushed-output:warning"},
		},
		{
			name: "answers just before a shutdown are no burst",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(sec(1), req(2, "tools/list")), s(sec(5), res(2)),
				ev(sec(5)+ms(10), "close"), ev(sec(5)+ms(20), "exit"),
			),
		},
		{
			name: "a slow first answer, then a crash on the next request, is no burst",
			era:  EraLegacy,
			steps: []step{
				c(0, initReq), s(sec(3), initRes),
				c(sec(3)+ms(1), req(2, "tools/call")),
				ev(sec(3)+ms(50), "exit"),
			},
			want: []string{"3:exited-during-request:error"},
		},
		{
			name: "an answer long before the exit is no burst",
			era:  EraModern,
			steps: append(modernOpen(),
				c(sec(1), req(2, "tools/list")), s(sec(4), resType(2, "complete")),
				ev(sec(5), "exit"),
			),
		},
		{
			name: "a server that talked before its last answer is no burst",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(sec(1), reqTok(2, "tools/call", "p")), s(sec(3), progress("p", 1)),
				s(sec(5), res(2)), ev(sec(5)+ms(20), "exit"),
			),
		},
		{
			name: "a quick answer after close is not unflushed",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(sec(1), req(2, "tools/call")),
				ev(sec(1)+ms(100), "close"),
				s(sec(1)+ms(200), res(2)),
			),
		},
		{
			name: "a slow answer from a server that kept talking is not unflushed",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(sec(1), reqTok(2, "tools/call", "p")),
				s(sec(3), progress("p", 1)),
				ev(sec(5), "close"),
				s(sec(5)+ms(1), res(2)),
			),
		},
		{
			name: "a slow answer after a close, the server silent before it and chatty after, is unflushed",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(sec(1), reqTok(2, "tools/call", "p")),
				ev(sec(5), "close"),
				s(sec(5)+ms(1), progress("p", 1)),
				s(sec(5)+ms(2), res(2)),
			),
			want: []string{"7:unflushed-output:warning"},
		},
		{
			name: "exited-during-request names the lost requests",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), req(2, "tools/call")), c(ms(4), req(3, "tools/list")), s(ms(5), res(3)),
				s(ms(6), req(1, "sampling/createMessage")), // waiting on the user: not the server's fault
				ev(ms(7), "exit"),
			),
			want: []string{"4:exited-during-request:error"},
			states: []string{
				"c2s 1 initialize answered", "c2s 2 tools/call lost",
				"c2s 3 tools/list answered", "s2c 1 sampling/createMessage lost",
			},
		},
		{
			name: "requests lost after the client closed stdin are only a note",
			era:  EraModern,
			steps: append(modernOpen(),
				c(ms(3), req(2, "tools/call")), ev(ms(4), "close"), ev(ms(5), "exit"),
			),
			want: []string{"3:exited-during-request:note"},
		},
		{
			name: "a restart starts the id spaces over",
			era:  EraLegacy,
			steps: append(legacyOpen(),
				c(ms(3), req(2, "tools/call")),
				ev(ms(4), "restart"),
				c(ms(5), initReq), s(ms(6), initRes), c(ms(7), initialized), s(ms(8), res(2)),
			),
			want: []string{"9:unknown-response-id:error"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(opts)
			tr.setEra(tc.era)
			got := run(t, tr, tc.steps)
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings:\n got %q\nwant %q", got, tc.want)
			}
			if tc.states != nil {
				if st := states(tr); !slices.Equal(st, tc.states) {
					t.Errorf("requests:\n got %q\nwant %q", st, tc.states)
				}
			}
		})
	}
}

// Every protocol code of the registry that the tracker raises is covered by
// the script table above, and registered with the severity the issue gives.
func TestTrackerCodesRegistered(t *testing.T) {
	want := map[string]wire.Severity{
		"reused-id-in-flight": wire.SeverityError, "unknown-response-id": wire.SeverityError,
		"duplicate-response": wire.SeverityError, "id-type-mismatch": wire.SeverityWarning,
		"late-response": wire.SeverityNote, "request-timeout": wire.SeverityWarning,
		"progress-not-increasing": wire.SeverityWarning, "progress-after-completion": wire.SeverityWarning,
		"progress-unknown-token": wire.SeverityError, "server-request-in-modern-era": wire.SeverityError,
		"unknown-result-type": wire.SeverityError, "message-before-initialized": wire.SeverityWarning,
		"unflushed-output": wire.SeverityWarning, "missing-result-type": wire.SeverityWarning,
		"cancel-unknown-request": wire.SeverityWarning, "progress-token-reused": wire.SeverityError,
	}
	for code, sev := range want {
		info, ok := wire.Lookup(code)
		if !ok {
			t.Errorf("%s: not in the registry", code)
			continue
		}
		if info.Severity != sev {
			t.Errorf("%s: registry severity %s, issue 4 says %s", code, info.Severity, sev)
		}
	}
	if _, ok := wire.Lookup("reused-id"); !ok {
		t.Error("reused-id: not in the registry")
	}
	if _, ok := wire.Lookup("exited-during-request"); !ok {
		t.Error("exited-during-request: not in the registry")
	}
}

func TestTrackerInfersEra(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		want  Era
	}{
		{"initialize means legacy", []step{c(0, initReq)}, EraLegacy},
		{"discover result with a modern version", modernOpen(), EraModern},
		{"discover result with only legacy versions", []step{c(0, discoverReq),
			s(ms(1), `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-11-25","2025-06-18"],"capabilities":{}}}`)}, EraLegacy},
		{"-32022 to discover", []step{c(0, discoverReq), s(ms(1), errRes(1, -32022))}, EraModern},
		{"method not found to discover", []step{c(0, discoverReq), s(ms(1), errRes(1, -32601))}, EraLegacy},
		{"nothing yet", []step{c(0, req(1, "tools/list"))}, EraUnknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(TrackerOptions{})
			run(t, tr, tc.steps)
			if got := tr.Era(); got != tc.want {
				t.Errorf("era %s, want %s", got, tc.want)
			}
		})
	}
	// A pinned era is not overridden by the frames.
	tr := NewTracker(TrackerOptions{})
	tr.setEra(EraModern)
	run(t, tr, []step{c(0, initReq)})
	if tr.Era() != EraModern {
		t.Errorf("pinned era overridden: %s", tr.Era())
	}
}

func TestTrackerMintsFreshIDs(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	if id := tr.NextID(); id != wire.IntID(1) {
		t.Fatalf("first id %s, want 1", id)
	}
	if a, b := tr.MintID(), tr.MintID(); a != wire.IntID(1) || b != wire.IntID(2) {
		t.Fatalf("minted %s, %s; want 1, 2", a, b)
	}
	// Ids typed by hand: an integer and a numeric string push the counter past them.
	run(t, tr, []step{c(0, req(10, "ping")), c(0, req("17", "ping")), c(0, req("abc", "ping")), c(0, req(4, "ping"))})
	if id := tr.MintID(); id != wire.IntID(18) {
		t.Fatalf("after user ids 10 and \"17\": minted %s, want 18", id)
	}
	if !tr.Used(wire.StringID("17")) || tr.Used(wire.IntID(17)) {
		t.Error("Used: the string \"17\" was used, the integer 17 was not")
	}
	// The server's ids are another space: they do not move the client's counter.
	run(t, tr, []step{s(0, req(100, "ping"))})
	if id := tr.NextID(); id != wire.IntID(19) {
		t.Fatalf("server ids moved the client's counter: next %s, want 19", id)
	}
	// Exhausted integers fall back to strings that are not numbers.
	run(t, tr, []step{c(0, req(int64(9223372036854775807), "ping"))})
	id := tr.MintID()
	if id.Kind != wire.IDString || !strings.HasPrefix(id.Str, "linesman-") {
		t.Fatalf("after the largest integer: minted %s", id)
	}
	if tr.MintID() == id {
		t.Fatal("minted the same string id twice")
	}
}

func TestTrackerInFlightOrderAndLookup(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	run(t, tr, append(legacyOpen(),
		c(ms(3), reqTok(5, "tools/call", "p")), s(ms(4), req(1, "roots/list")), c(ms(5), req(2, "tools/list")),
		s(ms(6), progress("p", 3)),
	))
	var got []string
	for _, r := range tr.InFlight() {
		got = append(got, fmt.Sprintf("%d %s %s", r.Seq, r.Dir, r.ID))
	}
	if want := []string{"4 c2s 5", "5 s2c 1", "6 c2s 2"}; !slices.Equal(got, want) {
		t.Fatalf("in flight %q, want %q", got, want)
	}
	r, ok := tr.Lookup(wire.ClientToServer, wire.IntID(5))
	if !ok || !r.HasProgress || r.Progress != 3 || r.Total != 10 || r.ProgressToken != wire.StringID("p") {
		t.Fatalf("lookup 5: %+v %v", r, ok)
	}
	if next, ok := tr.NextDeadline(); !ok || next != ms(5)+DefaultTimeout {
		t.Fatalf("next deadline %s %v", next, ok)
	}
}

func TestTrackerRequestBySeq(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	run(t, tr, append(legacyOpen(), c(ms(3), req(2, "tools/list")), s(ms(4), req(1, "ping")), s(ms(5), res(2))))
	for seq, want := range map[uint64]string{1: "initialize", 4: "tools/list", 5: "ping"} {
		r, ok := tr.RequestBySeq(seq)
		if !ok || r.Method != want {
			t.Errorf("seq %d: %+v %v, want %s", seq, r, ok, want)
		}
	}
	for _, seq := range []uint64{0, 2, 3, 6, 99} {
		if r, ok := tr.RequestBySeq(seq); ok {
			t.Errorf("seq %d is no request: %+v", seq, r)
		}
	}
}

// BenchmarkTrackerFrame measures the tracker's cost per frame on a
// conversation of requests, progress and answers, against classifying the
// same frames (wire.Classify) as the baseline, in the same run:
//
//	go test -run '^$' -bench 'TrackerFrame' ./session
//
// Compare the two frames/s figures: the tracker should cost a fraction of
// classification.
func BenchmarkTrackerFrame(b *testing.B) {
	const n = 4096
	texts := make([][]byte, 0, n)
	dirs := make([]wire.Dir, 0, n)
	for i := 1; len(texts) < n; i++ {
		tok := fmt.Sprintf("t%d", i)
		texts = append(texts, []byte(reqTok(i, "tools/call", tok)), []byte(progress(tok, 1)), []byte(res(i)))
		dirs = append(dirs, wire.ClientToServer, wire.ServerToClient, wire.ServerToClient)
	}
	frames := make([]*wire.Frame, len(texts))
	for i, t := range texts {
		frames[i] = mkFrame(string(t))
	}
	b.Run("classify", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			wire.Classify(texts[i%len(texts)])
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	})
	b.Run("tracker", func(b *testing.B) {
		tr := NewTracker(TrackerOptions{})
		tr.setEra(EraLegacy)
		for i := 0; i < b.N; i++ {
			if i%len(frames) == 0 && i > 0 {
				tr.restarted(0) // a fresh process: the same ids are fresh again
			}
			f := frames[i%len(frames)]
			f.Findings = f.Findings[:0]
			tr.frame(uint64(i+1), dirs[i%len(frames)], f, time.Duration(i))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	})
}

// Random conversations over a few ids, both ways, every kind of frame and
// event: the tracker must not panic, its in-flight set must agree with the
// request history, and a minted id must never be one already used.
func TestTrackerRandomConversations(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	ids := []any{1, 2, 3, "1", "a", 4}
	methods := []string{"tools/call", "ping", "initialize", "server/discover", "roots/list"}
	pick := func(xs []any) any { return xs[rng.IntN(len(xs))] }
	for round := 0; round < 50; round++ {
		tr := NewTracker(TrackerOptions{Timeout: sec(5)})
		tr.setEra(Era(rng.IntN(3)))
		var steps []step
		at := time.Duration(0)
		for i := 0; i < 200; i++ {
			at += ms(rng.IntN(2000))
			dir := wire.Dir(1 + rng.IntN(2))
			var text string
			switch rng.IntN(9) {
			case 0, 1:
				text = req(pick(ids), methods[rng.IntN(len(methods))])
			case 2:
				text = reqTok(pick(ids), "tools/call", fmt.Sprint("t", rng.IntN(3)))
			case 3, 4:
				text = res(pick(ids))
			case 5:
				text = resType(pick(ids), []string{"complete", "input_required", "bogus"}[rng.IntN(3)])
			case 6:
				text = cancelled(pick(ids))
			case 7:
				text = progress(fmt.Sprint("t", rng.IntN(3)), float64(rng.IntN(5)))
			case 8:
				steps = append(steps, ev(at, []string{"tick", "close", "exit", "restart"}[rng.IntN(4)]))
				continue
			}
			steps = append(steps, step{at: at, dir: dir, json: text})
		}
		run(t, tr, steps)
		open := 0
		for _, r := range tr.Requests() {
			if r.State < ReqInFlight || r.State > ReqLost {
				t.Fatalf("round %d: request %+v has no state", round, r)
			}
			if r.State == ReqInFlight {
				open++
			}
		}
		inflight := tr.InFlight()
		if len(inflight) != open {
			t.Fatalf("round %d: %d in flight, history says %d", round, len(inflight), open)
		}
		for _, r := range inflight {
			if r.State != ReqInFlight {
				t.Fatalf("round %d: InFlight lists %+v", round, r)
			}
			if got, ok := tr.RequestBySeq(r.Seq); !ok || got.ID != r.ID {
				t.Fatalf("round %d: RequestBySeq(%d) = %+v", round, r.Seq, got)
			}
		}
		for i := 0; i < 3; i++ {
			if id := tr.MintID(); tr.Used(id) {
				t.Fatalf("round %d: minted %s, already used", round, id)
			}
		}
	}
}

// FuzzTracker drives the tracker with frames built from fuzzed ids,
// methods and kinds: it must never panic, and its in-flight set must stay
// consistent with its history.
//
//	go test -run '^$' -fuzz FuzzTracker -fuzztime 30s ./session
func FuzzTracker(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte("reused ids and late answers"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := NewTracker(TrackerOptions{Timeout: sec(1)})
		ids := []string{`1`, `2`, `"1"`, `"x"`, `1.5`, `null`, `9223372036854775807`}
		at := time.Duration(0)
		for i := 0; i+1 < len(data); i += 2 {
			op, arg := data[i], int(data[i+1])
			at += ms(int(op) * 10)
			dir := wire.Dir(1 + int(op)%2)
			id := ids[arg%len(ids)]
			var text string
			switch op % 10 {
			case 0:
				text = `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"_meta":{"progressToken":` + id + `}}}`
			case 1:
				text = `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"x"}}`
			case 2:
				text = `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32022,"message":"m"}}`
			case 3:
				text = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`
			case 4:
				text = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + id + `,"progress":` + fmt.Sprint(arg%3) + `}}`
			case 5:
				text = `{"jsonrpc":"2.0","id":` + id + `,"method":"server/discover"}`
			case 6:
				tr.tick(at)
				continue
			case 7:
				tr.stdinClosed(at, false)
				continue
			case 8:
				tr.exited(at)
				continue
			case 9:
				tr.restarted(at)
				continue
			}
			tr.frame(uint64(i+1), dir, mkFrame(text), at)
		}
		n := 0
		for _, r := range tr.Requests() {
			if r.State == ReqInFlight {
				n++
			}
		}
		if len(tr.InFlight()) != n {
			t.Fatalf("in flight %d, history %d", len(tr.InFlight()), n)
		}
		if id := tr.MintID(); tr.Used(id) {
			t.Fatalf("minted a used id %s", id)
		}
	})
}

// A result cut at the maximum frame size may have lost its resultType past
// the cut: oversize-frame says so, and missing-result-type must not pile on.
func TestTrackerTruncatedResultIsNotMissingResultType(t *testing.T) {
	for _, cut := range []bool{false, true} {
		tr := NewTracker(TrackerOptions{})
		tr.setEra(EraModern)
		tr.frame(1, wire.ClientToServer, mkFrame(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`), ms(1))
		f := mkFrame(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
		f.Lines[0].Truncated = cut
		tr.frame(2, wire.ServerToClient, f, ms(2))
		if got := f.Has("missing-result-type"); got == cut {
			t.Errorf("truncated=%v: missing-result-type raised=%v", cut, got)
		}
	}
}

// TestWithArticle: finding messages read "an initialize request", not "a
// initialize request".
func TestWithArticle(t *testing.T) {
	for method, want := range map[string]string{
		"initialize":             "an initialize",
		"elicitation/create":     "an elicitation/create",
		"ping":                   "a ping",
		"sampling/createMessage": "a sampling/createMessage",
		"":                       "a ",
	} {
		if got := withArticle(method); got != want {
			t.Errorf("withArticle(%q) = %q, want %q", method, got, want)
		}
	}
}

// An initialize result with a member of the wrong type (instructions as a
// list, say) is flagged, and the rest of it is still learnt: its decoding
// used to fail as a whole, and the server's info, version and
// capabilities were lost with it.
func TestHandshakeLearntDespiteAMistypedMember(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	run(t, tr, []step{
		c(0, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`),
		s(0, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},"instructions":["use x"]}}`),
	})
	hs := tr.Handshake()
	if hs.ProtocolVersion != "2025-11-25" || !strings.Contains(string(hs.ServerInfo), `"s"`) || !strings.Contains(string(hs.ServerCapabilities), "tools") {
		t.Errorf("handshake not learnt: %+v", hs)
	}
}

// TestUnflushedNeedsASilentStdout: a slow answer that comes out after the
// host closed stdin is no sign of a buffered stdout when the server's
// stdout reached the pipe meanwhile, a line that is not JSON-RPC included
// (browser-tools-mcp 1.2.1 under the go-sdk client: it printed to stdout
// as it started, the host gave up on those lines and closed stdin, and its
// answer to the probe came 0.4 s later); with nothing on stdout before the
// close, it is.
func TestUnflushedNeedsASilentStdout(t *testing.T) {
	frame := func(at time.Duration, dir wire.Dir, text string) Event {
		return Event{Type: EventFrame, At: at, Dir: dir, Frame: mkFrame(text)}
	}
	const probe = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	const answer = `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`
	closed := Event{Type: EventStdinClosed, At: 1150 * time.Millisecond, Stdin: &StdinEvent{ByHost: true}}
	for _, tc := range []struct {
		name   string
		events []Event
		want   bool
	}{
		{"printed before the close", []Event{frame(0, wire.ClientToServer, probe), frame(1140*time.Millisecond, wire.ServerToClient, "Starting server discovery process"), closed,
			frame(1400*time.Millisecond, wire.ServerToClient, "Error checking 127.0.0.1:3025"), frame(1560*time.Millisecond, wire.ServerToClient, answer)}, false},
		{"silent before the close", []Event{frame(0, wire.ClientToServer, probe), closed,
			frame(1400*time.Millisecond, wire.ServerToClient, "Error checking 127.0.0.1:3025"), frame(1560*time.Millisecond, wire.ServerToClient, answer)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(TrackerOptions{})
			got := false
			for i, ev := range tc.events {
				ev.Seq = uint64(i + 1)
				tr.Apply(&ev)
				if ev.Frame != nil && slices.ContainsFunc(ev.Frame.Findings, func(f wire.Finding) bool { return f.Code == "unflushed-output" }) {
					got = true
				}
			}
			if got != tc.want {
				t.Errorf("unflushed-output %v, want %v", got, tc.want)
			}
		})
	}
}
