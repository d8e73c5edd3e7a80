package eventlog

import (
	"sync"
	"sync/atomic"
	"time"

	"linesman/wire"
)

// EventType says which of an Event's payload fields is set.
type EventType uint8

const (
	EventFrame   EventType = iota + 1 // Frame and Dir are set
	EventStderr                       // Stderr is set
	EventProcess                      // Process is set
	EventFinding                      // Finding is set (a finding not attached to a frame when it was logged)
	EventNote                         // Note is set (what linesman did and why)
	EventEra                          // Era is set: an era decision (Note, when set, says it in words)
	EventRestart                      // Restart is set: a fresh process replaced the old one (Note says it in words)
	// EventTimeout: the session's clock reached the deadline of a request
	// in flight; the fold times out every request due at At (no payload).
	EventTimeout
	// EventStdinClosed: the server's stdin was closed (Stdin says by whom);
	// answers after it are judged against the close.
	EventStdinClosed
	// EventEnd: the conversation ended (End says how): the process exited
	// and its pipes were drained, or the records stopped without an exit.
	// The fold settles what only the end settles.
	EventEnd
	// EventFault: linesman injected a fault (Fault says which): what the
	// host saw there was linesman's doing, not the server's, and the fold
	// charges the server for none of it.
	EventFault
	// EventIntercept: linesman held, released, edited or dropped a frame
	// in flight (Intercept says which; see intercept.go). Frame and Dir,
	// when set, are the frame held before it reached the wire (c2s) or the
	// frame as edited: what the other side got instead of what the wire
	// carried. The fold judges neither side for it.
	EventIntercept
	// EventUnjudged: bytes a tap passed on that its scribe did not frame
	// (Unjudged holds them): it fell that far behind the wire. The fold
	// reads nothing of them; a capture keeps them, and a reader of the
	// capture frames and judges them there.
	EventUnjudged
)

// String returns the event type's name in captures and reports.
func (t EventType) String() string {
	switch t {
	case EventFrame:
		return "frame"
	case EventStderr:
		return "stderr"
	case EventProcess:
		return "process"
	case EventFinding:
		return "finding"
	case EventNote:
		return "note"
	case EventEra:
		return "era"
	case EventRestart:
		return "restart"
	case EventTimeout:
		return "timeout"
	case EventStdinClosed:
		return "stdin-closed"
	case EventEnd:
		return "end"
	case EventFault:
		return "fault"
	case EventIntercept:
		return "intercept"
	case EventUnjudged:
		return "unjudged"
	default:
		return "unknown"
	}
}

// ProcessState is a step of the server process's life.
type ProcessState uint8

const (
	StateStarting ProcessState = iota + 1
	StateRunning
	StateExiting // Step says which shutdown step is under way
	StateExited
)

// String returns the state's name.
func (s ProcessState) String() string {
	switch s {
	case StateStarting:
		return "starting"
	case StateRunning:
		return "running"
	case StateExiting:
		return "exiting"
	case StateExited:
		return "exited"
	default:
		return "unknown"
	}
}

// ShutdownStep is a rung of the shutdown ladder, or how the process ended.
type ShutdownStep uint8

const (
	StepNone       ShutdownStep = iota // not shutting down; as EndedBy: it exited on its own
	StepStdinClose                     // stdin closed, waiting for the server to exit
	StepSIGTERM                        // SIGTERM sent to the process group
	StepSIGKILL                        // SIGKILL sent to the process group
)

// String returns the step's name as in the JSON report's endedBy
// ("exit" for StepNone).
func (s ShutdownStep) String() string {
	switch s {
	case StepStdinClose:
		return "stdin-close"
	case StepSIGTERM:
		return "sigterm"
	case StepSIGKILL:
		return "sigkill"
	default:
		return "exit"
	}
}

