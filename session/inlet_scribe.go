package session

import (
	"bytes"
	"errors"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"linesman/wire"
)

// The tap's scribe runs behind the wire. A tap forwards each chunk of bytes
// the moment it is read — the host's stdin to the server, the server's
// stdout to the host — and hands the same bytes to a scribeQueue; one scribe
// goroutine per direction frames them from there, and logs and judges each
// frame, at its own pace. The wire never waits for the scribe.
//
// Order. Every chunk takes a ticket from one counter shared by both
// directions before its first byte is forwarded, so a chunk that answers
// another (the server's reply to the host's request, the host's reply to a
// server request) always has the later ticket. A scribe logs a frame only
// when the other direction has framed everything with an earlier ticket
// (see [scribeQueue.waitTurn]): the log's order of the two directions is the
// wire's causal order, as it was when the wire waited for the scribe. Lines
// the framer holds back (the start of what may be a multi-line value) are
// the exception, as they always were: they are logged when their run ends.
// A gap (below) is logged whole before the other direction's frames that
// came after it began, since a reader frames it where its last piece is.
//
// Falling behind. Each direction may hold [Config.ScribeBudget] bytes that
// the scribe has not framed yet (and the chunk that crosses the budget).
// Past that, what the wire carries is passed on as usual and queued
// unjudged: when the scribe gets there it does not frame those bytes, it
// logs them as they are ([eventlog.EventUnjudged], with the lines the gap
// cut), in pieces that end at a line end, so that the capture holds every
// byte forwarded and a reader of the capture frames and judges them; a note
// says how many bytes (and lines) of which direction the scribe passed over.
// Passing bytes over costs the scribe a copy, so it catches up at once.
// Framing resumes at the first line that starts after the queue has drained
// to half the budget, so the scribe never sees half a line. Nothing that
// was queued is ever dropped or reordered, and the host is never slowed by
// more than copying a chunk into the queue.

// DefaultScribeBudget is Config.ScribeBudget's default: bytes per direction.
const DefaultScribeBudget = 64 << 20

// errScribeGap is what the scribe's reader returns where bytes were passed
// on unjudged; the framer ends there and a new one starts after the gap.
var errScribeGap = errors.New("bytes were passed on unjudged here")

// scribeChunk is a run of forwarded bytes waiting for a scribe.
type scribeChunk struct {
	ticket   uint64
	data     []byte
	off      int  // bytes of data already read by the framer
	unjudged bool // over budget: the scribe logs data as it is, unframed

	// buf is the chunkPool buffer data is the start of (nil: data was
	// allocated to size), back in the pool once refs, its holders (the
	// scribe, and the forwarder that lent it), have released it. A scribe
	// whose framer takes the chunk itself (readChunk), and an unjudged
	// chunk's scribe, do not: the bytes go to the log as they are, and
	// the buffer with them, for the collector once the log lets go.
	buf  *[chunkSize]byte
	refs atomic.Int32
}

// release says one holder of c is done with its bytes; the last returns
// its buffer to chunkPool.
func (c *scribeChunk) release() {
	if c.buf != nil && c.refs.Add(-1) == 0 {
		chunkPool.Put(c.buf)
	}
}

// scribeDir is the state of one direction of a scribeQueue.
type scribeDir struct {
	chunks  []*scribeChunk // FIFO; the front may be partly read
	queued  int64          // bytes in chunks not read yet
	last    uint64         // ticket of the chunk the framer read from last
	busy    bool           // the framer is working on what it read (not back in Read)
	active  atomic.Bool    // busy, or chunks queued: the other scribe may have to wait (see waitTurn)
	ended   bool           // no more chunks will come
	endAt   uint64         // the ticket of the end
	byHost  bool           // the end is the host's: it closed its end of our stdin
	waiting bool           // the framer waits in Read with nothing queued

	dropping bool  // over budget: bytes are queued unjudged
	held     int64 // unjudged bytes queued (outside the budget)
	midLine  bool  // the last byte queued was not a line end
	inGap    bool  // the reader returned errScribeGap; takeUnjudged not called yet
}

// scribeQueue carries the bytes a tap forwarded to the two scribes; see
// the comment at the top of this file. It is safe for concurrent use: one
// goroutine puts each direction's chunks, one reads each direction.
type scribeQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	ticket uint64
	budget int64
	dirs   [2]scribeDir    // by dirIndex
	hold   <-chan struct{} // tests: the scribes wait for this to close

	lag      *time.Timer // wakes the scribes scribeLag after bytes came (wakeLocked)
	lagArmed bool
}

