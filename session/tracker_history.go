package session

import (
	"unsafe"
)

// TrackedCost is what the tracker's record of one request costs, in bytes:
// the record and its entries in the tracker's maps. The Log charges it to
// the request's frame (see Event.approxSize), so that the retention budget
// bounds the tracker's history too: once the Log drops a request's frame,
// [Tracker.Forget] summarises the request into counts.
const TrackedCost = int64(unsafe.Sizeof(entry{})) + 160

// Forget summarises the requests that ended before the log's first retained
// Seq: their records leave the tracker and only their count by state stays
// ([Tracker.RequestCounts]). Requests still in flight are never forgotten,
// whatever their age. A forgotten request pairs with nothing any more
// ([Tracker.PairOf]), and a late answer to it, or a reuse of its id, is
// judged as if the id were unknown: the log no longer holds its frame
// either.
//
// Callers that append to a retention-bounded Log call Forget with its
// first retained Seq after each append; the work is amortised (a pass runs
// only once a good part of the history may be stale).
func (t *Tracker) Forget(first uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.all) == 0 || t.all[0].Seq >= first || first-t.forgotTo < uint64(len(t.all)/4+1024) {
		return
	}
	t.forgotTo = first
	kept := t.all[:0]
	i := 0
	for ; i < len(t.all) && t.all[i].Seq < first; i++ {
		e := t.all[i]
		if e.State == ReqInFlight || (e.ResponseSeq >= first) {
			kept = append(kept, e)
			continue
		}
		t.summarise(e)
	}
	n := copy(t.all[len(kept):], t.all[i:])
	clear(t.all[len(kept)+n:])
	t.all = t.all[:len(kept)+n]
}

// summarise drops e's record, keeping its count.
func (t *Tracker) summarise(e *entry) {
	if t.forgotten == nil {
		t.forgotten = map[RequestState]int{}
	}
	t.forgotten[e.State]++
	if e.ResponseSeq != 0 && t.answers[e.ResponseSeq] == e {
		delete(t.answers, e.ResponseSeq)
	}
	if sp := t.spaces[e.Dir]; sp != nil {
		if sp.ended[e.ID] == e {
			delete(sp.ended, e.ID)
		}
		if e.ProgressToken.Kind != 0 && sp.tokens[e.ProgressToken] == e {
			delete(sp.tokens, e.ProgressToken)
		}
	}
}
