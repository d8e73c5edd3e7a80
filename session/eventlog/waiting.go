package eventlog

import (
	"slices"
	"time"
	"unsafe"

	"linesman/wire"
)

// Requests waiting for an answer, kept compact. A request in flight is
// never forgotten ([Tracker.Forget]), so a million of them unanswered are a
// million records whatever the log's budget: as entries (320 bytes each,
// and a slot of an id map of slices) they were 450 MB. Once the log has
// dropped the frame of a plain request still in flight (an integer id, no
// progress token, no call it continues, alone with its id), Forget moves
// its record here: a waitRec of 48 bytes in an arena of fixed chunks, and a
// slot in a map from its id to its Seq. Whatever the fold does to it by
// its id (an answer, a cancel, a reuse of its id) first makes it an entry
// again (thaw), so that the rules read one kind of record; what the clock
// and the process end do to all of them at once (timeouts, a lost request
// at an exit or a restart) is done in place, and Forget summarises those on
// its next pass, as it does entries whose frames the log dropped.

// WaitingCost is what the tracker's compact record of a request in flight
// costs, in bytes: the record and its slot in the id map. The log's budget
// covers these records too ([Log.Reserve]).
const WaitingCost = int64(unsafe.Sizeof(waitRec{})) + 32

// waitRec is the compact record of a plain request: what its entry held,
// less what is zero for a plain request still in flight.
type waitRec struct {
	seq    uint64
	sentAt time.Duration
	due    time.Duration // its deadline ([Request].Deadline)
	ended  time.Duration // when it ended, once it did
	id     int64
	method uint32 // index in names
	target uint32 // index in names
	dir    wire.Dir
	state  RequestState
	era    Era
	flags  waitFlags
}

type waitFlags uint8

const (
	waitPaged    waitFlags = 1 << iota // entry.paged
	waitTimedOut                       // Request.TimedOut
	waitThawed                         // the whole record is waits.full[seq]
	waitGone                           // summarised: skipped
)

// waitChunk is how many records a chunk of the arena holds: it grows a
// chunk at a time, never by copying what it holds.
const waitChunk = 4096

// maxNames bounds the strings the arena interns (methods and targets):
// past it, a request naming a new one keeps its entry.
const maxNames = 4096

// waits is the tracker's arena of compact records.
type waits struct {
	chunks [][]waitRec // in Seq order; all full but the last
	n      int         // records in chunks
	gone   int         // of them, summarised
	// ids maps, by direction, a request id to the Seq of the compact
	// record that holds it (in flight, or ended in place and not yet
	// summarised).
	ids [3]map[int64]uint64
	// full holds the entries that compact records became again, by Seq.
	full map[uint64]*entry
	// ended are the Seqs of records that ended in place since Forget's
	// last pass.
	ended []uint64
	// last is the highest Seq in the arena: only later ones may join,
	// which keeps it in Seq order.
	last uint64
	// thaws and inPlace count the records made entries again and those
	// ended in place (for tests: what the arena went through).
	thaws, inPlace int
	names          []string
	nameAt         map[string]uint32
}

func (w *waits) at(i int) *waitRec { return &w.chunks[i/waitChunk][i%waitChunk] }

