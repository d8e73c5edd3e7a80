package eventlog

import (
	"fmt"
	"time"

	"linesman/wire"
)

// Judged is what the protocol judge sees of one frame: the frame, where it
// stands in the conversation, and (for a request or an answer) the request
// as the fold has just recorded or paired it.
type Judged struct {
	Seq   uint64
	Dir   wire.Dir
	Frame *wire.Frame
	At    time.Duration // log clock
	// Era is the era the frame was sent in (an answer that decides the era
	// is judged by the era before it).
	Era Era
	// Request is, for a request frame, its own record; for an answer, the
	// request it answers (its Method, Seq and ID: what the answer carries
	// no trace of); nil for notifications, frames that are not JSON-RPC, and
	// answers that pair with no request.
	Request *Request
	// Handshake is the handshake as it stands after the frame's
	// bookkeeping. It is the fold's own: read it during the call only,
	// never change or keep it.
	Handshake *Handshake
	// Params is the classifier's index of the frame's params, when the
	// frame was logged with one (Event.Params); read it during the call only.
	Params *wire.ParamsIndex
}

// A Judge judges one frame against the protocol rules of its era and
// returns the findings it raises (nil for none). It runs inside the fold,
// under the tracker's lock and the log's: it must be quick, must not block
// and must not call back into the Tracker or the Log. It must be a pure
// function of what it is given (the same frames give the same findings
// live, on view, on export and in tests). It may keep no state of its own
// beyond what Judged carries, and not j itself: the tracker fills the
// same Judged for every frame.
type Judge func(j *Judged) []wire.Finding

// judging is the Judged that [Tracker.judge] hands the rules, with the
// request it carries: the tracker's own, reused from frame to frame (a
// Judged handed to a Judge escapes, and was an allocation a frame).
type judging struct {
	j   Judged
	req Request
}

// judge is the one place where a frame is judged against the protocol rules
// of its era: the fold (Apply of a frame) calls it once per frame, after the frame's
// bookkeeping (the request recorded, the answer paired with req, progress,
// cancellation and the handshake facts applied), so the paired request's
// method and Seq are known here. The rules built into the fold are judged
// first; then [TrackerOptions.Judge], when set, adds its findings. Findings
// go onto the frame (f.Findings), in that order.
//
// Rules that need the bookkeeping's own state (reused ids, unknown or
// duplicate answers, progress tokens, late answers) are raised where that
// state changes, in request, response and progress; everything that can be
// decided from the frame, its era and its paired request belongs here.
func (t *Tracker) judge(frame Judged, req *entry) {
	t.judging.j = frame
	j := &t.judging.j
	defer func() { t.judging = judging{} }() // keeps no frame alive
	f := j.Frame
	if req != nil {
		t.judging.req = req.Request
		j.Request = &t.judging.req
	}
	if f.Msg.Kind == wire.KindResult && j.Dir == wire.ServerToClient && j.Request != nil && !j.Request.Late && j.Era == EraModern {
		judgeResultType(f, j.Request)
	}
	if t.rules != nil {
		t.rules.frame(j, &t.hs)
		t.hostFrame(j)
	}
	if t.opts.Judge != nil {
		j.Handshake = &t.hs
		f.Findings = append(f.Findings, t.opts.Judge(j)...)
	}
}

// judgeResultType checks a 2026-07-28 result's resultType.
func judgeResultType(f *wire.Frame, r *Request) {
	m := &f.Msg
	switch {
	case !m.HasResultType && !f.Truncated():
		// A frame cut at the maximum frame size may have lost its
		// resultType past the cut: oversize-frame says so already.
		addFinding(f, wire.NewFinding("missing-result-type", fmt.Sprintf(
			"result to request #%d (%s) has no resultType; 2026-07-28 servers must include it",
			r.Seq, r.Method)))
	case m.ResultType != "complete" && m.ResultType != "input_required":
		addFinding(f, wire.NewFinding("unknown-result-type", fmt.Sprintf(
			"result to request #%d (%s) has resultType %q; only \"complete\" and \"input_required\" exist",
			r.Seq, r.Method, m.ResultType)))
	}
}
