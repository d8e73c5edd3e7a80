package session

import (
	"bytes"
	"errors"
	"time"

	"linesman/wire"
)

// Interception under a tap (Config.Observe with Config.Intercept; the
// controller is `linesman tap --intercept`'s socket). The tap's wire
// passes bytes as they come; to hold a frame it must see the frame whole
// first, so with Config.Intercept each direction passes whole lines only
// (a partial line waits for its end, or for the end of its stream) and
// asks the interceptor about each line before passing it on:
//
//   - a host's line that matches is held before the server's stdin (the
//     rest of the host's stream goes on); released, it is passed on as the
//     host's bytes are, and judged as what crossed the wire;
//   - a server's line that matches is judged as it crossed (the scribe has
//     it already) and held before the host's stdout: the stdout reader
//     waits for the verdict, so the server waits as on a blocked pipe;
//   - a dropped request is answered with linesman's JSON-RPC error, on the
//     host's stdout (a host's request) or the server's stdin (a server's).
//
// What linesman writes into a stream (a release, an answer) goes in whole
// lines under that stream's lock, so it never lands inside a line of the
// other writer.

// lineSplit keeps a stream's partial line between reads.
type lineSplit struct{ pending []byte }

// feed calls each for every whole line of the pending bytes and b, and
// keeps what follows the last line end.
func (l *lineSplit) feed(b []byte, each func(line []byte)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.pending = append(l.pending, b...)
			return
		}
		line := b[:i+1]
		if len(l.pending) > 0 {
			line = append(l.pending, line...)
			l.pending = nil
		}
		each(line)
		b = b[i+1:]
	}
}

// rest returns the partial line kept, and forgets it.
func (l *lineSplit) rest() []byte {
	r := l.pending
	l.pending = nil
	return r
}

// heldLine returns line's frame when the interceptor armed now holds it.
func (s *Session) heldLine(dir wire.Dir, line []byte) (*wire.Frame, string) {
	match, filter := s.interceptor()
	if match == nil {
		return nil, ""
	}
	fs := wire.FramesOf(line, wire.Options{MaxFrame: s.cfg.MaxFrame})
	if len(fs) != 1 || !match(dir, fs[0]) {
		return nil, ""
	}
	return fs[0], filter
}

// writeLines is Inlet.Write under Config.Intercept: whole lines are
// passed on, or held.
func (in *Inlet) writeLines(p *proc, b []byte) error {
	s := in.s
	var pass []byte
	var err error
	in.split.feed(b, func(line []byte) {
		if err != nil {
			return
		}
		f, filter := s.heldLine(wire.ClientToServer, line)
		if f == nil {
			pass = append(pass, line...)
			return
		}
		err = s.inletPass(p, pass)
		pass = nil
		s.hold(wire.ClientToServer, f, 0, filter)
	})
	if err != nil {
		return err
	}
	return s.inletPass(p, pass)
}

// inletPass passes b to the server's stdin as the host's bytes: queued for
// the scribe, then written (see Inlet.Write).
func (s *Session) inletPass(p *proc, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if s.cfg.Intercept {
		s.inletMu.Lock()
		defer s.inletMu.Unlock()
	}
	if !isOpen(p.exited) {
		return p.exitedError()
	}
	p.scribe.put(wire.ClientToServer, b)
	for {
		if !isOpen(p.exited) {
			return p.exitedError()
		}
		err := p.w.writeThrough(b, func() {})
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrQueueFull):
			time.Sleep(inletRetry)
		default:
			return err
		}
	}
}

// teeLines is forwardStdout's write under Config.Intercept: whole lines
// go to the host, a held one once its verdict came (the reader waits).
// With an interceptor armed, the host's bytes read before these (ticket)
// are judged first, so that an answer's request is known to the filter
// (method:, tool: of a result).
func (p *proc) teeLines(b []byte, ticket uint64) error {
	s := p.s
	if match, _ := s.interceptor(); match != nil && ticket != 0 {
		p.scribe.waitBefore(wire.ClientToServer, ticket)
	}
	var pass []byte
	var err error
	p.outSplit.feed(b, func(line []byte) {
		if err != nil {
			return
		}
		f, _ := s.heldLine(wire.ServerToClient, line)
		if f == nil {
			pass = append(pass, line...)
			return
		}
		err = s.toHost(pass)
		pass = nil
		if out := p.holdStdout(f, 0); out != nil && err == nil {
			err = s.toHost(out.Raw())
		}
	})
	if err != nil {
		return err
	}
	return s.toHost(pass)
}

// toHost writes b to the host (Config.StdoutTee) under the stream's lock.
func (s *Session) toHost(b []byte) error {
	tee := s.cfg.StdoutTee
	if len(b) == 0 || tee == nil {
		return nil
	}
	s.teeMu.Lock()
	defer s.teeMu.Unlock()
	_, err := tee.Write(b)
	return err
}