// ProcessEvent records a change in the server process's state.
type ProcessEvent struct {
	State ProcessState
	Step  ShutdownStep // for StateExiting: the step under way; for StateExited: the step that ended it
	Pid   int
	// For StateExited: ExitCode is -1 when a signal ended the process, and
	// Signal names it ("SIGKILL"); ShutdownTook is the time from the first
	// shutdown step to the exit (zero when it exited on its own).
	ExitCode     int
	Signal       string
	ShutdownTook time.Duration
	// AfterEOF (StateExited): the server's stdin had been closed when the
	// exit was seen, so an exit on its own answered the end of its input
	// (the spec's shutdown), not a crash. On a host's StateExiting step:
	// the host had closed stdin before it sent the signal (its close may be
	// logged after the signal: the judge logs it in the wire's order).
	AfterEOF bool
	// ByHost: the host linesman stands between (a tap's) took the step: for
	// StateExiting, it sent the signal Signal names; for StateExited, the
	// close of stdin (AfterEOF) or the step that ended it was the host's.
	ByHost bool
	// Detail is a one-line human description ("started /usr/bin/python3 server.py").
	Detail string
}

// LoggedFinding is a finding in the log that was not, or could not be,
// attached to a frame when the frame was logged: process and stderr findings
// (FrameSeq 0), and findings discovered later about an earlier frame (a
// timeout, unflushed output), which point at it with FrameSeq.
type LoggedFinding struct {
	wire.Finding
	FrameSeq uint64   // the Seq of the frame it concerns, or 0
	Dir      wire.Dir // the direction concerned, or 0
}

// StdinEvent is the payload of an [EventStdinClosed] event.
type StdinEvent struct {
	// ByHost: the host linesman stands between (a tap's) closed its end,
	// rather than linesman itself (the shutdown ladder, a user's close).
	ByHost bool
}

// EndEvent is the payload of an [EventEnd] event.
type EndEvent struct {
	// Exited: the process exited and what it wrote was drained; false for
	// a log whose records stop without an exit (another tool's log, a
	// recording cut short).
	Exited bool
}

// FaultKind is the kind of a fault linesman injects (tap --fault, mock --fault).
type FaultKind string

const (
	FaultDelay       FaultKind = "delay"        // an answer held back for a while
	FaultDrop        FaultKind = "drop"         // an answer never passed on
	FaultError       FaultKind = "error"        // an answer replaced by a JSON-RPC error
	FaultTruncate    FaultKind = "truncate"     // an answer cut mid-line
	FaultCorrupt     FaultKind = "corrupt"      // invalid UTF-8 put into an answer
	FaultStray       FaultKind = "stray"        // a stray stdout line before an answer
	FaultCloseStdout FaultKind = "close-stdout" // the server's stdout closed by linesman
	FaultKill        FaultKind = "kill"         // the server killed by linesman with a signal
)

// FaultEvent is the payload of an [EventFault] event.
type FaultEvent struct {
	Kind FaultKind
	// Spec is the --fault spec that injected it; Method and ID name the
	// request whose answer it concerns (ID absent for a kill or a close
	// set off by a request count).
	Spec   string
	Method string
	ID     wire.ID
}

// UnjudgedBytes is the payload of an [EventUnjudged] event: bytes of one
// direction of the wire, exactly as they crossed it, in its order; the
// frames they hold are not cut (a piece starts where the judge stopped
// framing, and the next piece of a gap goes on where it ends).
type UnjudgedBytes struct {
	Dir   wire.Dir
	Bytes []byte
	// Last: the gap ends here; the judge frames what follows, from a line's
	// start (or nothing follows).
	Last bool
}

