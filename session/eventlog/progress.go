package eventlog

import (
	"fmt"
	"time"

	"linesman/wire"
)

// Progress: notifications/progress applied to the request that offered its
// token, and the tasks (2025-11-25) whose progress outlives the answer
// that created them.

// progress applies a notifications/progress sent in direction dir to the
// request, sent the other way, that offered the token, and returns that
// request (nil: none offered it).
func (t *Tracker) progress(dir wire.Dir, f *wire.Frame, at time.Duration) *entry {
	m := &f.Msg
	e := t.spaces[opposite(dir)].tokens[m.ProgressToken()]
	if e == nil {
		fd := wire.NewFinding("progress-unknown-token", fmt.Sprintf(
			"progress for token %s, which no request in flight offered", idText(m.ProgressToken())))
		if t.forgotten != nil {
			// The token may be a request's that retention summarised.
			fd.Severity = wire.SeverityNote
			fd.Message += " (linesman has forgotten older requests: it may be one of theirs)"
		}
		addFinding(f, fd)
		return nil
	}
	e.ProgressCount++
	t.progressOf(e, f, at)
	return e
}

// progressOf judges and records a progress notification f for request e.
func (t *Tracker) progressOf(e *entry, f *wire.Frame, at time.Duration) {
	m := &f.Msg
	switch e.State {
	case ReqInFlight:
	case ReqAnswered, ReqError:
		if e.taskCreated && e.State == ReqAnswered {
			break // the task it created goes on, and reports its progress
		}
		addFinding(f, wire.NewFinding("progress-after-completion", fmt.Sprintf(
			"progress for token %s after request #%d (%s, id %s) was answered",
			idText(m.ProgressToken()), e.Seq, e.Method, idText(e.ID))))
		return
	case ReqCancelled:
		// The cancel and one progress may cross on the wire; a second
		// progress after it means the work goes on.
		if e.ProgressAfterCancel++; e.ProgressAfterCancel == 2 {
			addFinding(f, wire.NewFinding("progress-after-cancel", fmt.Sprintf(
				"progress for token %s keeps coming after request #%d (%s, id %s) was cancelled at #%d: the work was not stopped",
				idText(m.ProgressToken()), e.Seq, e.Method, idText(e.ID), e.CancelSeq)))
		}
		return
	default:
		// Timed out or lost: the sender may not know yet.
		return
	}
	if e.HasProgress && !(m.Progress() > e.Progress) {
		addFinding(f, wire.NewFinding("progress-not-increasing", fmt.Sprintf(
			"progress %s for token %s after %s: progress must increase with each notification",
			fmtNum(m.Progress()), idText(m.ProgressToken()), fmtNum(e.Progress))))
	}
	e.HasProgress = true
	e.Progress, e.Total, e.HasTotal = m.Progress(), m.Total(), m.HasTotal()
	e.ProgressMessage = m.ProgressMessage()
	e.LastProgressAt = at
	if e.Deadline != 0 {
		e.Deadline = min(at+t.opts.timeout(), e.SentAt+t.opts.maxTimeout())
	}
}
