package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"linesman/session/eventlog"
)

// writeChunk bounds one write to stdin, so that progress (or its absence)
// is visible between chunks: a chunk blocked for long is a server that does
// not read its input.
const writeChunk = 64 << 10

// writer drains a bounded queue into the server's stdin on its own
// goroutine, so that Send never blocks.
type writer struct {
	// eof is set once the server's stdin is closed (closeFile).
	eof   atomic.Bool
	p     *proc
	f     *os.File
	limit int64
	done  chan struct{}
	wake  chan struct{} // coalescing: "look at the queue"

	closeOnce sync.Once

	mu      sync.Mutex
	queue   [][]byte
	queued  int64 // bytes queued and not yet written, the chunk being written included
	written int64
	closing bool // close stdin once the queue is drained (shutdown ladder)
	stopped bool // stdin is (being) closed: no more sends
	err     error
	inWrite bool
	through bool // writeThrough is writing: run waits, so writes never interleave

	accepted int64         // bytes ever accepted by enqueue; a send ends at an offset of this count
	broken   chan struct{} // closed when a write failed (not when linesman closed stdin itself)
	since    time.Time     // when the write in progress started
}

func newWriter(p *proc, f *os.File) *writer {
	return &writer{
		p:      p,
		f:      f,
		limit:  int64(p.s.cfg.QueueLimit),
		done:   make(chan struct{}),
		wake:   make(chan struct{}, 1),
		broken: make(chan struct{}),
	}
}