// Event is one entry of the log. Exactly one payload field is set, as Type says.
// Events are immutable once appended: readers may keep them.
type Event struct {
	Seq  uint64        // 1, 2, 3, ... in log order; never reused, even after retention drops
	At   time.Duration // monotonic time since the session started
	Wall time.Time     // wall-clock time (At after the log's start)
	Type EventType

	Dir   wire.Dir    // for EventFrame (and EventIntercept: see there)
	Frame *wire.Frame // for EventFrame (and EventIntercept: see there)
	// Params is, for an EventFrame as a session logs it, the classifier's
	// index of the frame's params (wire.Framer.Params), which the judge
	// reads instead of scanning them again. It is valid while the frame is
	// recorded only: the log does not keep it.
	Params  *wire.ParamsIndex
	Stderr  *wire.Line // for EventStderr: one stderr line, exact bytes, like a wire line
	Process *ProcessEvent
	Finding *LoggedFinding
	Era     *EraDecision  // for EventEra
	Restart *RestartEvent // for EventRestart
	Stdin   *StdinEvent   // for EventStdinClosed
	End     *EndEvent     // for EventEnd
	Fault   *FaultEvent   // for EventFault
	// Intercept is for EventIntercept.
	Intercept *InterceptEvent
	// Unjudged is for EventUnjudged.
	Unjudged *UnjudgedBytes
	// Note is the text of an EventNote, and the words of an EventEra or
	// EventRestart (shown where notes are; "" for a silent decision). The
	// fold reads the typed payloads, never this text.
	Note string
}

// IsNote reports whether the event is one of linesman's own notes to show:
// an EventNote, or an era decision or restart that says itself in words.
func (e *Event) IsNote() bool {
	switch e.Type {
	case EventNote:
		return true
	case EventEra, EventRestart, EventStdinClosed, EventFault, EventIntercept:
		return e.Note != ""
	}
	return false
}

// DefaultRetention is the default memory budget of a Log, in bytes.
const DefaultRetention = 256 << 20

// MemoryLimit is the soft memory limit linesman sets for itself
// (debug.SetMemoryLimit, unless GOMEMLIMIT is set): the default budget
// plus a fixed headroom for the garbage collector. Without it the
// collector lets the heap grow to about twice what is live, so a log
// full to its budget would cost twice the budget; with it, the heap stays
// near the limit, and the collector runs more often only while the log is
// near its budget.
const MemoryLimit = DefaultRetention + 144<<20

// Log is the append-only, ordered record of a session. It is safe for
// concurrent use. Appending never waits for a reader: readers Subscribe to a
// coalescing signal that says "there is more", then read by Seq. A reader
// that must miss nothing holds what it has not read ([Log.Hold]), and the
// appenders that may wait ([Log.Pace]) wait for it a budget behind.
//
// Memory is bounded by a retention budget in bytes: when it is exceeded the
// oldest events are dropped, and Dropped counts them. Seq numbers keep
// counting, so a reader can tell that it missed events. What the budget
// drops is still counted ([Log.Totals]), and linesman's notes, era
// decisions and restarts are kept apart from it ([Log.Notes]).
type Log struct {
	mu          sync.Mutex
	start       time.Time  // wall clock at the start; also carries Go's monotonic reading
	events      eventQueue // events.at(i) is the event numbered firstSeq+i
	firstSeq    uint64
	nextSeq     uint64
	bytes       int64
	retention   int64
	dropped     uint64
	droppedSize int64
	hold        uint64      // the first Seq a reader holds past the budget (0: none; see Hold)
	held        int64       // what the events from hold on cost the budget (see Pace)
	behind      atomic.Bool // held is past the budget: Pace waits (read without the lock)
	room        *sync.Cond
	pacing      int    // appenders waiting in Pace
	paces       uint64 // waits in Pace so far
	reserved    int64  // bytes kept outside the events that the budget covers (see Reserve)
	kept        Kept   // what the retained events hold (see Kept)
	subs        []chan struct{}

	// Kept outside the retention budget (see Totals and Notes).
	totals     Totals
	notes      []Event // notes, era decisions and restarts
	plainNotes int     // EventNote events appended
	notesLost  int     // plain notes past maxKeptNotes, not kept
}

// NewLog returns an empty log whose clock starts now, with the given
// retention budget in bytes (0 means DefaultRetention).
func NewLog(retention int64) *Log {
	return NewLogAt(time.Now(), retention)
}

