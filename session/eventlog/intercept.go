package eventlog

import (
	"slices"
	"time"

	"linesman/wire"
)

// Interception (the inspector's i): linesman holds a frame in flight, and
// the person releases it as it was, edits it, or drops it. Every step is an
// [EventIntercept], so a capture shows what the wire carried and what
// linesman changed, and the fold keeps the two apart:
//
//   - A frame the client sends (c2s) is held before it reaches the wire:
//     the held event carries it (Event.Frame), and only what is released
//     is logged as a frame, after the release — judged as what crossed the
//     wire (an edited request is the request the server got). A dropped
//     one never crossed: nothing is judged.
//   - A frame the server writes (s2c) is logged as it crossed the wire
//     (the server is judged for what it wrote, when it wrote it), then
//     held before the client side sees it: the stdout reader waits, so the
//     server waits as on a blocked pipe. An edit is what the client side
//     got instead (the edited event's Frame); the server is judged for its
//     own bytes only. While the server's stdout is held, no request of the
//     client's times out, and on the release every deadline moves on by the
//     time held: the server cannot be charged for linesman's wait. (An
//     answer waiting in the pipe behind a held frame is logged when read:
//     its latency includes the hold.)
//   - A dropped request is answered with a JSON-RPC error
//     ([CodeInterceptDropped]) by linesman: a server's request on the wire
//     (a client frame, logged as such; the note says it is linesman's), a
//     client's in the event (Answer), since it never reached the server.

// InterceptAction is one step of a held frame's story.
type InterceptAction string

const (
	InterceptHeld     InterceptAction = "held"     // kept from the other side
	InterceptReleased InterceptAction = "released" // passed on as it was
	InterceptEdited   InterceptAction = "edited"   // passed on as edited (Event.Frame)
	InterceptDropped  InterceptAction = "dropped"  // never passed on
)

// CodeInterceptDropped is the JSON-RPC error code linesman answers a
// dropped request with (implementation-defined server error range).
const CodeInterceptDropped = -32050

// InterceptEvent is the payload of an [EventIntercept] event.
type InterceptEvent struct {
	Action InterceptAction
	// Hold numbers the held frame (1, 2, …): every event of its story
	// carries the same number.
	Hold uint64
	Dir  wire.Dir // the way the frame was going
	// FrameSeq is, for a server's frame, the Seq of the frame as logged
	// when it crossed the wire (0 for a client's: it had not crossed).
	FrameSeq uint64
	// Filter is the interception filter the frame matched (held).
	Filter string
	// Answer is the JSON-RPC error linesman answered a dropped client
	// request with (dropped, c2s; a server's request is answered on the
	// wire instead).
	Answer string
}

// Hold is one frame held now ([Tracker.Held]).
type Hold struct {
	Hold  uint64
	Dir   wire.Dir
	Seq   uint64      // the row to show it on: the server's frame, or the held event of a client's
	Frame *wire.Frame // a client's frame as held (nil for a server's: the frame at Seq)
	Since time.Duration
}

// intercepts is the fold's record of interception.
type intercepts struct {
	held   []Hold
	state  map[uint64]InterceptAction // by row Seq (Hold.Seq): the last step
	counts map[InterceptAction]int
	// s2cSince is when the server's stdout was held (0: it is not): only
	// one server frame can be held at a time, the reader waits on it.
	s2cSince time.Duration
	s2cHeld  bool
}

// intercepted folds one step of interception.
func (t *Tracker) intercepted(ev *Event) {
	ie := ev.Intercept
	t.mu.Lock()
	defer t.mu.Unlock()
	x := &t.icept
	if x.state == nil {
		x.state, x.counts = map[uint64]InterceptAction{}, map[InterceptAction]int{}
	}
	x.counts[ie.Action]++
	if ie.Action == InterceptHeld {
		row := ie.FrameSeq
		if ie.Dir == wire.ClientToServer || row == 0 {
			row = ev.Seq
		}
		x.held = append(x.held, Hold{Hold: ie.Hold, Dir: ie.Dir, Seq: row, Frame: ev.Frame, Since: ev.At})
		x.state[row] = InterceptHeld
		if ie.Dir == wire.ServerToClient {
			x.s2cSince, x.s2cHeld = ev.At, true
		}
		return
	}
	i := slices.IndexFunc(x.held, func(h Hold) bool { return h.Hold == ie.Hold })
	if i < 0 {
		return
	}
	h := x.held[i]
	x.held = slices.Delete(x.held, i, i+1)
	x.state[h.Seq] = ie.Action
	if h.Dir == wire.ServerToClient && x.s2cHeld {
		t.resumeDeadlinesLocked(x.s2cSince, ev.At)
		x.s2cHeld = false
	}
}

// resumeDeadlinesLocked moves every client request's deadline on by the
// time the server's stdout was held (from since to at) while the request
// was in flight.
func (t *Tracker) resumeDeadlinesLocked(since, at time.Duration) {
	for _, es := range t.spaces[wire.ClientToServer].inflight {
		for _, e := range es {
			if e.Deadline != 0 {
				e.Deadline += at - max(since, e.SentAt)
			}
		}
	}
	t.waits.waitingIn(wire.ClientToServer, func(r *waitRec) {
		if r.due != 0 {
			r.due += at - max(since, r.sentAt)
		}
	})
}

// stdoutHeldLocked reports whether a server frame is held now: the clock
// does not run against the server.
func (t *Tracker) stdoutHeldLocked() bool { return t.icept.s2cHeld }

// Held returns the frames held now, oldest first.
func (t *Tracker) Held() []Hold {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.icept.held)
}

// Intercepted returns the last step of interception of the frame shown on
// row seq (a server's frame, or the held event of a client's); ok is false
// for a frame never held.
func (t *Tracker) Intercepted(seq uint64) (InterceptAction, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.icept.state[seq]
	return a, ok
}

// Intercepts counts the steps of interception by action.
func (t *Tracker) Intercepts() map[InterceptAction]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[InterceptAction]int, len(t.icept.counts))
	for k, v := range t.icept.counts {
		out[k] = v
	}
	return out
}
