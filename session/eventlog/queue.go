package eventlog

import (
	"math"
	"slices"
	"time"
	"unsafe"

	"linesman/wire"
)

// eventChunk is how many events one chunk of an eventQueue holds.
const eventChunk = 1024

// stored is how the log keeps an event: a frame's in 32 bytes (its time,
// direction and frame), any other kind as the whole Event behind a
// pointer. Seq and Wall are not stored: Seq is the event's place in the
// log, and Wall the log's start plus At, so both are given back exactly
// as Append made them. Frames are nearly every event of a busy log; an
// Event is 152 bytes, most of them payload pointers a frame leaves nil.
type stored struct {
	at    time.Duration
	frame *wire.Frame
	full  *Event // every event but a frame's (frame is nil then)
	typ   EventType
	dir   wire.Dir
	// listed is what the event adds to the log's Kept counts: a frame's
	// findings as it was logged, or 1 for a finding of its own.
	listed uint32
}

// store makes the stored form of ev.
func store(ev *Event) stored {
	var listed uint32
	switch {
	case ev.isFrame():
		listed = uint32(min(len(ev.Frame.Findings), math.MaxUint32))
	case ev.Type == EventFinding && ev.Finding != nil:
		listed = 1
	}
	if ev.Type == EventFrame && ev.onlyFrame() {
		return stored{at: ev.At, frame: ev.Frame, typ: EventFrame, dir: ev.Dir, listed: listed}
	}
	full := new(Event)
	*full = *ev
	full.Params = nil // valid while the event is recorded only
	return stored{at: ev.At, full: full, typ: ev.Type, listed: listed}
}

// isFrame reports whether e is a frame's event with its frame.
func (e *Event) isFrame() bool { return e.Type == EventFrame && e.Frame != nil }

// isFrame reports whether s stores a frame's event with its frame.
func (s *stored) isFrame() bool { return s.frame != nil || s.full != nil && s.full.isFrame() }

// onlyFrame reports whether nothing but the frame's members is set.
func (e *Event) onlyFrame() bool {
	return e.Stderr == nil && e.Process == nil && e.Finding == nil && e.Era == nil &&
		e.Restart == nil && e.Stdin == nil && e.End == nil && e.Fault == nil &&
		e.Intercept == nil && e.Unjudged == nil && e.Note == ""
}

// event gives back the Event s stores, the seq-th of a log started at start.
func (s *stored) event(seq uint64, start time.Time) Event {
	if s.full != nil {
		ev := *s.full
		ev.Seq, ev.At, ev.Wall = seq, s.at, start.Add(s.at)
		return ev
	}
	return Event{Seq: seq, At: s.at, Wall: start.Add(s.at), Type: s.typ, Dir: s.dir, Frame: s.frame}
}

// size is what s costs the retention budget (see Event.approxSize).
func (s *stored) size() int64 {
	if s.full != nil {
		return int64(unsafe.Sizeof(*s)) + int64(unsafe.Sizeof(*s.full)) + s.full.payloadSize()
	}
	return int64(unsafe.Sizeof(*s)) + frameSize(s.frame)
}

// eventQueue is a FIFO of events stored in fixed-size chunks: appending
// never copies the events already stored (a plain slice copies all of them
// each time it grows, which showed in ingest profiles), and dropping the
// oldest frees whole chunks.
type eventQueue struct {
	chunks [][]stored // every chunk but the last is full
	head   int        // index in chunks[0] of the oldest event
	n      int
}

func (q *eventQueue) len() int { return q.n }

// at returns the i-th oldest event, 0 <= i < len().
func (q *eventQueue) at(i int) *stored {
	i += q.head
	return &q.chunks[i/eventChunk][i%eventChunk]
}

func (q *eventQueue) push(s stored) {
	if len(q.chunks) == 0 || len(q.chunks[len(q.chunks)-1]) == eventChunk {
		q.chunks = append(q.chunks, make([]stored, 0, eventChunk))
	}
	last := &q.chunks[len(q.chunks)-1]
	*last = append(*last, s)
	q.n++
}

// popFront drops the oldest event, zeroing its slot so that its payload can
// be collected.
func (q *eventQueue) popFront() {
	*q.at(0) = stored{}
	q.head++
	q.n--
	if q.head == eventChunk {
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
	}
}

// appendTo appends the events lo <= i < hi to dst, the first of them
// numbered seq, in a log started at start.
func (q *eventQueue) appendTo(dst []Event, lo, hi int, seq uint64, start time.Time) []Event {
	dst = slices.Grow(dst, hi-lo)
	for i := lo; i < hi; i++ {
		dst = append(dst, q.at(i).event(seq, start))
		seq++
	}
	return dst
}

// appendListed is appendTo without the frames logged with no finding; it
// returns how many it left out.
func (q *eventQueue) appendListed(dst []Event, lo, hi int, seq uint64, start time.Time) ([]Event, int) {
	skipped := 0
	for i := lo; i < hi; i++ {
		if s := q.at(i); s.listed != 0 || !s.isFrame() {
			dst = append(dst, s.event(seq+uint64(i-lo), start))
		} else {
			skipped++
		}
	}
	return dst, skipped
}
