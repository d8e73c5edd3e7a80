package capture

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"

	"linesman/session/eventlog"
	"linesman/session/hosts"
)

// batch bounds how many events the recorder copies out of the log at once,
// so that it holds the log's lock only briefly.
const batch = 256

// Recorder writes a eventlog.Log to a capture file as the log grows. It reads
// the log by Seq on its own goroutine after a coalescing signal, so an
// appender never waits for the disk (a tap's, CreateLimited, only once the
// recorder is a log's budget behind: see [eventlog.Log.Pace]). Records are written to a file opened
// O_APPEND as soon as the recorder has read what the log holds (or
// flushAt's worth of it), each whole within one write call: nothing waits
// for events still to come, so a crash of linesman loses at most the record
// being written (and what it had not read yet).
type Recorder struct {
	log  *eventlog.Log
	file *os.File
	path string

	signal <-chan struct{}
	cancel func()
	stop   chan struct{}
	done   chan struct{}

	next uint64           // Seq of the next event to write
	buf  []byte           // the records being built, reused
	evs  []eventlog.Event // the events being written, reused

	// perRecord makes every record a write call of its own, even under a
	// flood; the benchmark compares it with the default coalescing.
	perRecord bool

	// hold: the log holds the events from next on (eventlog.Log.Hold)
	// while the recorder records.
	hold bool

	// scrub, when not nil, replaces the header's Secrets in the text of
	// the records (see scrubEvent).
	scrub *strings.Replacer

	// limit, when positive, is the most bytes the file may hold, header
	// and records (CreateLimited); size is what it holds so far.
	limit, size int64

	mu      sync.Mutex
	err     error  // first write error; recording stops there
	written uint64 // events written
	dropped uint64 // events the log's retention dropped before they were written
}

// Create creates (or truncates) the capture file at path with mode 0600,
// writes the header and starts recording log from its first retained event.
// The header's Start is set from the log; Format, Version and Linesman are
// filled in when empty.
func Create(path string, log *eventlog.Log, h Header) (*Recorder, error) {
	return create(path, log, h, false)
}

// CreateLimited is Create for a capture that may hold at most limit bytes
// (a tap's, which lives as long as its host, under whatever its server
// writes): the record that would cross the limit is replaced by a note
// saying so, and recording stops there with an error wrapping ErrLimit.
// A limit of 0 or less is no limit. A tap's capture must hold everything
// the tap passed on, so the recorder holds the events it has not written
// yet past the log's budget ([eventlog.Log.Hold]); the appenders that pace
// themselves ([eventlog.Log.Pace]) wait for it when it falls a budget
// behind.
func CreateLimited(path string, log *eventlog.Log, h Header, limit int64) (*Recorder, error) {
	return createWith(path, log, h, false, limit, true)
}

// ErrLimit is wrapped by the error of a recorder that stopped at its
// limit (CreateLimited).
var ErrLimit = errors.New("the capture reached its size limit")

func create(path string, log *eventlog.Log, h Header, perRecord bool) (*Recorder, error) {
	return createWith(path, log, h, perRecord, 0, false)
}

func createWith(path string, log *eventlog.Log, h Header, perRecord bool, limit int64, hold bool) (*Recorder, error) {
	r, err := prepare(path, log, h, perRecord)
	if err != nil {
		return nil, err
	}
	r.limit = limit
	if r.hold = hold; hold {
		log.Hold(r.next)
	}
	// Subscribe before looking at the log, so no append can slip between
	// the first read and the first signal.
	r.signal, r.cancel = log.Subscribe()
	go r.run()
	return r, nil
}

// prepare creates the file and writes the header: a recorder that does not
// run yet.
func prepare(path string, log *eventlog.Log, h Header, perRecord bool) (*Recorder, error) {
	// Not O_TRUNC: the file may be another recorder's, still being
	// written; it is truncated only once its lock is ours.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if err := lockCapture(f, path); err != nil {
		f.Close()
		return nil, err
	}
	// An existing file keeps its mode through O_TRUNC: a capture may hold
	// what a server said in confidence, so make it private either way.
	// (Only a regular file: a capture to a pipe or a device leaves its
	// mode alone.)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("capture: %w", err)
		}
	}
	h.Start = log.Start()
	if h.Format == "" {
		h.Format = FormatName
	}
	if h.Version == 0 {
		h.Version = FormatVersion
	}
	if h.Linesman == "" {
		h.Linesman = eventlog.Version
	}
	buf, err := h.appendRecord(make([]byte, 0, bufSize))
	if err == nil {
		_, err = f.Write(buf)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("capture: writing the header of %s: %w", path, err)
	}
	r := &Recorder{
		log:       log,
		file:      f,
		path:      path,
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		next:      1,
		buf:       buf[:0],
		perRecord: perRecord,
		size:      int64(len(buf)), // the header counts towards a limit: the limit is the file's
		scrub:     scrubber(h.Secrets),
	}
	return r, nil
}

