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
// dropped the frame of a plain request still in flight (an integer id
// above those of the requests its side sent before it, no progress token,
// no call it continues, alone with its id), Forget moves its record here: a
// waitRec of 56 bytes in an arena of fixed chunks, one arena a direction,
// in which the ids rise as the Seqs do, so that a binary search by id finds
// one without a map. Whatever the fold does to one by its id (an answer, a
// cancel, a reuse of its id) first makes it an entry again (thaw), so that
// the rules read one kind of record; what the clock and the process end do
// to all of them at once (timeouts, a lost request at an exit or a
// restart) is done in place, and Forget summarises those on its next pass,
// as it does entries whose frames the log dropped.

// WaitingCost is what the tracker's compact record of a request in flight
// costs, in bytes (there is no map). The log's budget covers these records
// too ([Log.Reserve]).
const WaitingCost = int64(unsafe.Sizeof(waitRec{}))

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

// arena holds one direction's compact records, in Seq order and so in the
// order of their ids too.
type arena struct {
	chunks [][]waitRec // all full but the last
	n      int         // records in chunks
	gone   int         // of them, summarised
	// last and lastID are the Seq and id of the newest record: only later
	// Seqs and higher ids may join.
	last   uint64
	lastID int64
	// epoch is the first Seq of the current process: the records before
	// it are lost with the process before a restart, and its ids are no
	// longer this one's.
	epoch uint64
	// ended are the Seqs of records that ended in place since Forget's
	// last pass.
	ended []uint64
}

// waits is the tracker's store of compact records.
type waits struct {
	arenas [2]arena // by dirIndex
	// full holds the entries that compact records became again, by Seq.
	full map[uint64]*entry
	// thaws and inPlace count the records made entries again and those
	// ended in place (for tests: what the arena went through).
	thaws, inPlace int
	names          []string
	nameAt         map[string]uint32
}

func dirIndex(d wire.Dir) int {
	if d == wire.ServerToClient {
		return 1
	}
	return 0
}

func (w *waits) arena(d wire.Dir) *arena { return &w.arenas[dirIndex(d)] }

func (a *arena) at(i int) *waitRec { return &a.chunks[i/waitChunk][i%waitChunk] }

// search returns the index of the first record with Seq >= seq.
func (a *arena) search(seq uint64) int {
	return a.first(func(r *waitRec) bool { return r.seq >= seq }, 0)
}

