package eventlog

import (
	"time"

	"linesman/wire"
)

// RequestState is how a tracked request stands or ended.
type RequestState uint8

const (
	ReqInFlight  RequestState = iota + 1
	ReqAnswered               // a result arrived
	ReqError                  // an error response arrived
	ReqCancelled              // the client cancelled it (a later answer is "late")
	ReqTimedOut               // no answer within the timeout
	ReqLost                   // the process exited (or restarted) with it in flight
)

// String returns the state's spelling in the JSON report.
func (s RequestState) String() string {
	switch s {
	case ReqInFlight:
		return "in-flight"
	case ReqAnswered:
		return "answered"
	case ReqError:
		return "error"
	case ReqCancelled:
		return "cancelled"
	case ReqTimedOut:
		return "timed-out"
	case ReqLost:
		return "lost"
	default:
		return "unknown"
	}
}

// Request is a snapshot of one tracked request. (Its small fields are
// together at the end: a million requests in flight are a million of
// them, and padding between words was 48 bytes of each.)
type Request struct {
	ID          wire.ID
	Method      string
	Seq         uint64        // Seq of the request frame
	SentAt      time.Duration // log clock
	EndedAt     time.Duration // when State left ReqInFlight
	ResponseSeq uint64        // Seq of the response frame, or 0

	ProgressToken   wire.ID
	Progress, Total float64
	ProgressMessage string
	LastProgressAt  time.Duration // log clock of the last progress notification
	// Deadline is the log time at which a client request still in flight
	// times out (progress pushes it back, up to SentAt+MaxTimeout); zero for
	// server requests, which linesman does not time out.
	Deadline time.Duration
	// ResultType is result.resultType of the answer, when it had one.
	ResultType string
	// ErrorCode and ErrorMessage are those of an error answer.
	ErrorCode    int64
	ErrorMessage string
	// CancelSeq is the Seq of the notifications/cancelled frame, or 0.
	CancelSeq uint64
	// ProgressAfterCancel counts the progress notifications for it that
	// came after it was cancelled.
	ProgressAfterCancel int
	// CollidesWith is the Seq of the request still in flight with the same
	// id when this one was sent (reused-id-in-flight), or 0.
	CollidesWith uint64

	// Target is what the request names: a tools/call's or prompts/get's
	// params.name, a resources/read's params.uri ([Request.Tool]).
	Target string
	// CallSeq is, on a client request that continues a logical call (a
	// retry of a 2026-07-28 multi-round request, a poll of the task a call
	// created), the Seq of the call's first request; 0 on a request that
	// begins a call of its own ([Tracker.Calls]). Poll says it polls,
	// fetches or cancels the call's task (tasks/get, tasks/result,
	// tasks/cancel).
	CallSeq uint64
	// ProgressCount counts the notifications/progress for its token.
	ProgressCount int

	Dir   wire.Dir
	State RequestState
	Late  bool // an answer arrived after the client cancelled it
	// Abandoned: it was linesman's era probe, given up on unanswered
	// ([EraDecision].ProbeAbandoned); a late answer or a reuse of its id
	// is no finding.
	Abandoned   bool
	HasProgress bool
	HasTotal    bool // Total was given by the last progress notification
	// TimedOut is set once request-timeout was raised; the request may
	// still be answered afterwards (State then says so).
	TimedOut bool
	// Era is the era the request was sent in (unknown before it was
	// decided).
	Era  Era
	Poll bool
}

// Tool is the name of the tool a tools/call calls, or "".
func (r Request) Tool() string {
	if r.Method == "tools/call" {
		return r.Target
	}
	return ""
}