// Path returns the capture file's path.
func (r *Recorder) Path() string { return r.path }

// Stats returns how many events were written so far and how many the log's
// retention dropped before the recorder could write them.
func (r *Recorder) Stats() (written, dropped uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written, r.dropped
}

// Close writes every event appended before it was called, stops recording
// and closes the file. It returns the first error met while recording.
// Close is idempotent.
func (r *Recorder) Close() error {
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *Recorder) run() {
	defer close(r.done)
	defer r.cancel()
	for {
		r.drain()
		select {
		case <-r.signal:
		case <-r.stop:
			r.drain()
			if r.hold {
				r.log.Hold(0)
			}
			err := r.file.Close()
			r.mu.Lock()
			if r.err == nil && err != nil {
				r.err = fmt.Errorf("capture: closing %s: %w", r.path, err)
			}
			r.mu.Unlock()
			return
		}
	}
}

// flushAt is the size at which the recorder writes out the records it has
// built so far, even if more events are already waiting. 64 KiB makes the
// fixed cost of a write call small against the copy it makes, and keeps the
// buffer in the CPU's cache between the encoding and the write (256 KiB was
// measurably slower).
const flushAt = 64 << 10

// bufSize is the capacity the record buffer starts with: room for flushAt
// and the record that crosses it, so that a recording does not grow its
// buffer step by step (each step a copy) as the first floods arrive.
const bufSize = flushAt + flushAt/4

// keepBuf bounds the buffer the recorder keeps between writes: one huge
// frame (20 MiB) must not pin its size for the rest of the session.
const keepBuf = 1 << 20

// drain writes every event the log holds from r.next on.
//
// The records of the events that are in the log when the recorder looks are
// built into one buffer and written with one write call (several when they
// exceed flushAt): a record is never split across writes and never waits for
// later events, so what a crash loses is what had not been written yet — at
// worst, a torn last record. The log is read in batches, so that the
// recorder holds the log's lock only briefly, but the records of successive
// batches share a write until the recorder has caught up or the buffer
// reaches flushAt: a recorder that fell behind (a flood, or a busy machine
// that did not run it for a while) catches up with a few full-size writes.
// Under a flood this coalescing is what keeps the cost of recording within
// a fraction of the cost of logging; a quiet session writes each event
// alone, as it comes.
func (r *Recorder) drain() {
	// A recorder that stopped (an error, its limit) lets go of its hold
	// at once: appenders waiting for it (Log.Pace) may be all that would
	// append, and so signal it, again.
	defer r.letGoIfFailed()
	if r.failed() {
		return
	}
	buf := r.buf[:0]
	pending := uint64(0) // events in buf
	for {
		// One look at the log per batch: the read stops at the log's
		// end, so a short batch means the recorder has caught up. The
		// events are copied into a buffer kept from batch to batch, so a
		// read allocates nothing, under the log's lock or after.
		want := r.next + batch
		evs := r.log.AppendRange(r.evs[:0], r.next, want)
		r.evs = evs
		if len(evs) == 0 {
			first, end := r.log.Bounds()
			if r.next >= end || first <= r.next {
				break
			}
			// Everything from r.next on was dropped, up to first.
		}
		if len(evs) == 0 || evs[0].Seq > r.next {
			// Retention dropped events we had not written yet: say so,
			// honestly, and carry on from what is left.
			var upTo uint64
			if len(evs) > 0 {
				upTo = evs[0].Seq
			} else {
				upTo, _ = r.log.Bounds()
			}
			buf = appendDropped(buf, r.next, upTo-r.next)
			r.mu.Lock()
			r.dropped += upTo - r.next
			r.mu.Unlock()
			r.next = upTo
		}
		for i := range evs {
			mark := len(buf)
			if r.scrub != nil {
				scrubEvent(r.scrub, &evs[i])
			}
			buf = appendEvent(buf, &evs[i])
			if r.limit > 0 && r.size+int64(len(buf)) > r.limit {
				r.stopAtLimit(buf[:mark], pending, &evs[i])
				clear(evs)
				return
			}
			pending++
			r.next = evs[i].Seq + 1
			if len(buf) >= flushAt || r.perRecord {
				if !r.write(buf, pending) {
					clear(evs)
					return
				}
				buf, pending = r.buf[:0], 0
			}
		}
		// The records hold what they need: let go of the events, so that
		// a frame the log's retention drops does not live on here.
		clear(evs)
		if r.hold {
			r.log.Hold(r.next)
		}
		if len(evs) > 0 && r.next < want {
			break // the batch ended at the log's end
		}
	}
	if len(buf) > 0 {
		r.write(buf, pending)
	}
}

