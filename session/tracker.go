package session

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

// Request is a snapshot of one tracked request.
type Request struct {
	Dir         wire.Dir
	ID          wire.ID
	Method      string
	Seq         uint64        // Seq of the request frame
	SentAt      time.Duration // log clock
	State       RequestState
	EndedAt     time.Duration // when State left ReqInFlight
	ResponseSeq uint64        // Seq of the response frame, or 0
	Late        bool          // an answer arrived after the client cancelled it

	ProgressToken   wire.ID
	Progress, Total float64
	HasProgress     bool
	ProgressMessage string
}

// TrackerOptions configure a Tracker.
type TrackerOptions struct {
	Timeout    time.Duration // per request; 0 means 60 s
	MaxTimeout time.Duration // cap on the timeout when progress keeps resetting it; 0 means 10 × Timeout
}

// Tracker keeps the JSON-RPC bookkeeping of a session: requests in flight in
// both directions and the protocol findings. It is safe for concurrent use.
//
// This file holds the contract; the bookkeeping itself is issue 4's.
type Tracker struct {
	opts TrackerOptions
}

// NewTracker returns an empty tracker.
func NewTracker(opts TrackerOptions) *Tracker { return &Tracker{opts: opts} }

// Frame observes a frame about to be logged with the given Seq at the given
// log time, appends the protocol findings it raises to f.Findings, and
// updates the requests. Called in log order, under the log's lock (through
// Log.AppendWith): it must be quick and must not touch the log.
func (t *Tracker) Frame(seq uint64, dir wire.Dir, f *wire.Frame, at time.Duration) {}

// Exited tells the tracker the process exited at the given time; requests
// still in flight become ReqLost, and the findings to log are returned.
func (t *Tracker) Exited(at time.Duration) []LoggedFinding { return nil }

// StdinClosed tells the tracker the client closed the server's stdin.
func (t *Tracker) StdinClosed(at time.Duration) {}

// Tick checks timeouts at the given time and returns the findings to log.
func (t *Tracker) Tick(at time.Duration) []LoggedFinding { return nil }

// InFlight returns the requests still open, both directions, oldest first.
func (t *Tracker) InFlight() []Request { return nil }

// Requests returns every request tracked so far, in the order they were sent.
func (t *Tracker) Requests() []Request { return nil }
