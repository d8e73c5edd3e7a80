package eventlog

import (
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"linesman/wire"
)

// The Tracker is the projection of a session's log: the one place where
// every derived fact of the log is computed (which answer pairs with which
// request, what is in flight, the handshake, the protocol findings of each
// frame), by a fold over the log's events in log order. The same fold runs
// live (the session applies each event as it is logged), on a capture
// (capture.Open applies the recorded events), on a log filled by hand (tests,
// the UI's fallback) and on export; the UI, the reports and capture read
// these facts through its accessors and never work them out again.

// Apply is the fold's only door: it folds one event of the log into the
// projection, in log order. ev.Seq and ev.At must be set: a live session
// applies each event under the log's lock with the Seq it gets
// ([Log.AppendWith]); a capture, a foreign log or a test applies the events
// as they are appended. Frames get their protocol findings here (on
// ev.Frame.Findings, before the frame becomes visible).
//
// Apply returns the findings the event settles that are logged on their
// own, after it (requests timed out by an [EventTimeout], requests left
// unanswered and unflushed output at an [EventEnd], a shutdown step the
// host took out of order at an [EventProcess]): a live session logs
// them; a replay of a log that recorded them already discards them, so that
// the same events give the same projection live and replayed.
func (t *Tracker) Apply(ev *Event) []LoggedFinding {
	switch ev.Type {
	case EventFrame:
		if ev.Frame != nil {
			t.frameWith(ev.Seq, ev.Dir, ev.Frame, ev.At, ev.Params)
		}
	case EventEra:
		if ev.Era != nil {
			t.mu.Lock()
			t.decide(*ev.Era, ev.Note)
			t.mu.Unlock()
		}
	case EventRestart:
		t.restarted(ev.At)
		t.hostRestarted()
	case EventProcess:
		if ev.Process != nil {
			return t.processEvent(ev.Process, ev.At)
		}
	case EventTimeout:
		return t.tick(ev.At)
	case EventStdinClosed:
		t.stdinClosed(ev.At, ev.Stdin != nil && ev.Stdin.ByHost)
	case EventEnd:
		if ev.End != nil && ev.End.Exited {
			return t.exited(ev.At)
		}
	case EventFault:
		if ev.Fault != nil {
			t.injected(ev.Fault)
		}
	case EventIntercept:
		if ev.Intercept != nil {
			t.intercepted(ev)
		}
	case EventFinding:
		if ev.Finding != nil && ev.Finding.FrameSeq != 0 {
			t.mu.Lock()
			t.later[ev.Finding.FrameSeq] = append(t.later[ev.Finding.FrameSeq], ev.Finding.Finding)
			t.mu.Unlock()
		}
	}
	return nil
}

// FindingsOf returns every finding of the frame event ev: those it was
// logged with, then those logged about it later (a timeout, unflushed
// output, what the end settled), in log order.
func (t *Tracker) FindingsOf(ev *Event) []wire.Finding {
	if ev.Frame == nil {
		return nil
	}
	t.mu.Lock()
	late := t.later[ev.Seq]
	t.mu.Unlock()
	if len(late) == 0 {
		return ev.Frame.Findings
	}
	return append(slices.Clone(ev.Frame.Findings), late...)
}

// LaterFindings counts the findings logged about the frame seq after it.
func (t *Tracker) LaterFindings(seq uint64) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.later[seq])
}

// Record appends ev to log and folds it into tr ([Tracker.Apply]) under the
// log's lock, with the Seq and the clock reading it gets, then logs the
// findings it settles right after it. It returns the event's Seq. It is how
// a live session logs every event: the one way to keep a log and its
// projection in step (a capture's reader, which knows the Seq beforehand
// and keeps the recorded times, applies and appends by itself).
func Record(log *Log, tr *Tracker, ev Event) uint64 {
	var settled []LoggedFinding
	seq := log.AppendWith(func(seq uint64, at time.Duration) Event {
		ev.Seq, ev.At = seq, at
		settled = tr.Apply(&ev)
		return ev
	})
	for i := range settled {
		// A timeout may settle a million findings at once: they wait for
		// a held log's reader as an appender's events do (Log.Pace).
		log.Pace()
		Record(log, tr, Event{Type: EventFinding, Finding: &settled[i]})
	}
	return seq
}

