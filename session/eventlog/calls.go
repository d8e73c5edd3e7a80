package eventlog

import (
	"time"

	"linesman/session/protocol"
	"linesman/wire"
)

// Logical calls: what the client asked for once, whatever number of
// requests it took. A 2026-07-28 multi-round request is one call across
// its rounds (each retry a new request with a new id, naming the same
// method and target after an input_required answer); a 2025-11-25
// task-augmented call goes on through the polls of the task it created
// (tasks/get, tasks/result, tasks/cancel); progress is counted on the
// request whose token it carries. The fold links them as it records each
// request and answer, here, and [Tracker.Calls] reads them back: latency
// and traces are computed from calls, never from requests alone.

// Call is one logical call of the client.
type Call struct {
	// Request is its first request (the first round).
	Request
	// Rounds are its requests in the order sent, the first included: one
	// for a plain request, one per round of a multi-round request.
	Rounds []Request
	// Polls are the requests that polled, fetched or cancelled the task
	// it created.
	Polls []Request
	// Progress counts the progress notifications of all its requests.
	Progress int
	// Open: one of its requests is still in flight.
	Open bool
	// End is when the last of its requests ended (meaningless while Open).
	End time.Duration
}

// Duration is how long the call took, from its first request to the end
// of its last (false while it is open).
func (c Call) Duration() (time.Duration, bool) {
	if c.Open || c.End < c.SentAt {
		return 0, false
	}
	return c.End - c.SentAt, true
}

// Outcome is the request whose answer ended the call: its last round.
func (c Call) Outcome() Request { return c.Rounds[len(c.Rounds)-1] }

// maxAwaiting bounds the calls awaiting a retry or holding a task (a
// client may never retry, a task never be polled): past it they are
// forgotten, and a later retry begins a call of its own.
const maxAwaiting = 4096

// callLinks is the fold's state of logical calls for one process.
type callLinks struct {
	awaiting map[string]*entry // method+target -> the call an input_required answer left awaiting its retry
	tasks    map[string]*entry // taskId -> the call that created the task
}

// linkCall notes what the client request e names and, when it continues
// a call (a retry, a poll), joins it to that call.
func (t *Tracker) linkCall(e *entry, f *wire.Frame) {
	e.Era = t.hs.Era
	e.Target = protocol.CallTarget(e.Method, f)
	var root *entry
	if id, ok := protocol.PolledTaskID(f); ok {
		root = t.links.tasks[id]
		e.Poll = root != nil
	} else if key := e.Method + "\x00" + e.Target; t.links.awaiting[key] != nil {
		root = t.links.awaiting[key]
		delete(t.links.awaiting, key)
	}
	if root != nil {
		e.call, e.CallSeq = root, root.Seq
		root.parts = append(root.parts, e)
	}
}

// noteCall learns from the answer f to the client request e what comes
// next of its call: a retry (input_required) or polls (a task created).
func (t *Tracker) noteCall(e *entry, f *wire.Frame) {
	if e.Dir != wire.ClientToServer || f.Msg.Kind != wire.KindResult {
		return
	}
	root := e
	if e.call != nil {
		root = e.call
	}
	if f.Msg.ResultType == "input_required" {
		remember(&t.links.awaiting, e.Method+"\x00"+e.Target, root)
	}
	if e.taskCreated {
		if id, ok := protocol.CreatedTaskID(e.Method, f); ok {
			remember(&t.links.tasks, id, root)
		}
	}
}

func remember(m *map[string]*entry, key string, e *entry) {
	if *m == nil || len(*m) >= maxAwaiting {
		*m = map[string]*entry{}
	}
	(*m)[key] = e
}

// Calls returns the client's logical calls, in the order they began.
func (t *Tracker) Calls() []Call {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Call
	t.records(0, func(e *entry, _ bool) bool {
		if e.Dir == wire.ClientToServer && e.call == nil {
			out = append(out, e.callOf())
		}
		return true
	})
	return out
}

// CallOf returns the logical call the client request seq belongs to.
func (t *Tracker) CallOf(seq uint64) (Call, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.bySeqLocked(seq)
	if e == nil || e.Dir != wire.ClientToServer {
		return Call{}, false
	}
	if e.call != nil {
		e = e.call
	}
	return e.callOf(), true
}

// callOf is the call e begins.
func (e *entry) callOf() Call {
	c := Call{Request: e.Request, Rounds: []Request{e.Request}}
	add := func(q *entry) {
		c.Progress += q.ProgressCount
		if q.State == ReqInFlight {
			c.Open = true
		}
		c.End = max(c.End, q.EndedAt)
	}
	add(e)
	for _, q := range e.parts {
		if q.Poll {
			c.Polls = append(c.Polls, q.Request)
		} else {
			c.Rounds = append(c.Rounds, q.Request)
		}
		add(q)
	}
	return c
}
