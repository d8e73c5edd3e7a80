package session

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Interception: a frame that matches the session's [Interceptor] is held
// until [Session.Release] or [Session.Drop] says what becomes of it (the
// inspector's i). What the log and the fold make of each step is said in
// session/eventlog/intercept.go.
//
//   - A frame given to [Session.Send] (what the user sends, and the
//     session's answers to the server's requests) that matches is kept
//     instead of being written and logged; the frames of the same Send that
//     do not match go on. Requests the session builds itself (the era
//     probe, the handshake, [Session.Call], [Session.Request]) are never
//     held: a Call waits on their answers.
//   - A frame the server writes that matches is logged (it crossed the
//     wire) and then held before the client side sees it (a waiting Call,
//     the handshake, the answers a host gives): the stdout reader waits for
//     the verdict, so the server waits as it would on a blocked pipe. The
//     exit of the process releases it.
//
// A tap (Config.Observe) is intercepted only when started with
// Config.Intercept: its wire then passes whole lines (intercept_tap.go),
// a client's frame is the host's, and what linesman writes in its place
// (a release, an answer to a dropped request) goes to the server's stdin
// or the host's stdout on the tap's own paths.

// Interceptor says whether a frame going dir is to be held. It is called
// on the goroutine that sends or reads the frame, before the frame is
// logged (c2s) or after (s2c), and must not block; it may read the
// session's tracker.
type Interceptor = func(dir wire.Dir, f *wire.Frame) bool

// HeldFrame is a frame held now ([Session.Held]).
type HeldFrame struct {
	Hold  uint64 // its number, for Release and Drop
	Dir   wire.Dir
	Frame *wire.Frame
	Seq   uint64 // a server's frame: its Seq in the log (0 for a client's)
}

// ErrNotHeld is returned by Release and Drop for a hold that is not (or no
// longer) held.
var ErrNotHeld = errors.New("session: no such frame is held")

type interception struct {
	mu     sync.Mutex
	match  Interceptor
	filter string
	next   uint64
	held   []*heldFrame
}

type heldFrame struct {
	HeldFrame
	verdict chan verdict // a server's frame: the stdout reader waits on it
}

// verdict is what becomes of a held server frame: passed on (frame: as
// edited, nil: as it was) or dropped.
type verdict struct {
	frame *wire.Frame
	drop  bool
}

// SetInterceptor arms interception with match (filter is its words, for
// the log), or disarms it (match nil). Frames held already stay held.
func (s *Session) SetInterceptor(match Interceptor, filter string) {
	s.icept.mu.Lock()
	defer s.icept.mu.Unlock()
	s.icept.match, s.icept.filter = match, filter
	if match == nil {
		s.note("intercept off: frames pass as they come")
		return
	}
	s.note("intercept on: frames matching " + filter + " are held until released, edited or dropped")
}

func (s *Session) interceptor() (Interceptor, string) {
	s.icept.mu.Lock()
	defer s.icept.mu.Unlock()
	return s.icept.match, s.icept.filter
}

// Held returns the frames held now, oldest first.
func (s *Session) Held() []HeldFrame {
	s.icept.mu.Lock()
	defer s.icept.mu.Unlock()
	out := make([]HeldFrame, len(s.icept.held))
	for i, h := range s.icept.held {
		out[i] = h.HeldFrame
	}
	return out
}