func newScribeQueue(budget int, hold <-chan struct{}) *scribeQueue {
	if budget <= 0 {
		budget = DefaultScribeBudget
	}
	q := &scribeQueue{budget: int64(budget), hold: hold}
	q.cond = sync.NewCond(&q.mu)
	q.lag = time.AfterFunc(time.Hour, q.lagEnded)
	q.lag.Stop()
	return q
}

func dirIndex(d wire.Dir) int {
	if d == wire.ServerToClient {
		return 1
	}
	return 0
}

// chunkSize is the size of the buffers the stdout forwarder reads into: a
// pipe hands over at most 64 KiB at once.
const chunkSize = 64 << 10

// chunkPool holds the chunkSize buffers of large chunks (see takeBytes),
// and the stdout forwarder's read buffers, which it lends to the queue.
var chunkPool = sync.Pool{New: func() any { return new([chunkSize]byte) }}

// put queues a copy of b under a new ticket, which it returns, unjudged
// when the direction is over budget. Call it before b is forwarded.
func (q *scribeQueue) put(d wire.Dir, b []byte) (ticket uint64) {
	ticket, _ = q.enqueue(d, b, nil)
	return ticket
}

// lend is put for the first n bytes of buf, a chunkPool buffer, that saves
// the copy: when those bytes go into the queue whole and fill more than an
// eighth of buf, the queue keeps buf itself and returns its chunk. The
// caller forwards the bytes, then releases the chunk and reads on into
// another buffer; buf is the pool's again if the scribe releases it too
// (its framer mostly keeps it: see readChunk). Otherwise the bytes are
// copied, as put does, and lend returns nil.
func (q *scribeQueue) lend(d wire.Dir, buf *[chunkSize]byte, n int) (ticket uint64, lent *scribeChunk) {
	return q.enqueue(d, buf[:n], buf)
}

// enqueue queues b under a new ticket: buf itself when b is its start and
// takeBytes lends it (the chunk is returned), else a copy.
func (q *scribeQueue) enqueue(d wire.Dir, b []byte, buf *[chunkSize]byte) (ticket uint64, lent *scribeChunk) {
	if len(b) == 0 {
		return 0, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	jd := &q.dirs[dirIndex(d)]
	if jd.ended {
		return 0, nil
	}
	q.ticket++
	ticket = q.ticket
	if jd.dropping || jd.queued >= q.budget {
		var over []byte
		over, b = q.overBudget(jd, b)
		if len(over) > 0 {
			c := &scribeChunk{ticket: q.ticket, unjudged: true}
			if len(b) == 0 {
				lent = c.takeBytes(over, buf)
			} else {
				c.takeBytes(over, nil) // buf is split: both halves copied
			}
			jd.chunks = append(jd.chunks, c)
			jd.active.Store(true)
			jd.held += int64(len(over))
			jd.midLine = over[len(over)-1] != '\n'
		}
		if len(b) == 0 {
			q.wakeLocked(jd)
			return ticket, lent
		}
		buf = nil
	}
	c := &scribeChunk{ticket: q.ticket}
	lent = c.takeBytes(b, buf)
	jd.chunks = append(jd.chunks, c)
	jd.active.Store(true)
	jd.queued += int64(len(b))
	jd.midLine = b[len(b)-1] != '\n'
	q.wakeLocked(jd)
	return ticket, lent
}

// takeBytes makes b c's data: buf itself when b is its start (buf not nil)
// and fills more than an eighth of it, and then c is returned, to be
// released by the lender too; else a copy, in a chunkPool buffer when it
// fills more than an eighth of one (small ones are allocated to size, so
// that many small chunks do not pin many buffers).
func (c *scribeChunk) takeBytes(b []byte, buf *[chunkSize]byte) (lent *scribeChunk) {
	switch {
	case len(b) <= chunkSize/8 || len(b) > chunkSize:
		c.data = bytes.Clone(b)
		return nil
	case buf != nil:
		c.data, c.buf = b, buf
		c.refs.Store(2)
		return c
	}
	c.buf = chunkPool.Get().(*[chunkSize]byte)
	c.data = c.buf[:copy(c.buf[:], b)]
	c.refs.Store(1)
	return nil
}

// scribeLag is how long bytes may wait before a scribe waiting for them is
// woken, and scribeLagBytes how many make it wake at once. Waking a scribe
// for every chunk woke a second thread per message: on two cores the tap
// spent more CPU switching threads than judging (perf: 64% of its samples
// in the kernel's context switch, under 5% framing and judging). One wake
// per lag serves a burst of messages, both directions at once.
const (
	scribeLag      = time.Millisecond
	scribeLagBytes = 1 << 20
)

// wakeLocked wakes the scribe of jd if it waits for bytes: at once when
// scribeLagBytes are queued, else when scribeLag has passed.
func (q *scribeQueue) wakeLocked(jd *scribeDir) {
	if !jd.waiting {
		return
	}
	if jd.queued+jd.held >= scribeLagBytes {
		q.cond.Broadcast()
		return
	}
	if !q.lagArmed {
		q.lagArmed = true
		q.lag.Reset(scribeLag)
	}
}

// lagEnded wakes the scribes when scribeLag has passed (the lag timer).
func (q *scribeQueue) lagEnded() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.lagArmed = false
	q.cond.Broadcast()
}

