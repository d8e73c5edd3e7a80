package eventlog

import (
	"sort"
	"unsafe"
)

// TrackedCost is what the tracker's record of one request costs, in bytes:
// the record and its entries in the tracker's maps. The Log charges it to
// the request's frame (see Event.approxSize), so that the retention budget
// bounds the tracker's history too: once the Log drops a request's frame,
// [Tracker.Forget] summarises the request into counts.
const TrackedCost = int64(unsafe.Sizeof(entry{})) + 160

// forgetEvery is how many Seqs the log's first retained Seq must advance
// between two passes of Forget. It bounds the records of ended requests
// whose frames the log already dropped but Forget has not summarised yet
// (at most forgetEvery of them, whatever the budget): a fixed overhead
// beside the budget, in exchange for passes that cost O(forgetEvery) per
// forgetEvery appends rather than a scan per append.
const forgetEvery = 1024

// Forget summarises the requests that ended before the log's first retained
// Seq: their records leave the tracker and only their count by state stays
// ([Tracker.RequestCounts]). Requests still in flight are never forgotten,
// whatever their age. A forgotten request pairs with nothing any more
// ([Tracker.PairOf]), and a late answer to it, or a reuse of its id, is
// judged as if the id were unknown: the log no longer holds its frame
// either. The pairing of an error with id null to an unreadable client
// frame is forgotten with that error's frame.
//
// Callers that append to a retention-bounded Log call Forget with its
// first retained Seq after each append; the work is amortised (a pass runs
// once first has advanced forgetEvery Seqs, and looks only at the records
// older than first).
func (t *Tracker) Forget(first uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if first < t.forgotTo+forgetEvery {
		return
	}
	t.forgotTo = first
	// Records older than first form a prefix of all (it is in Seq order).
	// Those kept (in flight, or answered by a frame still retained) move
	// to the end of the prefix in their order, and the prefix is cut
	// before them: the pass costs the prefix, not the whole history.
	end := sort.Search(len(t.all), func(i int) bool { return t.all[i].Seq >= first })
	w := end
	for i := end - 1; i >= 0; i-- {
		e := t.all[i]
		if e.State == ReqInFlight || e.ResponseSeq >= first {
			w--
			t.all[w] = e
			continue
		}
		t.summarise(e)
	}
	clear(t.all[:w])
	t.all = t.all[w:]
	for seq := range t.later {
		if seq < first {
			delete(t.later, seq)
		}
	}
	for seq := range t.nullAnswers {
		if seq < first {
			delete(t.nullAnswers, seq)
		}
	}
	for seq := range t.progressFor {
		if seq < first {
			delete(t.progressFor, seq)
		}
	}
}

// Unsummarised returns how many requests the tracker keeps a record of
// whose frame lies before first (the log's first retained Seq): requests
// still in flight, which are never forgotten, and the ended ones that
// Forget summarises on a later pass. Once Forget is called after each
// append, ended is at most forgetEvery plus the requests whose answer came
// after the first retained Seq of Forget's last pass (none, when answers
// follow their requests closely). The log's budget charges TrackedCost for
// every other record.
func (t *Tracker) Unsummarised(first uint64) (inFlight, ended int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.all {
		if e.Seq >= first {
			break
		}
		if e.State == ReqInFlight {
			inFlight++
		} else {
			ended++
		}
	}
	return inFlight, ended
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