func (w *writer) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// enqueue queues raw (the writer's from now on: not copied), calling
// logFrames first under the queue's lock so that the log's order of client
// frames is the order on the wire.
func (w *writer) enqueue(raw []byte, logFrames func()) (end int64, err error) {
	if len(raw) == 0 {
		return 0, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.closing {
		if w.err != nil {
			// Say why in plain words ("broken pipe"), not as the os.File's
			// name for a pipe ("write |1: broken pipe").
			return 0, fmt.Errorf("%w (%v)", ErrStdinClosed, plainCause(w.err))
		}
		return 0, ErrStdinClosed
	}
	// One message larger than the limit still goes when nothing waits:
	// the limit is there to notice a stuck reader, not to cap messages.
	if w.queued > 0 && w.queued+int64(len(raw)) > w.limit {
		return 0, ErrQueueFull
	}
	logFrames()
	w.queue = append(w.queue, raw)
	w.queued += int64(len(raw))
	w.accepted += int64(len(raw))
	w.poke()
	return w.accepted, nil
}

// writeThrough writes raw to stdin on the caller's goroutine, calling
// logFrames first under the queue's lock, when nothing is queued or being
// written ahead of it; otherwise it queues raw as enqueue does. It is the
// tap's inlet: the host's pump may block on a server that does not read,
// as it would on a direct pipe, and one goroutine hand-off is saved per
// message. Blocked writes are seen by blocked as the queue's are.
func (w *writer) writeThrough(raw []byte, logFrames func()) error {
	w.mu.Lock()
	if len(w.queue) > 0 || w.inWrite || w.stopped || w.closing {
		w.mu.Unlock()
		_, err := w.enqueue(bytes.Clone(raw), logFrames) // the caller's buffer, reused
		return err
	}
	logFrames()
	w.inWrite, w.through, w.since = true, true, time.Now()
	w.queued += int64(len(raw))
	w.accepted += int64(len(raw))
	w.mu.Unlock()
	n, err := w.f.Write(raw)
	w.mu.Lock()
	w.inWrite, w.through = false, false
	w.written += int64(n)
	if !w.stopped {
		w.queued -= int64(len(raw))
	}
	// run may have work that waited for this write; if not, waking it
	// would only cost the tap a thread switch per message.
	work := len(w.queue) > 0 || w.closing || w.stopped
	w.mu.Unlock()
	if work {
		w.poke()
	}
	if err != nil {
		w.failed(err)
		return fmt.Errorf("%w (%v)", ErrStdinClosed, plainCause(err))
	}
	return nil
}

func (w *writer) run() {
	defer close(w.done)
	defer w.closeFile()
	for {
		w.mu.Lock()
		for (len(w.queue) == 0 && !w.closing || w.through) && !w.stopped {
			w.mu.Unlock()
			<-w.wake
			w.mu.Lock()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		if len(w.queue) == 0 { // closing, and everything was written
			w.stopped = true
			w.mu.Unlock()
			// Tell the tracker before closing: a server that flushes the
			// moment it sees EOF must not have its burst logged before the
			// close, or unflushed-output cannot see the burst for what it is.
			if w.p.scribe == nil { // a tap's scribe tells it in the wire's order
				w.p.s.logFact(eventlog.Event{Type: eventlog.EventStdinClosed, Stdin: &eventlog.StdinEvent{}})
			}
			w.closeFile()
			return
		}
		buf := w.queue[0]
		w.mu.Unlock()

		for len(buf) > 0 {
			chunk := buf[:min(len(buf), writeChunk)]
			w.mu.Lock()
			w.inWrite, w.since = true, time.Now()
			w.mu.Unlock()
			n, err := w.f.Write(chunk)
			w.mu.Lock()
			w.inWrite = false
			w.written += int64(n)
			if !w.stopped {
				w.queued -= int64(n)
			}
			w.mu.Unlock()
			buf = buf[n:]
			if err != nil {
				w.failed(err)
				return
			}
		}
		w.mu.Lock()
		if len(w.queue) > 0 && !w.stopped {
			w.queue[0] = nil
			w.queue = w.queue[1:]
		}
		w.mu.Unlock()
	}
}

// failed handles a write error: the server closed its stdin or exited.
func (w *writer) failed(err error) {
	w.mu.Lock()
	wasStopped := w.stopped
	w.stopped = true
	pending := w.queued
	w.queue, w.queued = nil, 0
	w.err = err
	w.mu.Unlock()
	if wasStopped || errors.Is(err, os.ErrClosed) {
		return // we closed stdin ourselves
	}
	// A process that has closed its pipes may not have been reaped yet:
	// wait (bounded) for the exit status so the log can say how it ended.
	p := w.p
	select {
	case <-p.exited:
	case <-time.After(exitStatusWait):
	}
	defer close(w.broken) // after the note, so that waiters find the reason logged
	if !isOpen(p.exited) {
		p.s.note(fmt.Sprintf("writing to the server's stdin failed (%d bytes not delivered): %v", pending, p.exitedError()))
		return
	}
	p.s.note(fmt.Sprintf("writing to the server's stdin failed (%d bytes not delivered): %v; the server closed its stdin but is still running", pending, plainCause(err)))
}

// delivered reports whether every byte accepted up to offset end (as
// returned by enqueue) was written to the server's stdin.
func (w *writer) delivered(end int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written >= end
}

// failure returns the error that stopped the writer, if any.
func (w *writer) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// closeWhenDrained closes stdin once everything queued has been written
// (the first rung of the shutdown ladder). Sends fail from now on.
func (w *writer) closeWhenDrained() {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	w.poke()
}

// stop closes stdin now, dropping what is queued; a blocked write returns.
// ladder says the shutdown ladder did it (the tracker is told, and what was
// dropped is logged).
func (w *writer) stop(ladder bool) {
	w.mu.Lock()
	wasOpen := !w.stopped
	w.stopped = true
	dropped := w.queued
	w.queue, w.queued = nil, 0
	w.mu.Unlock()
	if ladder && wasOpen {
		w.p.s.logFact(eventlog.Event{Type: eventlog.EventStdinClosed, Stdin: &eventlog.StdinEvent{}}) // before the close, as in run
	}
	w.closeFile()
	w.poke()
	if ladder && wasOpen {
		s := w.p.s
		if dropped > 0 {
			s.note(fmt.Sprintf("stdin closed with %d bytes still queued; they were not delivered", dropped))
		}
	}
}

func (w *writer) closeFile() {
	w.closeOnce.Do(func() {
		w.eof.Store(true)
		w.f.Close()
	})
}

// blocked reports whether a write has been blocked longer than d, and how
// many bytes are waiting.
func (w *writer) blocked(d time.Duration) (bool, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inWrite && time.Since(w.since) > d, w.queued
}

// counts returns the bytes queued and the bytes written so far.
func (w *writer) counts() (pending, written int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.queued, w.written
}

// plainCause strips an *os.PathError down to the system error it carries.
func plainCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
