package eventlog

import (
	"fmt"
	"slices"
	"time"

	"linesman/session/protocol"
	"linesman/wire"
)

// response pairs an answer sent in direction dir with a request sent the
// other way, and returns the request it answers (nil: none). The pairing
// rules, which every reader of pairs relies on ([Tracker.PairOf]):
//
//   - the oldest request in flight with the answer's id (of two requests
//     with one id, the first is answered first);
//   - else the request with that id that ended without an answer: a
//     cancelled one (the answer is late), a timed-out or lost one (answered
//     after all);
//   - else, when the request with that id was answered already, nothing
//     (duplicate-response);
//   - else the request in flight whose id is the same number or string of
//     the other type ("3" answering 3: id-type-mismatch);
//   - else nothing (unknown-response-id: an answer before its request, an
//     id never used, an id of the process before a restart).
//
// An error with id null (or none) names no request: it is legal (a parse
// error) and pairs with nothing; the fold remembers the client frame it most
// likely answers (see [Pairing].Unreadable).
func (t *Tracker) response(seq uint64, dir wire.Dir, f *wire.Frame, at time.Duration) *entry {
	m := &f.Msg
	if m.ID.Kind == wire.IDNull || m.ID.Kind == wire.IDAbsent {
		if dir == wire.ServerToClient && t.unreadable != 0 {
			t.nullAnswers[seq] = t.unreadable
		}
		return nil
	}
	sp := t.spaces[opposite(dir)]
	if es := t.inflightOf(opposite(dir), m.ID); len(es) > 0 {
		e := es[0] // answer removes it from es
		t.answer(sp, e, seq, dir, f, at)
		return e
	}
	if e, _ := t.endedOf(opposite(dir), m.ID); e != nil {
		switch {
		case e.State == ReqCancelled && e.ResponseSeq == 0:
			e.Late, e.ResponseSeq = true, seq
			t.answers[seq] = e
			t.noteAnswer(e, f)
			if e.Abandoned {
				// linesman's own probe, given up on: the answer took
				// longer than linesman waited, which is no fault.
				return e
			}
			t.lateResponse(sp, e, f)
			return e
		case (e.State == ReqTimedOut || e.State == ReqLost) && e.ResponseSeq == 0:
			// Answered after all: once timed out, or drained from the pipe
			// after the process exited.
			t.answer(sp, e, seq, dir, f, at)
			return e
		}
		addFinding(f, wire.NewFinding("duplicate-response", fmt.Sprintf(
			"a second answer to request #%d (%s, id %s), already answered at #%d",
			e.Seq, e.Method, idText(e.ID), e.ResponseSeq)))
		return nil
	}
	if other, ok := otherType(m.ID); ok {
		if es := t.inflightOf(opposite(dir), other); len(es) > 0 {
			e := es[0]
			addFinding(f, wire.NewFinding("id-type-mismatch", fmt.Sprintf(
				"answer has id %s but request #%d (%s) used id %s: strict clients cannot match them",
				idText(m.ID), e.Seq, e.Method, idText(e.ID))))
			t.answer(sp, e, seq, dir, f, at)
			return e
		}
	}
	who := "client"
	if opposite(dir) == wire.ServerToClient {
		who = "server"
	}
	addFinding(f, wire.NewFinding("unknown-response-id", fmt.Sprintf(
		"answer with id %s matches no request the %s sent", idText(m.ID), who)))
	return nil
}

// answer ends e with the response f.
func (t *Tracker) answer(sp *idSpace, e *entry, seq uint64, dir wire.Dir, f *wire.Frame, at time.Duration) {
	m := &f.Msg
	state := ReqAnswered
	if m.Kind == wire.KindError {
		state = ReqError
	}
	if e.State == ReqInFlight {
		t.end(sp, e, state, at)
	} else {
		e.State, e.EndedAt = state, at
	}
	e.ResponseSeq = seq
	t.answers[seq] = e
	sp.answeredUpTo = max(sp.answeredUpTo, e.Seq)
	e.quietBefore = t.lastS2CAt
	t.noteAnswer(e, f)

	if dir != wire.ServerToClient {
		return
	}
	t.learnAnswer(e, seq, f)
	t.learnOffer(e, seq, f)
	t.checkUnflushed(e, f, at)
}

// noteAnswer copies what the answer says into the request.
func (t *Tracker) noteAnswer(e *entry, f *wire.Frame) {
	if f.Msg.Kind == wire.KindError {
		e.ErrorCode, e.ErrorMessage = f.Msg.ErrorCode(), f.Msg.ErrorMessage()
	} else if f.Msg.HasResultType {
		e.ResultType = f.Msg.ResultType
	}
	e.taskCreated = protocol.CreatesTask(e.Method, f)
	t.noteCall(e, f)
}

// end moves e out of the in-flight set.
func (t *Tracker) end(sp *idSpace, e *entry, state RequestState, at time.Duration) {
	es := sp.inflight[e.ID]
	if i := slices.Index(es, e); i >= 0 {
		es = slices.Delete(es, i, i+1)
		sp.open--
	}
	if len(es) == 0 {
		delete(sp.inflight, e.ID)
	} else {
		sp.inflight[e.ID] = es
	}
	sp.ended[e.ID] = e
	e.State, e.EndedAt = state, at
}

// Error codes the tracker and the handshake recognise.
const (
	// CodeUnsupportedProtocolVersion is the 2026-07-28 error a server sends
	// when the request's _meta names a protocol version it does not speak;
	// its data lists the versions it does ("supported") and the one asked
	// for ("requested"). An answer with it to server/discover still means
	// the server is modern.
	CodeUnsupportedProtocolVersion = -32022
	// CodeMethodNotFound is JSON-RPC's "method not found".
	CodeMethodNotFound = -32601
)

// lateResponse raises late-response on f, the answer to e after e was
// cancelled: a note (the two crossed on the wire), or a warning when the
// answering side had already answered a request sent after the cancel, so
// had read the cancel before it answered.
func (t *Tracker) lateResponse(sp *idSpace, e *entry, f *wire.Frame) {
	fd := wire.NewFinding("late-response", fmt.Sprintf(
		"answer to request #%d (%s, id %s) after it was cancelled at #%d; it is ignored",
		e.Seq, e.Method, idText(e.ID), e.CancelSeq))
	if sp.answeredUpTo > e.CancelSeq {
		fd.Severity = wire.SeverityWarning
		fd.Message = fmt.Sprintf("answer to request #%d (%s, id %s) cancelled at #%d, sent after the answer to request #%d, which came after the cancel: the cancel had been read, and the request should have gone unanswered",
			e.Seq, e.Method, idText(e.ID), e.CancelSeq, sp.answeredUpTo)
	}
	addFinding(f, fd)
}