// Pairing is the projection's word on one frame's place in a request and
// its answer.
type Pairing struct {
	// Request is the request's record (its frame is Request.Seq); zero when
	// the frame is an answer that pairs with no request.
	Request Request
	// Response is the Seq of the answer frame, 0 while unanswered (or for an
	// answer that pairs with nothing).
	Response uint64
	// Unreadable is set on an error answer with id null (which names no
	// request: legal, a parse error): the Seq of the last client frame
	// before it that the server could not read as a message, which it most
	// likely answers; 0 when there was none.
	Unreadable uint64
}

// Paired reports whether the pairing joins a request and an answer.
func (p Pairing) Paired() bool { return p.Request.Seq != 0 && p.Response != 0 }

// PairOf returns the pairing of the frame with the given Seq: for a request,
// its record and the answer that paired with it (if any); for an answer, the
// request it answers (by the rules of [Tracker.response]); ok is false for
// frames that are neither (and for an answer that pairs with nothing, unless
// it is a null-id error after an unreadable frame).
func (t *Tracker) PairOf(seq uint64) (p Pairing, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.answers[seq]; e != nil {
		return Pairing{Request: e.Request, Response: seq}, true
	}
	if u, ok := t.nullAnswers[seq]; ok {
		return Pairing{Unreadable: u}, true
	}
	if e := t.bySeqLocked(seq); e != nil {
		return Pairing{Request: e.Request, Response: e.ResponseSeq}, true
	}
	return Pairing{}, false
}

// ProgressFor returns the request frame that offered the token of the
// notifications/progress frame seq (ok false: none did, or seq is no
// progress notification).
func (t *Tracker) ProgressFor(seq uint64) (req uint64, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	req, ok = t.progressFor[seq]
	return req, ok
}

// AnswerTo returns the request that the answer frame seq answers.
func (t *Tracker) AnswerTo(seq uint64) (Request, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.answers[seq]; e != nil {
		return e.Request, true
	}
	return Request{}, false
}

// InFlightWith reports whether a request sent in direction dir with the
// given id is still in flight.
func (t *Tracker) InFlightWith(dir wire.Dir, id wire.ID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if dir != wire.ClientToServer && dir != wire.ServerToClient {
		return false
	}
	if r := t.peek(dir, id); r != nil {
		return r.state == ReqInFlight
	}
	return len(t.spaces[dir].inflight[id]) > 0
}

// InFlight returns the requests still open, both directions, oldest first.
func (t *Tracker) InFlight() []Request {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Request
	for _, sp := range t.spaces[1:] {
		for _, es := range sp.inflight {
			for _, e := range es {
				out = append(out, e.Request)
			}
		}
	}
	var e entry
	for _, dir := range []wire.Dir{wire.ClientToServer, wire.ServerToClient} {
		t.waits.waitingIn(dir, func(r *waitRec) {
			t.waits.fill(&e, r)
			out = append(out, e.Request)
		})
	}
	slices.SortFunc(out, func(a, b Request) int { return cmpSeq(a.Seq, b.Seq) })
	return out
}

// Waiting returns how many requests sent in direction dir are in flight,
// and the newest request sent that way (ok false when there is none): what
// a caller waiting for the answers needs, without the copy of every request
// in flight that [Tracker.InFlight] makes (a million of them were 270 MB a
// call).
func (t *Tracker) Waiting(dir wire.Dir) (n int, newest Request, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if dir != wire.ClientToServer && dir != wire.ServerToClient {
		return 0, Request{}, false
	}
	for i := len(t.all) - 1; i >= 0; i-- {
		if e := t.all[i]; e.Dir == dir {
			newest, ok = e.Request, true
			break
		}
	}
	if a := t.waits.arena(dir); a.n > 0 && (!ok || a.last > newest.Seq) {
		if e := t.waits.compactBySeq(a.last); e != nil {
			newest, ok = e.Request, true
		}
	}
	return t.spaces[dir].open, newest, ok
}