// search returns the index of the first record with Seq >= seq.
func (w *waits) search(seq uint64) int {
	lo, hi := 0, w.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if w.at(mid).seq < seq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// find returns the record with the given Seq, or nil.
func (w *waits) find(seq uint64) *waitRec {
	if i := w.search(seq); i < w.n && w.at(i).seq == seq {
		return w.at(i)
	}
	return nil
}

// name interns s; ok is false when the table is full and s not in it.
func (w *waits) name(s string) (uint32, bool) {
	if i, ok := w.nameAt[s]; ok {
		return i, true
	}
	if w.nameAt == nil {
		w.names, w.nameAt = []string{""}, map[string]uint32{"": 0}
		if s == "" {
			return 0, true
		}
	}
	if len(w.names) >= maxNames {
		return 0, false
	}
	w.names = append(w.names, s)
	w.nameAt[s] = uint32(len(w.names) - 1)
	return uint32(len(w.names) - 1), true
}

// live is how many records the arena holds that are not summarised (the
// thawed ones' entries included).
func (w *waits) live() int { return w.n - w.gone }

// plain reports whether e, in flight, may become a compact record: nothing
// about it but its wait, which a waitRec holds whole.
func (t *Tracker) plain(e *entry) bool {
	sp := t.spaces[e.Dir]
	if t.noCompact || e.State != ReqInFlight || e.ID.Kind != wire.IDInt || e.Seq <= t.waits.last ||
		e.ProgressToken.Kind != wire.IDAbsent || e.HasProgress || e.call != nil || len(e.parts) > 0 ||
		e.CollidesWith != 0 || e.CancelSeq != 0 || e.Abandoned || e.Poll || e.CallSeq != 0 ||
		e.ResultType != "" || e.ErrorMessage != "" || e.ErrorCode != 0 || e.Late || e.TimedOut ||
		e.Method == "server/discover" || e.Method == "initialize" {
		return false
	}
	if sp == nil || len(sp.inflight[e.ID]) != 1 {
		return false
	}
	_, ended := sp.ended[e.ID]
	return !ended
}

// freeze moves e, a plain request in flight (see plain), into the arena:
// its entry leaves the id space's map and is left to the collector. It
// reports false, keeping the entry, when its strings cannot be interned.
func (t *Tracker) freeze(e *entry) bool {
	w := &t.waits
	method, ok1 := w.name(e.Method)
	target, ok2 := w.name(e.Target)
	if !ok1 || !ok2 {
		return false
	}
	r := waitRec{seq: e.Seq, sentAt: e.SentAt, due: e.Deadline, id: e.ID.Num,
		method: method, target: target, dir: e.Dir, state: ReqInFlight, era: e.Era}
	if e.paged {
		r.flags |= waitPaged
	}
	if w.n%waitChunk == 0 {
		w.chunks = append(w.chunks, make([]waitRec, 0, waitChunk))
	}
	c := &w.chunks[len(w.chunks)-1]
	*c = append(*c, r)
	w.n++
	w.last = e.Seq
	if w.ids[e.Dir] == nil {
		w.ids[e.Dir] = map[int64]uint64{}
	}
	w.ids[e.Dir][e.ID.Num] = e.Seq
	delete(t.spaces[e.Dir].inflight, e.ID)
	return true
}

// fill makes e the entry r stands for.
func (w *waits) fill(e *entry, r *waitRec) {
	*e = entry{Request: Request{
		ID: wire.IntID(r.id), Method: w.names[r.method], Target: w.names[r.target],
		Seq: r.seq, SentAt: r.sentAt, Dir: r.dir, State: r.state, Era: r.era,
		Deadline: r.due, EndedAt: r.ended, TimedOut: r.flags&waitTimedOut != 0,
	}, paged: r.flags&waitPaged != 0}
}

// thaw makes the compact record of the request with the given id, sent in
// direction dir, an entry again, in the id space's map (in flight or
// ended, as it stands), and returns it; nil when the arena has none.
func (t *Tracker) thaw(dir wire.Dir, id wire.ID) *entry {
	w := &t.waits
	if id.Kind != wire.IDInt || w.ids[dir] == nil {
		return nil
	}
	seq, ok := w.ids[dir][id.Num]
	if !ok {
		return nil
	}
	delete(w.ids[dir], id.Num)
	w.thaws++
	r := w.find(seq)
	e := &entry{}
	w.fill(e, r)
	r.flags |= waitThawed
	if w.full == nil {
		w.full = map[uint64]*entry{}
	}
	w.full[seq] = e
	sp := t.spaces[dir]
	if e.State == ReqInFlight {
		sp.inflight[id] = []*entry{e}
	} else {
		sp.ended[id] = e
	}
	return e
}

// inflightOf is sp.inflight[id] of the requests sent in direction dir, a
// compact record among them made an entry again.
func (t *Tracker) inflightOf(dir wire.Dir, id wire.ID) []*entry {
	sp := t.spaces[dir]
	if es := sp.inflight[id]; len(es) > 0 {
		return es
	}
	if e := t.thaw(dir, id); e != nil && e.State == ReqInFlight {
		return sp.inflight[id]
	}
	return nil
}

// endedOf is sp.ended[id] of the requests sent in direction dir, a compact
// record that ended in place made an entry again.
func (t *Tracker) endedOf(dir wire.Dir, id wire.ID) (*entry, bool) {
	sp := t.spaces[dir]
	if e, ok := sp.ended[id]; ok {
		return e, true
	}
	if len(sp.inflight[id]) == 0 {
		t.thaw(dir, id)
	}
	e, ok := sp.ended[id]
	return e, ok
}

// peek returns the compact record of the request with the given id sent
// in direction dir, without thawing it.
func (t *Tracker) peek(dir wire.Dir, id wire.ID) *waitRec {
	w := &t.waits
	if id.Kind != wire.IDInt || w.ids[dir] == nil {
		return nil
	}
	if seq, ok := w.ids[dir][id.Num]; ok {
		return w.find(seq)
	}
	return nil
}

// waitingIn calls fn with every compact record still in flight sent in
// direction dir.
func (w *waits) waitingIn(dir wire.Dir, fn func(r *waitRec)) {
	if w.live() == 0 {
		return
	}
	for _, c := range w.chunks {
		for i := range c {
			if r := &c[i]; r.state == ReqInFlight && r.dir == dir && r.flags&(waitThawed|waitGone) == 0 {
				fn(r)
			}
		}
	}
}

// endInPlace ends r (timed out, or lost) without thawing it; Forget
// summarises it on its next pass, its frame being gone already.
func (t *Tracker) endInPlace(r *waitRec, state RequestState, at time.Duration) {
	r.state, r.ended = state, at
	if state == ReqTimedOut {
		r.flags |= waitTimedOut
	}
	t.spaces[r.dir].open--
	t.waits.ended = append(t.waits.ended, r.seq)
	t.waits.inPlace++
}

// lostAll ends every compact record in flight as lost (an exit, a
// restart), calling fn, when set, with each, in Seq order.
func (t *Tracker) lostAll(at time.Duration, fn func(r *waitRec)) {
	if t.waits.live() == 0 {
		return
	}
	for _, c := range t.waits.chunks {
		for i := range c {
			if r := &c[i]; r.state == ReqInFlight && r.flags&(waitThawed|waitGone) == 0 {
				t.endInPlace(r, ReqLost, at)
				if fn != nil {
					fn(r)
				}
			}
		}
	}
}

// sweep is Forget's pass over the arena: the records that ended in place
// are summarised, and so are the thawed entries Forget would summarise
// (ended, their answer's frame gone too); the arena sheds what it no longer
// holds once that is half of it. It returns how many records it keeps.
func (t *Tracker) sweep(first uint64) (kept int) {
	w := &t.waits
	for _, seq := range w.ended {
		if r := w.find(seq); r != nil && r.flags&(waitThawed|waitGone) == 0 {
			if w.ids[r.dir] != nil && w.ids[r.dir][r.id] == seq {
				delete(w.ids[r.dir], r.id)
			}
			t.summariseState(r.state)
			r.flags |= waitGone
			w.gone++
		}
	}
	w.ended = w.ended[:0]
	for seq, e := range w.full {
		if e.State != ReqInFlight && e.ResponseSeq < first {
			t.summarise(e)
			delete(w.full, seq)
			w.find(seq).flags |= waitGone
			w.gone++
		}
	}
	if w.gone > 0 && w.gone >= w.n/2 {
		w.compact()
	}
	return w.live()
}

// compact drops the summarised records from the arena, releasing each
// chunk once it is copied.
func (w *waits) compact() {
	old := w.chunks
	w.chunks, w.n, w.gone = nil, 0, 0
	for k, c := range old {
		for _, r := range c {
			if r.flags&waitGone != 0 {
				continue
			}
			if w.n%waitChunk == 0 {
				w.chunks = append(w.chunks, make([]waitRec, 0, waitChunk))
			}
			last := &w.chunks[len(w.chunks)-1]
			*last = append(*last, r)
			w.n++
		}
		old[k] = nil
	}
}

// restarted forgets the ids of the compact records (a fresh process's ids
// are its own), once every one in flight is lost.
func (w *waits) restarted() {
	w.ids = [3]map[int64]uint64{}
}

// records calls fn with every request the tracker keeps a record of whose
// Seq is at least from, in Seq order, until fn returns false: the entries,
// and each compact record as a scratch entry (compact true) that fn must
// neither keep nor change.
func (t *Tracker) records(from uint64, fn func(e *entry, compact bool) bool) {
	w := &t.waits
	i, _ := slices.BinarySearchFunc(t.all, from, func(e *entry, seq uint64) int { return cmpSeq(e.Seq, seq) })
	j := w.search(from)
	var scratch entry
	for i < len(t.all) || j < w.n {
		if j >= w.n || (i < len(t.all) && t.all[i].Seq < w.at(j).seq) {
			if !fn(t.all[i], false) {
				return
			}
			i++
			continue
		}
		r := w.at(j)
		j++
		switch {
		case r.flags&waitGone != 0:
		case r.flags&waitThawed != 0:
			if !fn(w.full[r.seq], false) {
				return
			}
		default:
			w.fill(&scratch, r)
			if !fn(&scratch, true) {
				return
			}
		}
	}
}

// compactBySeq returns the request with the given Seq as the arena holds
// it: its entry when thawed, else a copy made whole; nil when the arena
// has none.
func (w *waits) compactBySeq(seq uint64) *entry {
	r := w.find(seq)
	switch {
	case r == nil || r.flags&waitGone != 0:
		return nil
	case r.flags&waitThawed != 0:
		return w.full[seq]
	}
	e := &entry{}
	w.fill(e, r)
	return e
}
