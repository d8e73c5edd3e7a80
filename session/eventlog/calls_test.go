package eventlog

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"linesman/wire"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestMultiRoundIsOneCall: a 2026-07-28 request answered input_required
// and retried under a new id is one call, its rounds listed under it,
// timed from the first round to the last answer; progress of any round
// counts for it; a call of another tool in between stays its own.
func TestMultiRoundIsOneCall(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	run(t, tr, []step{
		c(ms(0), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask",`+modernMeta+`}}`),
		c(ms(10), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fast",`+modernMeta+`}}`),
		s(ms(20), `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}`),
		s(ms(100), `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s1","inputRequests":{}}}`),
		c(ms(150), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","requestState":"s1","inputResponses":{},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`),
		s(ms(200), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`),
		s(ms(400), `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`),
	})
	calls := tr.Calls()
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2 (ask across two rounds, fast): %+v", len(calls), calls)
	}
	ask, fast := calls[0], calls[1]
	if ask.Tool() != "ask" || len(ask.Rounds) != 2 || ask.Rounds[1].Seq != 5 || ask.Progress != 1 || ask.Era != EraModern {
		t.Errorf("ask: tool %q, %d rounds, progress %d, era %v", ask.Tool(), len(ask.Rounds), ask.Progress, ask.Era)
	}
	if d, ok := ask.Duration(); !ok || d != ms(400) {
		t.Errorf("ask took %v (%v), want 400ms: first round to last answer", d, ok)
	}
	if d, _ := fast.Duration(); fast.Tool() != "fast" || d != ms(10) {
		t.Errorf("fast: %q took %v", fast.Tool(), d)
	}
	if r, _ := tr.RequestBySeq(5); r.CallSeq != 1 {
		t.Errorf("the retry's CallSeq is %d, want 1", r.CallSeq)
	}
	byMethod, byTool := Latency(calls)
	if len(byMethod) != 1 || byMethod[0].Count != 2 || byMethod[0].Requests != 3 || byMethod[0].Max != ms(400) {
		t.Errorf("by method %+v: want tools/call, 2 calls of 3 requests, max 400ms", byMethod)
	}
	if len(byTool) != 2 || byTool[0].Tool != "ask" || byTool[0].P50 != ms(400) || byTool[1].Tool != "fast" || byTool[1].P50 != ms(10) {
		t.Errorf("by tool %+v", byTool)
	}
	// The tracker's own, read a call at a time, is the same.
	if m, tl := tr.Latency(); !reflect.DeepEqual(m, byMethod) || !reflect.DeepEqual(tl, byTool) {
		t.Errorf("Tracker.Latency = %+v, %+v; Latency(Calls) = %+v, %+v", m, tl, byMethod, byTool)
	}
	if got := slices.Collect(tr.EachRequest()); !reflect.DeepEqual(got, tr.Requests()) || tr.NumRequests() != len(got) {
		t.Errorf("EachRequest = %+v, Requests = %+v", got, tr.Requests())
	}
}

// TestTaskPollsBelongToTheirCall: a task-augmented tools/call answered
// with a CreateTaskResult goes on through tasks/get and tasks/result of
// its task: they are its polls, not calls of their own, and the call
// ends with the last of them; a tasks/get of another task is a call.
func TestTaskPollsBelongToTheirCall(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	task := `{"taskId":"T1","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":60000}`
	run(t, tr, []step{
		c(ms(0), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"long","task":{"ttl":60000}}}`),
		s(ms(5), `{"jsonrpc":"2.0","id":1,"result":{"task":`+task+`}}`),
		c(ms(50), `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T1"}}`),
		s(ms(55), `{"jsonrpc":"2.0","id":2,"result":`+task+`}`),
		c(ms(60), `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"other"}}`),
		s(ms(61), `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no such task"}}`),
		c(ms(300), `{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"T1"}}`),
		s(ms(900), `{"jsonrpc":"2.0","id":4,"result":{"content":[]}}`),
	})
	calls := tr.Calls()
	if len(calls) != 2 || calls[0].Tool() != "long" || len(calls[0].Polls) != 2 || calls[1].Method != "tasks/get" {
		t.Fatalf("calls %+v: want long with two polls, then the other task's tasks/get", calls)
	}
	if d, _ := calls[0].Duration(); d != ms(900) {
		t.Errorf("long took %v, want 900ms (to the answer of its tasks/result)", d)
	}
	if !calls[0].Polls[0].Poll || calls[0].Polls[0].CallSeq != 1 {
		t.Errorf("the poll: %+v", calls[0].Polls[0])
	}
}

// TestLatencyNearestRank: the statistics are nearest-rank percentiles of
// every ended call; an open call counts for nothing.
func TestLatencyNearestRank(t *testing.T) {
	var calls []Call
	for i := 1; i <= 20; i++ {
		r := Request{Method: "ping", SentAt: 0}
		calls = append(calls, Call{Request: r, Rounds: []Request{r}, End: time.Duration(i) * time.Millisecond})
	}
	calls = append(calls, Call{Request: Request{Method: "ping"}, Rounds: []Request{{}}, Open: true})
	m, _ := Latency(calls)
	if len(m) != 1 || m[0].Count != 20 || m[0].P50 != ms(10) || m[0].P95 != ms(19) || m[0].P99 != ms(20) || m[0].Max != ms(20) {
		t.Errorf("%+v", m)
	}
}

// TestEachRequestInChunks: EachRequest yields every request in order,
// across the chunks it copies, as Requests returns them.
func TestEachRequestInChunks(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	for i := 1; i <= 9000; i++ {
		f := handFrame(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, wire.Message{Kind: wire.KindRequest, ID: wire.IntID(int64(i)), Method: "ping"})
		tr.frame(uint64(i), wire.ClientToServer, f, time.Duration(i))
	}
	got := slices.Collect(tr.EachRequest())
	if len(got) != 9000 || tr.NumRequests() != 9000 || !reflect.DeepEqual(got, tr.Requests()) {
		t.Errorf("EachRequest gave %d requests, NumRequests %d, want Requests' 9000", len(got), tr.NumRequests())
	}
	n := 0
	for range tr.EachRequest() {
		if n++; n == 5000 {
			break
		}
	}
}