// sendIntercepted is Send with an interceptor: the frames of raw that
// match are held, the others are sent in order.
func (s *Session) sendIntercepted(raw []byte, match Interceptor, filter string) error {
	p := s.current()
	if !isOpen(p.exited) {
		return p.exitedError()
	}
	var pass []byte
	flush := func() error {
		if len(pass) == 0 {
			return nil
		}
		_, err := p.send(pass, false)
		pass = nil
		return err
	}
	for _, f := range wire.FramesOf(raw, wire.Options{MaxFrame: s.cfg.MaxFrame}) {
		if !match(wire.ClientToServer, f) {
			pass = append(pass, f.Raw()...)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		s.hold(wire.ClientToServer, f, 0, filter)
	}
	return flush()
}

// holdStdout holds the server's frame f (logged as seq) when it matches,
// and returns what the client side is to see: f, the frame as edited, or
// nil (dropped). It waits for the verdict, or for the process's exit.
func (p *proc) holdStdout(f *wire.Frame, seq uint64) *wire.Frame {
	s := p.s
	match, filter := s.interceptor()
	if match == nil || !match(wire.ServerToClient, f) {
		return f
	}
	h := s.hold(wire.ServerToClient, f, seq, filter)
	var v verdict
	select {
	case v = <-h.verdict:
	case <-p.exited:
		if !s.endHold(h.Hold, eventlog.InterceptReleased, nil, "the server exited") {
			v = <-h.verdict // a verdict came first
		}
	}
	switch {
	case v.drop:
		return nil
	case v.frame != nil:
		return v.frame
	}
	return f
}

// hold records a held frame and logs it.
func (s *Session) hold(dir wire.Dir, f *wire.Frame, seq uint64, filter string) *heldFrame {
	s.icept.mu.Lock()
	defer s.icept.mu.Unlock()
	s.icept.next++
	h := &heldFrame{HeldFrame: HeldFrame{Hold: s.icept.next, Dir: dir, Frame: f, Seq: seq}}
	ev := eventlog.Event{Type: eventlog.EventIntercept, Intercept: &eventlog.InterceptEvent{
		Action: eventlog.InterceptHeld, Hold: h.Hold, Dir: dir, FrameSeq: seq, Filter: filter}}
	switch {
	case dir == wire.ClientToServer:
		ev.Dir, ev.Frame = dir, f
		ev.Note = fmt.Sprintf("held #%d: %s before it reached the server (matches %s): release, edit or drop it", h.Hold, describe(f), filter)
	case seq == 0: // a tap's: logged by the scribe, behind the wire
		h.verdict = make(chan verdict, 1)
		ev.Dir, ev.Frame = dir, f
		ev.Note = fmt.Sprintf("held #%d: the server's %s before the host saw it (matches %s): its stdout waits until it is released, edited or dropped", h.Hold, describe(f), filter)
	default:
		h.verdict = make(chan verdict, 1)
		ev.Note = fmt.Sprintf("held #%d: the server's %s (frame #%d, matches %s): its stdout waits until it is released, edited or dropped", h.Hold, describe(f), seq, filter)
	}
	s.icept.held = append(s.icept.held, h)
	s.logFact(ev)
	return h
}

// describe names a frame in a note: its kind, method and id.
func describe(f *wire.Frame) string {
	m := &f.Msg
	out := m.Kind.String()
	if m.Method != "" {
		out += " " + wire.VisibleString(m.Method, wire.Pictures)
	}
	if m.ID.IsValid() {
		out += " id " + wire.VisibleString(m.ID.String(), wire.Pictures)
	}
	return out
}

// Release passes a held frame on: as it was (edited nil), or as edited
// (one frame; a line end is added when it has none). A client's frame is
// then sent, and logged as what crossed the wire; a server's is what the
// client side sees. It fails with ErrNotHeld, with *ExitedError (the frame
// stays held) for a client's frame when the server has exited, and when
// edited is not one frame.
func (s *Session) Release(hold uint64, edited []byte) error {
	var ef *wire.Frame
	if edited != nil {
		if len(edited) == 0 || edited[len(edited)-1] != '\n' {
			edited = append(slices.Clip(edited), '\n')
		}
		fs := wire.FramesOf(edited, wire.Options{MaxFrame: s.cfg.MaxFrame})
		if len(fs) != 1 {
			return fmt.Errorf("an edit of a held frame must be one frame; this is %d", len(fs))
		}
		ef = fs[0]
	}
	s.icept.mu.Lock()
	h := s.heldLocked(hold)
	if h == nil {
		s.icept.mu.Unlock()
		return fmt.Errorf("release #%d: %w", hold, ErrNotHeld)
	}
	p := s.current()
	if h.Dir == wire.ClientToServer && !isOpen(p.exited) {
		s.icept.mu.Unlock()
		return p.exitedError()
	}
	action, why := eventlog.InterceptReleased, "as it was"
	if ef != nil {
		action, why = eventlog.InterceptEdited, "as edited: "+describe(ef)
	}
	after := s.endHoldLocked(h, action, ef, why)
	s.icept.mu.Unlock()
	after()
	if h.Dir == wire.ServerToClient {
		h.verdict <- verdict{frame: ef}
		return nil
	}
	out := h.Frame.Raw()
	if ef != nil {
		out = edited
	}
	// Written with the lock let go: a tap's write may wait on a server
	// that waits on its stdout, whose reader asks for the interceptor.
	return s.toServer(p, out)
}

// toServer writes b, whole frames, to the server's stdin as linesman's:
// sent and logged (the inspector), or passed on as the host's bytes are
// (a tap: judged behind the wire).
func (s *Session) toServer(p *proc, b []byte) error {
	if p.scribe != nil {
		return s.inletPass(p, b)
	}
	_, err := p.send(b, false)
	return err
}

// Drop drops a held frame: it never reaches the other side. A dropped
// request is answered with a JSON-RPC error by linesman: the server's on
// the wire, the client's in the log (it never reached the server).
func (s *Session) Drop(hold uint64) error {
	s.icept.mu.Lock()
	h := s.heldLocked(hold)
	if h == nil {
		s.icept.mu.Unlock()
		return fmt.Errorf("drop #%d: %w", hold, ErrNotHeld)
	}
	after := s.endHoldLocked(h, eventlog.InterceptDropped, nil, "")
	s.icept.mu.Unlock()
	after()
	if h.Dir == wire.ServerToClient {
		h.verdict <- verdict{drop: true}
	}
	return nil
}

func (s *Session) heldLocked(hold uint64) *heldFrame {
	for _, h := range s.icept.held {
		if h.Hold == hold {
			return h
		}
	}
	return nil
}

// endHold ends a hold that is still held, reporting whether it was.
func (s *Session) endHold(hold uint64, action eventlog.InterceptAction, ef *wire.Frame, why string) bool {
	s.icept.mu.Lock()
	h := s.heldLocked(hold)
	if h == nil {
		s.icept.mu.Unlock()
		return false
	}
	after := s.endHoldLocked(h, action, ef, why)
	s.icept.mu.Unlock()
	after()
	return true
}

// endHoldLocked forgets h and logs its end. A dropped request is
// answered by after, which the caller runs once it let go of the lock.
func (s *Session) endHoldLocked(h *heldFrame, action eventlog.InterceptAction, ef *wire.Frame, why string) (after func()) {
	after = func() {}
	s.icept.held = slices.DeleteFunc(s.icept.held, func(x *heldFrame) bool { return x == h })
	ie := &eventlog.InterceptEvent{Action: action, Hold: h.Hold, Dir: h.Dir, FrameSeq: h.Seq}
	ev := eventlog.Event{Type: eventlog.EventIntercept, Intercept: ie}
	if ef != nil {
		ev.Dir, ev.Frame = h.Dir, ef
	}
	ev.Note = fmt.Sprintf("%s #%d (%s)", action, h.Hold, describe(h.Frame))
	if why != "" {
		ev.Note += ": " + why
	}
	m := &h.Frame.Msg
	if action != eventlog.InterceptDropped || m.Kind != wire.KindRequest {
		s.logFact(ev)
		return after
	}
	answer, _ := wire.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": idValue(m.ID),
		"error": map[string]any{"code": eventlog.CodeInterceptDropped, "message": "dropped by linesman (intercept)"},
	})
	p := s.current()
	if h.Dir == wire.ClientToServer {
		ie.Answer = string(bytes.TrimSuffix(answer, []byte("\n")))
		ev.Note += fmt.Sprintf(": it never reached the server; linesman answered it with JSON-RPC error %d", eventlog.CodeInterceptDropped)
		s.logFact(ev)
		if p.scribe != nil { // a tap's host waits for the answer
			return func() { s.toHost(answer) }
		}
		return after
	}
	ev.Note += fmt.Sprintf(": linesman answers the server's request with JSON-RPC error %d (the next frame; linesman's, not the client's)", eventlog.CodeInterceptDropped)
	s.logFact(ev)
	return func() {
		if err := s.toServer(p, answer); err != nil {
			s.note(fmt.Sprintf("could not answer the dropped request #%d: %v", h.Hold, err))
		}
	}
}