// overBudget splits b, which comes while the direction is over budget (or
// was, and has not resumed), into what is queued unjudged and what the scribe
// frames again: all of b while the queue is above half the budget, else the
// bytes after the first line end (all of b when the last byte queued ended
// a line).
func (q *scribeQueue) overBudget(jd *scribeDir, b []byte) (over, judged []byte) {
	if !jd.dropping {
		jd.dropping = true // b is the gap's first chunk
		return b, nil
	}
	if jd.queued > q.budget/2 {
		return b, nil
	}
	i := -1
	if jd.midLine {
		if i = bytes.IndexByte(b, '\n'); i < 0 {
			return b, nil
		}
	}
	jd.dropping = false
	return b[:i+1], b[i+1:]
}

// end says no more chunks come in direction d (byHost: the host closed
// its end); a gap still open is queued so that the scribe can say what it
// did not see. The end takes a ticket, as a chunk does.
func (q *scribeQueue) end(d wire.Dir, byHost bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	jd := &q.dirs[dirIndex(d)]
	if jd.ended {
		return
	}
	q.ticket++
	jd.ended, jd.endAt, jd.byHost = true, q.ticket, byHost
	jd.dropping = false
	q.cond.Broadcast()
}

// endedByHost reports whether direction d ended because the host closed it.
func (q *scribeQueue) endedByHost(d wire.Dir) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dirs[dirIndex(d)].byHost
}

// finished says the scribe of d has returned: it holds up nothing more.
func (q *scribeQueue) finished(d wire.Dir) {
	q.mu.Lock()
	defer q.mu.Unlock()
	jd := &q.dirs[dirIndex(d)]
	jd.busy, jd.waiting = false, true
	jd.active.Store(len(jd.chunks) > 0)
	q.cond.Broadcast()
}

// read is the scribe's side of direction d: it copies queued bytes into p,
// waiting for some; io.EOF once the direction ended and everything was
// read; errScribeGap at a gap.
func (q *scribeQueue) read(d wire.Dir, p []byte) (int, error) {
	c, off, n, whole, err := q.take(d, len(p))
	if err != nil {
		return 0, err
	}
	// Copied without the lock, which the wire's put takes: a scribe thread
	// the kernel preempts mid-copy on a busy machine must not stall the
	// wire. The bytes of a queued chunk never change.
	copy(p, c.data[off:off+n])
	if whole {
		c.release()
	}
	return n, nil
}

// readChunk is read without the copy: it returns the rest of the chunk at
// the front of d's queue, which is the caller's from then on (the framer's,
// and the log's through the frames cut from it): the chunk is not released,
// so its buffer never goes back to chunkPool. A chunk that fills less than
// half its buffer is copied out and released instead, so that a few frames
// kept in the log do not pin a mostly empty buffer each.
func (q *scribeQueue) readChunk(d wire.Dir) ([]byte, error) {
	c, off, n, _, err := q.take(d, math.MaxInt)
	if err != nil {
		return nil, err
	}
	b := c.data[off : off+n : off+n]
	if c.buf != nil && 2*n < chunkSize {
		b = bytes.Clone(b)
		c.release()
	}
	return b, nil
}

