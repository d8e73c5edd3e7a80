package eventlog

import (
	"sort"
	"unsafe"
)

// TrackedCost is what the tracker's record of one request costs, in bytes:
// the record and its entries in the tracker's maps. The Log charges it to
// the request's frame (see Event.approxSize), so that the retention budget
// bounds the tracker's history too: once the Log drops a request's frame,
// [Tracker.Forget] summarises the request into counts, or, while it is in
// flight, keeps it (compact when it can, [WaitingCost]) and says what it
// costs, for [Log.Reserve].
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
// whatever their age; a plain one whose frame the log dropped is kept as a
// compact record (waiting.go). A forgotten request pairs with nothing any
// more ([Tracker.PairOf]), and a late answer to it, or a reuse of its id, is
// judged as if the id were unknown: the log no longer holds its frame
// either. The pairing of an error with id null to an unreadable client
// frame is forgotten with that error's frame.
//
// Callers that append to a retention-bounded Log call Forget with its
// first retained Seq after each append; the work is amortised (a pass runs
// once first has advanced forgetEvery Seqs, and looks only at the records
// older than first, and at the compact records that changed). When a pass
// ran, passed is true and outside is what the records the tracker keeps
// for frames the log dropped cost: the caller charges it to the log's
// budget ([Log.Reserve]), so that the budget bounds them too.
func (t *Tracker) Forget(first uint64) (outside int64, passed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if first < t.forgotTo+forgetEvery {
		return 0, false
	}
	t.forgotTo = first
	// Records older than first form a prefix of all (it is in Seq order).
	// Those kept (in flight, or answered by a frame still retained) move
	// to the end of the prefix in their order, and the prefix is cut
	// before them: the pass costs the prefix, not the whole history. The
	// plain ones in flight become compact records, in Seq order.
	end := sort.Search(len(t.all), func(i int) bool { return t.all[i].Seq >= first })
	for _, e := range t.all[:end] { // in Seq order, as the arena is
		e.frozen = t.plain(e) && t.freeze(e)
	}
	w := end
	for i := end - 1; i >= 0; i-- {
		switch e := t.all[i]; {
		case e.frozen:
		case e.State == ReqInFlight || e.ResponseSeq >= first:
			w--
			t.all[w] = e
		default:
			t.summarise(e)
		}
	}
	clear(t.all[:w])
	t.all = t.all[w:]
	compact := t.sweep(first) - len(t.waits.full)
	t.shrinkMaps()
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
	return int64(end-w+len(t.waits.full))*TrackedCost + int64(compact)*WaitingCost, true
}

// shrinkMaps copies the maps that hold a record of each request into maps
// of their present size once they hold under a quarter of what they held:
// a Go map keeps the table of its largest size, and the requests in flight
// before they became compact records (a quarter of a million of them) left
// 30 MB of table behind.
func (t *Tracker) shrinkMaps() {
	for _, sp := range t.spaces[1:] {
		sp.inflight = shrunk(sp.inflight, &sp.peaks[0])
		sp.ended = shrunk(sp.ended, &sp.peaks[1])
	}
	t.answers = shrunk(t.answers, &t.answersPeak)
}

// shrunk returns m, or a copy of it that holds the same when m holds under
// a quarter of peak, the most it held (kept up to date here).
func shrunk[K comparable, V any](m map[K]V, peak *int) map[K]V {
	n := len(m)
	if n >= *peak {
		*peak = n
		return m
	}
	if *peak < 4096 || n >= *peak/4 {
		return m
	}
	out := make(map[K]V, n)
	for k, v := range m {
		out[k] = v
	}
	*peak = n
	return out
}

// Unsummarised returns how many requests the tracker keeps a record of
// whose frame lies before first (the log's first retained Seq): requests
// still in flight, which are never forgotten, and the ended ones that
// Forget summarises on a later pass. Once Forget is called after each
// append, ended is at most forgetEvery plus the requests whose answer came
// after the first retained Seq of Forget's last pass (none, when answers
// follow their requests closely). The log's budget charges TrackedCost for
// every other record with its frame, and these, as Forget counts them, with
// [Log.Reserve].
func (t *Tracker) Unsummarised(first uint64) (inFlight, ended int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.records(0, func(e *entry, _ bool) bool {
		if e.Seq >= first {
			return false
		}
		if e.State == ReqInFlight {
			inFlight++
		} else {
			ended++
		}
		return true
	})
	return inFlight, ended
}

// summariseState counts a request that ended in state s, its record gone.
func (t *Tracker) summariseState(s RequestState) {
	if t.forgotten == nil {
		t.forgotten = map[RequestState]int{}
	}
	t.forgotten[s]++
}

// summarise drops e's record, keeping its count.
func (t *Tracker) summarise(e *entry) {
	t.summariseState(e.State)
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
