package session

import (
	"bytes"
	"errors"
	"syscall"
	"time"

	"linesman/wire"
)

// Inlet passes a host's bytes to the server's stdin exactly as they come
// (linesman tap), logging each client frame as its line completes. It is
// the host-driven counterpart of [Session.Send], which takes whole frames.
//
// Bytes are queued at once, a partial line included, so that the server
// sees them as soon as a direct pipe would have delivered them. A frame is
// logged (and the tracker sees it) under the queue's lock before the bytes
// that end its line are queued, so the server's answer can never be logged
// before the request it answers. A line split across writes is framed
// whole; a value spread over several lines that arrive in separate writes
// is logged line by line.
//
// An Inlet is not safe for concurrent use: one goroutine pumps the host's
// stdin into it.
type Inlet struct {
	s    *Session
	part []byte // bytes after the last '\n' written so far (already queued)
}

// Inlet returns an Inlet for the session's current process.
func (s *Session) Inlet() *Inlet { return &Inlet{s: s} }

// inletRetry is how long Write waits before trying again when the stdin
// queue is full: a host that writes faster than the server reads is slowed
// down, never dropped.
const inletRetry = time.Millisecond

// Write queues b for the server's stdin. It blocks while the queue is full
// (the server reads slower than the host writes) and fails once the server
// has exited or its stdin is closed; b is then not delivered.
func (in *Inlet) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p := in.s.current()
	var frames []*wire.Frame
	rest := b
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		whole := b[:i+1]
		if len(in.part) > 0 {
			whole = append(bytes.Clone(in.part), whole...)
		}
		frames = wire.FramesOf(whole, wire.Options{MaxFrame: in.s.cfg.MaxFrame})
		rest = b[i+1:]
	}
	for {
		if !isOpen(p.exited) {
			return 0, p.exitedError()
		}
		err := p.w.writeThrough(b, func() {
			for _, f := range frames {
				in.s.logFrame(wire.ClientToServer, f)
			}
		})
		switch {
		case err == nil:
			if len(frames) > 0 {
				in.part = append(in.part[:0], rest...)
			} else {
				in.part = append(in.part, rest...)
			}
			return len(b), nil
		case errors.Is(err, ErrQueueFull):
			time.Sleep(inletRetry)
		default:
			return 0, err
		}
	}
}

// Close logs a last line that had no terminator, and closes the server's
// stdin once everything queued has been written (the host closed its end):
// nothing else — no SIGTERM follows, the host decides when to signal.
func (in *Inlet) Close() error {
	p := in.s.current()
	if len(in.part) > 0 {
		frames := wire.FramesOf(in.part, wire.Options{MaxFrame: in.s.cfg.MaxFrame})
		in.part = nil
		p.w.mu.Lock()
		for _, f := range frames {
			in.s.logFrame(wire.ClientToServer, f)
		}
		p.w.mu.Unlock()
	}
	p.w.closeWhenDrained()
	return nil
}

// Signal sends sig to the server's process group (a tap passes on the
// signals its host sends it). It does nothing once the process has exited.
func (s *Session) Signal(sig syscall.Signal) {
	p := s.current()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == StateExited {
		return
	}
	// Under p.mu, as in kill: the server is not reaped before we let go,
	// so the group id is still the server's.
	signalGroup(p.pid, sig)
}