// write writes whole records with one write call and counts the events they
// hold; on error it keeps the error and recording stops (a capture with a
// hole in the middle would lie).
func (r *Recorder) write(recs []byte, events uint64) bool {
	n, err := r.file.Write(recs)
	r.size += int64(n)
	r.mu.Lock()
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("capture: writing %s: %w", r.path, err)
	}
	if err == nil {
		r.written += events
	}
	r.mu.Unlock()
	// Keep the buffer for the next records, but don't let one 20 MiB
	// frame pin 20 MiB for the rest of the session.
	r.buf = recs[:0]
	if cap(r.buf) > keepBuf {
		r.buf = make([]byte, 0, bufSize)
	}
	return err == nil
}

// stopAtLimit writes the records built before ev (recs, holding events
// events), then, in ev's place, a note that the capture stops there, and
// stops recording with ErrLimit. The note is written even when it crosses
// the limit by its own few bytes: a capture must say why it ends.
func (r *Recorder) stopAtLimit(recs []byte, events uint64, ev *eventlog.Event) {
	note := eventlog.Event{Seq: ev.Seq, At: ev.At, Type: eventlog.EventNote, Note: fmt.Sprintf(
		"the capture stops here: it reached its limit of %d bytes; what followed was passed on but not recorded", r.limit)}
	if !r.write(appendEvent(recs, &note), events) {
		return
	}
	r.mu.Lock()
	if r.err == nil {
		r.err = fmt.Errorf("capture: %s: %w of %d bytes; the rest of the session is not recorded", r.path, ErrLimit, r.limit)
	}
	r.mu.Unlock()
}

// letGoIfFailed releases the recorder's hold on the log once it stopped.
func (r *Recorder) letGoIfFailed() {
	if r.hold && r.failed() {
		r.hold = false
		r.log.Hold(0)
	}
}

func (r *Recorder) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}

// ErrBusy is returned (wrapped) by Create when another recorder, in this
// process or another, is writing the same capture file: two writers would
// interleave their records and leave a file no reader can follow.
var ErrBusy = errors.New("another linesman is recording to this file")

// lockCapture takes an exclusive advisory lock (flock) on a regular capture
// file for as long as f stays open, then truncates it. The kernel drops the
// lock when the recorder closes the file or dies, even by SIGKILL, so a
// stale lock cannot outlive its writer. A pipe or a device is not locked.
func lockCapture(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var lerr error
	rc.Control(func(fd uintptr) {
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if lerr != syscall.EINTR {
				return
			}
		}
	})
	switch {
	case errors.Is(lerr, syscall.EWOULDBLOCK):
		return fmt.Errorf("capture: %s: %w (it holds the file's lock); choose another name, or wait until it ends", path, ErrBusy)
	case lerr != nil && !errors.Is(lerr, syscall.ENOLCK) && !errors.Is(lerr, syscall.ENOTSUP):
		return fmt.Errorf("capture: locking %s: %w", path, lerr)
	}
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	return nil
}

// CheckNotBusy returns an error wrapping ErrBusy when a recorder holds the
// lock of the capture at path (see Create); a missing file is not busy.
// Modes call it before they start a server, so that a second run aimed at
// the same file stops at once instead of after the server started.
func CheckNotBusy(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	busy := false
	rc.Control(func(fd uintptr) {
		if syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB) == syscall.EWOULDBLOCK {
			busy = true
			return
		}
		syscall.Flock(int(fd), syscall.LOCK_UN)
	})
	if busy {
		return fmt.Errorf("capture: %s: %w (it holds the file's lock); choose another name, or wait until it ends", path, ErrBusy)
	}
	return nil
}

// scrubber replaces each of secrets by hosts.Redaction (nil: none).
func scrubber(secrets []string) *strings.Replacer {
	var pairs []string
	for _, s := range secrets {
		if s != "" {
			pairs = append(pairs, s, hosts.Redaction)
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return strings.NewReplacer(pairs...)
}

// scrubEvent replaces the secrets in the text of ev, a copy of the log's
// event: what it points to is the log's, so a changed part is copied.
func scrubEvent(sc *strings.Replacer, ev *eventlog.Event) {
	ev.Note = sc.Replace(ev.Note)
	if p := ev.Process; p != nil {
		c := *p
		c.Detail = sc.Replace(c.Detail)
		ev.Process = &c
	}
	if f := ev.Finding; f != nil {
		c := *f
		c.Message = sc.Replace(c.Message)
		ev.Finding = &c
	}
	if r := ev.Restart; r != nil {
		c := *r
		c.Command = make([]string, len(r.Command))
		for i, a := range r.Command {
			c.Command[i] = sc.Replace(a)
		}
		ev.Restart = &c
	}
}