// Requests returns every request tracked so far, in the order they were sent.
func (t *Tracker) Requests() []Request {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Request, 0, len(t.all)+t.waits.live())
	t.records(0, func(e *entry, _ bool) bool {
		out = append(out, e.Request)
		return true
	})
	return out
}

// NumRequests is how many requests EachRequest would yield now.
func (t *Tracker) NumRequests() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.all) + t.waits.live()
}

// EachRequest calls yield with a snapshot of every request, in the order
// sent, as Requests would return them, copying a few thousand at a time
// under t's lock rather than all at once (the Requests of a million
// unanswered requests were 320 MB): the report's requests list.
func (t *Tracker) EachRequest() iter.Seq[Request] {
	return func(yield func(Request) bool) {
		const chunk = 4096
		buf := make([]Request, 0, chunk)
		var after uint64 // the Seq of the last request yielded: Forget may shorten all meanwhile
		for {
			t.mu.Lock()
			buf = buf[:0]
			t.records(after+1, func(e *entry, _ bool) bool {
				buf = append(buf, e.Request)
				return len(buf) < chunk
			})
			t.mu.Unlock()
			for _, q := range buf {
				if !yield(q) {
					return
				}
				after = q.Seq
			}
			if len(buf) < chunk {
				return
			}
		}
	}
}

// RequestBySeq returns the request whose frame has the given Seq.
func (t *Tracker) RequestBySeq(seq uint64) (Request, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.bySeqLocked(seq); e != nil {
		return e.Request, true
	}
	return Request{}, false
}

func (t *Tracker) bySeqLocked(seq uint64) *entry {
	// all is in Seq order: requests are recorded in log order.
	i, ok := slices.BinarySearchFunc(t.all, seq, func(e *entry, seq uint64) int { return cmpSeq(e.Seq, seq) })
	if !ok {
		return t.waits.compactBySeq(seq)
	}
	return t.all[i]
}

// Lookup returns the latest request sent in direction dir with the given
// id (in flight first, else the last that ended).
func (t *Tracker) Lookup(dir wire.Dir, id wire.ID) (Request, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if dir != wire.ClientToServer && dir != wire.ServerToClient {
		return Request{}, false
	}
	sp := t.spaces[dir]
	if es := sp.inflight[id]; len(es) > 0 {
		return es[0].Request, true
	}
	if r := t.peek(dir, id); r != nil {
		var e entry
		t.waits.fill(&e, r)
		return e.Request, true
	}
	if e := sp.ended[id]; e != nil {
		return e.Request, true
	}
	return Request{}, false
}

// Used reports whether the client already used id in this process (in
// flight or not): the composer warns before a reuse.
func (t *Tracker) Used(id wire.ID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.spaces[wire.ClientToServer].used(id) || t.peek(wire.ClientToServer, id) != nil
}

// NextID returns the id MintID would return now, without reserving it.
func (t *Tracker) NextID() wire.ID {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, _ := t.nextIDLocked()
	return id
}

// MintID reserves and returns a fresh client request id: an integer above
// every integer id and numeric string the client used so far (ids typed by
// hand included), so it never equals, nor looks like, one already used.
func (t *Tracker) MintID() wire.ID {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, commit := t.nextIDLocked()
	commit()
	return id
}

func (t *Tracker) nextIDLocked() (wire.ID, func()) {
	sp := t.spaces[wire.ClientToServer]
	if sp.maxInt < math.MaxInt64 {
		n := sp.maxInt + 1
		return wire.IntID(n), func() { sp.maxInt = n }
	}
	// Someone used the largest integer: fall back to strings that are not numbers.
	n := sp.strMint
	for {
		n++
		id := wire.StringID("linesman-" + strconv.FormatInt(n, 10))
		if !sp.used(id) {
			return id, func() { sp.strMint = n }
		}
	}
}

// RequestCounts counts every request tracked so far by its state, those
// Forget summarised included.
func (t *Tracker) RequestCounts() map[RequestState]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := maps.Clone(t.forgotten)
	if out == nil {
		out = map[RequestState]int{}
	}
	t.records(0, func(e *entry, _ bool) bool {
		out[e.State]++
		return true
	})
	return out
}