// NewLogAt is NewLog with an explicit start time, for logs refilled from a
// capture.
func NewLogAt(start time.Time, retention int64) *Log {
	if retention <= 0 {
		retention = DefaultRetention
	}
	return &Log{start: start, firstSeq: 1, nextSeq: 1, retention: retention}
}

// Start returns the wall-clock time the log's clock started.
func (l *Log) Start() time.Time { return l.start }

// Since returns the log's monotonic clock reading now.
func (l *Log) Since() time.Duration { return time.Since(l.start) }

// Append adds an event and returns its Seq. When ev.At is zero, it is set
// from the log's clock; Wall is always derived from At. Readers are
// signalled without waiting for them.
func (l *Log) Append(ev Event) uint64 {
	if ev.At == 0 {
		ev.At = time.Since(l.start)
	}
	l.mu.Lock()
	seq := l.insertLocked(ev)
	subs := l.subs
	l.mu.Unlock()
	notifySubscribers(subs)
	return seq
}

// insertLocked gives ev its Seq and Wall time, keeps the log ordered in time
// (a caller's clock reading may be a hair older than the last event's when
// two goroutines race to append), stores it and applies the retention limit.
func (l *Log) insertLocked(ev Event) uint64 {
	if n := l.events.len(); n > 0 && ev.At < l.events.at(n-1).at {
		ev.At = l.events.at(n - 1).at
	}
	ev.Wall = l.start.Add(ev.At)
	ev.Seq = l.nextSeq
	l.nextSeq++
	l.countLocked(&ev)
	s := store(&ev)
	l.events.push(s)
	size := s.size()
	l.bytes += size
	if l.hold != 0 {
		l.held += size
		l.markBehindLocked()
	}
	l.kept.add(&s, 1)
	l.trimLocked()
	return ev.Seq
}

// notifySubscribers tells every subscriber there is more, without waiting for any: a
// subscriber already signalled will see the new events too.
func notifySubscribers(subs []chan struct{}) {
	for _, c := range subs {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// trimLocked drops the oldest events while over budget, keeping at least
// the newest, and those a Hold keeps.
func (l *Log) trimLocked() {
	for l.bytes+l.reserved > l.retention && l.events.len() > 1 {
		if l.hold != 0 && l.firstSeq >= l.hold {
			break
		}
		l.kept.add(l.events.at(0), -1)
		s := l.events.at(0).size()
		l.bytes -= s
		l.droppedSize += s
		l.events.popFront()
		l.firstSeq++
		l.dropped++
	}
}

// Reserve charges the budget with n bytes kept outside the events on the
// log's behalf, in place of what an earlier Reserve charged: the tracker's
// records of requests whose frames the log dropped ([Tracker.Forget] says
// what they cost), which a request still in flight keeps however old. The
// events make room for them, down to the newest; what a Hold keeps stays,
// so that the reader misses nothing.
func (l *Log) Reserve(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reserved = max(n, 0)
	l.trimLocked()
}

// Subscribe returns a channel that receives a value whenever events were
// appended since the last receive (signals coalesce: one value may stand for
// many events). Call the returned cancel function to stop the signals.
func (l *Log) Subscribe() (signal <-chan struct{}, cancel func()) {
	c := make(chan struct{}, 1)
	l.mu.Lock()
	l.subs = append(append([]chan struct{}(nil), l.subs...), c)
	l.mu.Unlock()
	return c, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		subs := make([]chan struct{}, 0, len(l.subs))
		for _, s := range l.subs {
			if s != c {
				subs = append(subs, s)
			}
		}
		l.subs = subs
	}
}

// Bounds returns the Seq of the oldest retained event and the Seq the next
// event will get; the retained events are first <= seq < next.
func (l *Log) Bounds() (first, next uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.firstSeq, l.nextSeq
}

// Len returns the number of retained events.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.events.len()
}