// take waits for queued bytes in direction d and takes up to most of them
// from the chunk at the front: c.data[off:off+n], whole when they end the
// chunk, which then has left the queue (the caller releases it, or keeps
// it). It returns io.EOF once the direction ended and everything was read,
// errScribeGap at a gap.
func (q *scribeQueue) take(d wire.Dir, most int) (c *scribeChunk, off, n int, whole bool, err error) {
	if q.hold != nil {
		<-q.hold
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	jd := &q.dirs[dirIndex(d)]
	jd.busy = false // everything read before was framed and logged
	q.cond.Broadcast()
	for len(jd.chunks) == 0 && !jd.ended {
		jd.waiting = true
		jd.active.Store(false)
		q.cond.Wait()
	}
	jd.waiting = false
	jd.busy = true
	if len(jd.chunks) == 0 {
		jd.last = jd.endAt // what the end flushes is judged after what came before it
		return nil, 0, 0, false, io.EOF
	}
	c = jd.chunks[0]
	jd.last = c.ticket
	if c.unjudged {
		jd.inGap = true
		return nil, 0, 0, false, errScribeGap
	}
	off = c.off
	n = min(most, len(c.data)-off)
	c.off += n
	jd.queued -= int64(n)
	whole = c.off == len(c.data)
	if whole {
		jd.chunks[0] = nil
		jd.chunks = jd.chunks[1:]
	}
	jd.active.Store(true)
	return c, off, n, whole, nil
}

// idle reports whether the scribe of d waits for bytes with none queued:
// it has framed and logged everything forwarded so far.
func (q *scribeQueue) idle(d wire.Dir) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	jd := &q.dirs[dirIndex(d)]
	return jd.waiting && len(jd.chunks) == 0
}

// waitTurn waits until the other direction has framed and logged every
// chunk with a ticket before the one d's framer read from last, so that a
// frame of d is logged after whatever it may answer.
//
// An idle other direction (nothing queued, nothing being framed) is seen
// without the lock: whatever it gets later has a later ticket. A flood
// one way then takes no lock per frame.
func (q *scribeQueue) waitTurn(d wire.Dir) {
	me, other := &q.dirs[dirIndex(d)], &q.dirs[1-dirIndex(d)]
	if !other.active.Load() {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.waitBeforeLocked(other, me.last)
}

// waitBefore waits until direction d has framed and logged every chunk
// with a ticket before t (a tap's interceptor asks about a server's answer
// once its request is in the projection).
func (q *scribeQueue) waitBefore(d wire.Dir, t uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.waitBeforeLocked(&q.dirs[dirIndex(d)], t)
}

func (q *scribeQueue) waitBeforeLocked(other *scribeDir, t uint64) {
	for other.busy && other.last < t ||
		len(other.chunks) > 0 && other.chunks[0].ticket < t {
		q.cond.Wait()
	}
}

// scribeReader is an io.Reader over one direction of a scribeQueue, for a
// wire.Framer.
type scribeReader struct {
	q *scribeQueue
	d wire.Dir
}

func (r scribeReader) Read(p []byte) (int, error) { return r.q.read(r.d, p) }

// ReadChunk makes scribeReader a wire.ChunkReader: the framer cuts its
// lines out of the queued chunks themselves (see scribeQueue.readChunk).
func (r scribeReader) ReadChunk() ([]byte, error) { return r.q.readChunk(r.d) }

// scribeStream frames what the queue holds for direction d and calls logf
// for each frame, in its turn, with the framer's index of its params (nil:
// none; valid during the call), until the direction ends. At a gap, the
// lines it cut and the bytes queued unjudged are logged as they are (see
// unjudgedRun), and a note says how far the scribe fell behind.
func (p *proc) scribeStream(d wire.Dir, logf func(*wire.Frame, *wire.ParamsIndex)) {
	q := p.scribe
	newFramer := func() *wire.Framer {
		return wire.NewFramer(scribeReader{q, d}, wire.Options{MaxFrame: p.s.cfg.MaxFrame})
	}
	defer q.finished(d)
	fr := newFramer()
	gap := unjudgedRun{p: p, d: d}
	defer gap.end()
	for {
		f, err := fr.Next()
		// The capture's recorder may have fallen a log's budget behind:
		// the scribe waits for it here, behind the wire, and what comes
		// meanwhile waits in the queue (unjudged past the budget), so that
		// the log, and with it the capture, loses nothing.
		p.s.log.Pace()
		if f != nil {
			if q.gapped(d) {
				gap.add(f.Raw()) // a line the gap cut: unjudged with it
			} else {
				gap.end()
				q.waitTurn(d)
				logf(f, fr.Params(f))
			}
		}
		if errors.Is(err, errScribeGap) {
			chunks := q.takeUnjudged(d)
			q.waitTurn(d)
			for _, c := range chunks {
				gap.take(c.data) // the log's now: c is not released
			}
			// The gap ends here, its last piece logged while this scribe
			// is still busy at the gap's first ticket: the other
			// direction's later frames (the answers to what the gap
			// holds) wait for it, so a reader of the log, who frames the
			// gap where its last piece is, meets each request before its
			// answer. (What the other direction sent during the gap and
			// the gap answers — a server's request — is logged after it.)
			// Framing resumes at a line start (see overBudget).
			gap.end()
			fr = newFramer()
			continue
		}
		if err != nil {
			return
		}
	}
}
