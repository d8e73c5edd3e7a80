package eventlog

import "sync"

// Hold keeps the events from seq on past the retention budget until a
// later Hold moves the mark (Hold(0) releases it): a reader that must not
// miss an event (a tap's capture recorder) holds the first it has not read
// yet. What a Hold keeps is never dropped; what bounds it is the appenders
// that [Log.Pace] before they append, and wait for the reader when it falls
// a budget behind. Moving the mark on wakes them once the reader is within
// half the budget of the log's end, and Hold(0) at once.
func (l *Log) Hold(seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.moveHoldLocked(seq)
	l.markBehindLocked()
	l.trimLocked()
	if l.pacing > 0 && (l.hold == 0 || l.held <= l.resumeAt()) {
		l.room.Broadcast()
	}
}

// moveHoldLocked moves the hold to seq, and what the held events cost with
// it: the events the reader has read since the last Hold are no longer
// held (none of them was dropped: the hold kept them).
func (l *Log) moveHoldLocked(seq uint64) {
	switch {
	case seq == 0 || seq >= l.nextSeq:
		l.held = 0
	case l.hold == 0 || seq < l.hold:
		l.held = l.costLocked(seq, l.nextSeq)
	default:
		l.held = max(l.held-l.costLocked(l.hold, seq), 0)
	}
	l.hold = seq
}

// markBehindLocked says whether the held events cost more than the
// budget, for Pace to see without the lock.
func (l *Log) markBehindLocked() {
	if behind := l.hold != 0 && l.held > l.retention; behind != l.behind.Load() {
		l.behind.Store(behind)
	}
}

// costLocked is what the retained events with from <= Seq < to cost the
// budget.
func (l *Log) costLocked(from, to uint64) (n int64) {
	lo, hi, ok := l.spanLocked(from, to)
	if !ok {
		return 0
	}
	for i := lo; i < hi; i++ {
		n += l.events.at(i).size()
	}
	return n
}

// resumeAt is how little a Hold must keep before the appenders waiting in
// Pace go on: half the budget, so that one wait lets a burst through
// rather than one event per batch the reader reads.
func (l *Log) resumeAt() int64 { return l.retention / 2 }

// Pace waits, while a Hold keeps more than the log's budget of events its
// reader has not read, until the reader is within half the budget of the
// log's end (or lets go of its hold); without a hold, or within the
// budget, it returns at once. An appender that may fall behind (a tap's
// scribes, which frame behind the wire; its stderr reader) calls it before
// it appends, so that a held log stays about its budget while the reader
// catches up, and the reader misses nothing. The reader must never wait
// for an appender: its Hold is what wakes them.
func (l *Log) Pace() {
	if !l.behind.Load() {
		return // the common case: one atomic load, no lock
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold == 0 || l.held <= l.retention {
		return
	}
	if l.room == nil {
		l.room = sync.NewCond(&l.mu)
	}
	l.pacing++
	l.paces++
	for l.hold != 0 && l.held > l.resumeAt() {
		l.room.Wait()
	}
	l.pacing--
}

// Paces returns how many times an appender waited in Pace for the reader
// of a Hold.
func (l *Log) Paces() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.paces
}