// first is the least index from lo on whose record satisfies ok (false
// before it, true from it on), or n.
func (a *arena) first(ok func(r *waitRec) bool, lo int) int {
	hi := a.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if !ok(a.at(mid)) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// find returns the record with the given Seq, or nil.
func (a *arena) find(seq uint64) *waitRec {
	if i := a.search(seq); i < a.n && a.at(i).seq == seq {
		return a.at(i)
	}
	return nil
}

// byID returns the record of the current process with the given id that
// is neither thawed nor summarised, or nil.
func (a *arena) byID(id int64) *waitRec {
	i := a.first(func(r *waitRec) bool { return r.id >= id }, a.search(a.epoch))
	if i == a.n {
		return nil
	}
	if r := a.at(i); r.id == id && r.flags&(waitThawed|waitGone) == 0 {
		return r
	}
	return nil
}

func (a *arena) push(r waitRec) {
	if a.n%waitChunk == 0 {
		a.chunks = append(a.chunks, make([]waitRec, 0, waitChunk))
	}
	c := &a.chunks[len(a.chunks)-1]
	*c = append(*c, r)
	a.n++
	a.last, a.lastID = r.seq, r.id
}

func (a *arena) live() int { return a.n - a.gone }

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

// live is how many records the arenas hold that are not summarised (the
// thawed ones' entries included).
func (w *waits) live() int { return w.arenas[0].live() + w.arenas[1].live() }

// plain reports whether e, in flight, may become a compact record: nothing
// about it but its wait, which a waitRec holds whole, and an id above those
// of its direction's arena.
func (t *Tracker) plain(e *entry) bool {
	sp := t.spaces[e.Dir]
	if t.noCompact || sp == nil || e.State != ReqInFlight || e.ID.Kind != wire.IDInt ||
		e.ProgressToken.Kind != wire.IDAbsent || e.HasProgress || e.call != nil || len(e.parts) > 0 ||
		e.CollidesWith != 0 || e.CancelSeq != 0 || e.Abandoned || e.Poll || e.CallSeq != 0 ||
		e.ResultType != "" || e.ErrorMessage != "" || e.ErrorCode != 0 || e.Late || e.TimedOut ||
		e.Method == "server/discover" || e.Method == "initialize" {
		return false
	}
	if a := t.waits.arena(e.Dir); a.n > 0 && (e.Seq <= a.last || (a.last >= a.epoch && e.ID.Num <= a.lastID)) {
		return false
	}
	if len(sp.inflight[e.ID]) != 1 {
		return false
	}
	_, ended := sp.ended[e.ID]
	return !ended
}

// freeze moves e, a plain request in flight (see plain), into its
// direction's arena: its entry leaves the id space's map and is left to the
// collector. It reports false, keeping the entry, when its strings cannot
// be interned.
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
	w.arena(e.Dir).push(r)
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
	r := t.peek(dir, id)
	if r == nil {
		return nil
	}
	w := &t.waits
	w.thaws++
	e := &entry{}
	w.fill(e, r)
	r.flags |= waitThawed
	if w.full == nil {
		w.full = map[uint64]*entry{}
	}
	w.full[r.seq] = e
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
// in direction dir by the current process, without thawing it.
func (t *Tracker) peek(dir wire.Dir, id wire.ID) *waitRec {
	if id.Kind != wire.IDInt || (dir != wire.ClientToServer && dir != wire.ServerToClient) {
		return nil
	}
	return t.waits.arena(dir).byID(id.Num)
}

// waitingIn calls fn with every compact record still in flight sent in
// direction dir, in Seq order.
func (w *waits) waitingIn(dir wire.Dir, fn func(r *waitRec)) {
	a := w.arena(dir)
	if a.live() == 0 {
		return
	}
	for _, c := range a.chunks {
		for i := range c {
			if r := &c[i]; r.state == ReqInFlight && r.flags&(waitThawed|waitGone) == 0 {
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
	a := t.waits.arena(r.dir)
	a.ended = append(a.ended, r.seq)
	t.waits.inPlace++
}

// lostAll ends every compact record in flight as lost (an exit, a
// restart), calling fn, when set, with each.
func (t *Tracker) lostAll(at time.Duration, fn func(r *waitRec)) {
	for _, dir := range []wire.Dir{wire.ClientToServer, wire.ServerToClient} {
		t.waits.waitingIn(dir, func(r *waitRec) {
			t.endInPlace(r, ReqLost, at)
			if fn != nil {
				fn(r)
			}
		})
	}
}

// sweep is Forget's pass over the arenas: the records that ended in place
// are summarised, and so are the thawed entries Forget would summarise
// (ended, their answer's frame gone too); an arena sheds what it no longer
// holds once that is half of it. It returns how many records they keep.
func (t *Tracker) sweep(first uint64) (kept int) {
	w := &t.waits
	for k := range w.arenas {
		a := &w.arenas[k]
		for _, seq := range a.ended {
			if r := a.find(seq); r != nil && r.flags&(waitThawed|waitGone) == 0 {
				t.summariseState(r.state)
				r.flags |= waitGone
				a.gone++
			}
		}
		a.ended = a.ended[:0]
	}
	for seq, e := range w.full {
		if e.State != ReqInFlight && e.ResponseSeq < first {
			t.summarise(e)
			delete(w.full, seq)
			a := w.arena(e.Dir)
			a.find(seq).flags |= waitGone
			a.gone++
		}
	}
	for k := range w.arenas {
		if a := &w.arenas[k]; a.gone > 0 && a.gone >= a.n/2 {
			a.compact()
		}
	}
	return w.live()
}

// compact drops the summarised records from the arena, releasing each
// chunk once it is copied.
func (a *arena) compact() {
	old := a.chunks
	last, lastID := a.last, a.lastID
	a.chunks, a.n, a.gone = nil, 0, 0
	for k, c := range old {
		for _, r := range c {
			if r.flags&waitGone == 0 {
				a.push(r)
			}
		}
		old[k] = nil
	}
	a.last, a.lastID = last, lastID
}

// restarted starts a new epoch in each arena (a fresh process's ids are its
// own), once every record in flight is lost.
func (w *waits) restarted() {
	for k := range w.arenas {
		a := &w.arenas[k]
		a.epoch = a.last + 1
	}
}

// records calls fn with every request the tracker keeps a record of whose
// Seq is at least from, in Seq order, until fn returns false: the entries,
// and each compact record as a scratch entry (compact true) that fn must
// neither keep nor change.
func (t *Tracker) records(from uint64, fn func(e *entry, compact bool) bool) {
	w := &t.waits
	i, _ := slices.BinarySearchFunc(t.all, from, func(e *entry, seq uint64) int { return cmpSeq(e.Seq, seq) })
	a, b := &w.arenas[0], &w.arenas[1]
	j, k := a.search(from), b.search(from)
	var scratch entry
	const none = ^uint64(0)
	for {
		si, sj, sk := none, none, none
		if i < len(t.all) {
			si = t.all[i].Seq
		}
		if j < a.n {
			sj = a.at(j).seq
		}
		if k < b.n {
			sk = b.at(k).seq
		}
		var r *waitRec
		switch m := min(si, sj, sk); {
		case m == none:
			return
		case m == si:
			i++
			if !fn(t.all[i-1], false) {
				return
			}
			continue
		case m == sj:
			r = a.at(j)
			j++
		default:
			r = b.at(k)
			k++
		}
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

// compactBySeq returns the request with the given Seq as the arenas hold
// it: its entry when thawed, else a copy made whole; nil when they have
// none.
func (w *waits) compactBySeq(seq uint64) *entry {
	var r *waitRec
	for k := range w.arenas {
		if r = w.arenas[k].find(seq); r != nil {
			break
		}
	}
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