// Get returns the event with the given Seq, if it is retained.
func (l *Log) Get(seq uint64) (Event, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if seq < l.firstSeq || seq >= l.nextSeq {
		return Event{}, false
	}
	return l.events.at(int(seq-l.firstSeq)).event(seq, l.start), true
}

// Range returns copies of the retained events with from <= Seq < to, in order.
func (l *Log) Range(from, to uint64) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	lo, hi, ok := l.spanLocked(from, to)
	if !ok {
		return nil
	}
	return l.events.appendTo(nil, lo, hi, l.firstSeq+uint64(lo), l.start)
}

// AppendRange appends copies of the retained events with from <= Seq < to,
// in order, to dst and returns the extended slice, as Range does but into
// the caller's buffer: a reader that follows the log batch after batch (the
// capture recorder) reuses one buffer instead of allocating a slice per read,
// and allocates nothing under the log's lock once dst is large enough. When
// nothing is in range, dst comes back unchanged. The copies hold the events'
// payload pointers: a reader that keeps dst between reads keeps those
// payloads alive, so it should clear what it no longer needs.
func (l *Log) AppendRange(dst []Event, from, to uint64) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	lo, hi, ok := l.spanLocked(from, to)
	if !ok {
		return dst
	}
	return l.events.appendTo(dst, lo, hi, l.firstSeq+uint64(lo), l.start)
}

// AppendListed is AppendRange without the frames logged with no finding
// (a frame's findings are fixed once it is logged): it returns how many
// frames it left out, so that a reader listing only the frames findings
// point at (the text report) counts them without reading them.
func (l *Log) AppendListed(dst []Event, from, to uint64) ([]Event, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lo, hi, ok := l.spanLocked(from, to)
	if !ok {
		return dst, 0
	}
	return l.events.appendListed(dst, lo, hi, l.firstSeq+uint64(lo), l.start)
}

// spanLocked clamps [from, to) to the retained events and returns it as
// indices into l.events; ok is false when nothing is left.
func (l *Log) spanLocked(from, to uint64) (lo, hi int, ok bool) {
	if from < l.firstSeq {
		from = l.firstSeq
	}
	if to > l.nextSeq {
		to = l.nextSeq
	}
	if from >= to {
		return 0, 0, false
	}
	return int(from - l.firstSeq), int(to - l.firstSeq), true
}

// Retained returns how many events the log holds and what they cost its
// budget (what approxSize charges: the events, their frames and the
// tracker's records of the requests among them). It exceeds the budget
// only while a single event does.
func (l *Log) Retained() (events int, bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.events.len(), l.bytes
}

// Kept is what the retained events hold: the frames, and the findings on
// them or logged on their own (a frame's as it was logged).
type Kept struct{ Frames, Findings int }

// add counts s in (by 1) or out (by -1).
func (k *Kept) add(s *stored, by int) {
	if s.isFrame() {
		k.Frames += by
	}
	k.Findings += by * int(s.listed)
}

// Kept returns what the retained events hold, counted as they were logged
// and dropped: a reader that lists the frames and findings sizes its lists
// by it without reading every event first.
func (l *Log) Kept() Kept {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.kept
}

// Dropped returns how many events, and roughly how many bytes, the retention
// limit has dropped so far.
func (l *Log) Dropped() (events uint64, bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped, l.droppedSize
}

// AppendWith appends the event that build returns, calling build under the
// log's lock with the Seq and clock reading the event will get. It lets a
// caller that must know an event's Seq before the event becomes visible (the
// tracker, which names colliding frames by Seq) do so without a race. build
// must be quick and must not touch the log.
func (l *Log) AppendWith(build func(seq uint64, at time.Duration) Event) uint64 {
	l.mu.Lock()
	at := time.Since(l.start)
	if n := l.events.len(); n > 0 && at < l.events.at(n-1).at {
		at = l.events.at(n - 1).at
	}
	ev := build(l.nextSeq, at)
	ev.At = at
	seq := l.insertLocked(ev)
	subs := l.subs
	l.mu.Unlock()
	notifySubscribers(subs)
	return seq
}
