package session

import (
	"errors"
	"syscall"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Inlet passes a host's bytes to the server's stdin exactly as they come
// (linesman tap). It is the host-driven counterpart of [Session.Send],
// which takes whole frames.
//
// Bytes are written at once, a partial line included, so that the server
// sees them as soon as a direct pipe would have delivered them. They are
// judged behind the wire: each write is handed to the session's scribe
// queue first (which fixes its place in the log's order), then written; a
// scribe goroutine frames and logs them (see inlet_scribe.go). A line split
// across writes is framed whole, and so is a value spread over several
// lines.
//
// An Inlet is not safe for concurrent use: one goroutine pumps the host's
// stdin into it. It needs a session started with Config.Observe.
type Inlet struct {
	s     *Session
	split lineSplit // Config.Intercept: the host's partial line
}

// Inlet returns an Inlet for the session's current process.
func (s *Session) Inlet() *Inlet { return &Inlet{s: s} }

// inletRetry is how long Write waits before trying again when the stdin
// queue is full: a host that writes faster than the server reads is slowed
// down, never dropped.
const inletRetry = time.Millisecond

// ErrNotObserving is returned by Inlet's methods on a session started
// without Config.Observe.
var ErrNotObserving = errors.New("session: an Inlet needs Config.Observe")

// Write passes b to the server's stdin. It blocks while the server does
// not read (as a direct pipe would) and fails once the server has exited
// or its stdin is closed; b is then not delivered.
func (in *Inlet) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p := in.s.current()
	if p.scribe == nil {
		return 0, ErrNotObserving
	}
	if !isOpen(p.exited) {
		return 0, p.exitedError()
	}
	var err error
	if in.s.cfg.Intercept {
		err = in.writeLines(p, b)
	} else {
		err = in.s.inletPass(p, b)
	}
	if err != nil {
		return 0, err
	}
	return len(b), nil
}

// Close passes the host's end of file on: the server's stdin is closed
// once everything queued has been written, and nothing else — no SIGTERM
// follows, the host decides when to signal. The scribe logs a last line
// that had no terminator, and tells the tracker that stdin was closed in
// the wire's order.
func (in *Inlet) Close() error {
	p := in.s.current()
	if p.scribe == nil {
		return ErrNotObserving
	}
	if rest := in.split.rest(); len(rest) > 0 && isOpen(p.exited) {
		in.s.inletPass(p, rest) // a last line without its end
	}
	p.scribe.end(wire.ClientToServer, true)
	p.mu.Lock()
	p.hostEnded, p.hostClosedStdin = true, true
	p.mu.Unlock()
	p.w.closeWhenDrained()
	return nil
}

// scribeStdin judges what the host wrote through the Inlet, behind the
// wire, until the host's end of file or the process's end.
func (p *proc) scribeStdin() {
	defer close(p.scribeStdinDone)
	p.scribeStream(wire.ClientToServer, func(f *wire.Frame, params *wire.ParamsIndex) {
		p.s.logFrameIndexed(wire.ClientToServer, f, params)
	})
	if p.scribe.endedByHost(wire.ClientToServer) {
		p.scribe.waitTurn(wire.ClientToServer)
		p.s.logFact(eventlog.Event{Type: eventlog.EventStdinClosed, Stdin: &eventlog.StdinEvent{ByHost: true}, Note: "the host closed the server's stdin"})
	}
}

// stdoutStarved reports whether the stdout framer has framed everything
// read from the pipe and waits for more.
func (p *proc) stdoutStarved() bool {
	if p.scribe != nil {
		return p.scribe.idle(wire.ServerToClient)
	}
	return p.stdoutWaiting.Load()
}

// Signal sends sig to the server's process group (a tap passes on the
// signals its host sends it). It does nothing once the process has exited.
// stdinClosed says the host had closed its end of the tap's stdin when the
// signal came, whether or not the tap has read to that end yet: a host that
// closes stdin and signals in the same instant closed it first, and the
// race between the thread reading stdin and the signal must not make it a
// host that signalled with stdin open (host-signal-before-close).
func (s *Session) Signal(sig syscall.Signal, stdinClosed bool) {
	if stdinClosed {
		p := s.current()
		p.mu.Lock()
		p.hostClosedStdin = true
		p.mu.Unlock()
	}
	s.signal(sig, true, "the host sent "+signalName(sig)+"; passed on to the process group")
}

// InjectSignal sends sig to the server's process group as an injected
// fault (tap --fault kill:...): logged as a step of linesman's, so that
// the exit it leads to is not read as the server's own. The caller logs
// the fault itself first.
func (s *Session) InjectSignal(sig syscall.Signal) {
	s.signal(sig, false, "injected: linesman sent "+signalName(sig)+" to the process group")
}

// CloseStdout closes linesman's end of the server's stdout as an injected
// fault (tap --fault close-stdout): the server's next write fails, and
// the end of its stdout is not charged to it (no stdout-closed).
func (s *Session) CloseStdout() {
	p := s.current()
	p.mu.Lock()
	p.stdoutCut = true
	p.mu.Unlock()
	p.pipes.stdoutR.Close()
}

func (s *Session) signal(sig syscall.Signal, byHost bool, detail string) {
	p := s.current()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == eventlog.StateExited {
		return
	}
	// The host's signal is a step of the server's end, taken by the host:
	// logged, so that the exit it leads to is not read as the server's own.
	step := eventlog.StepSIGTERM
	if sig == syscall.SIGKILL {
		step = eventlog.StepSIGKILL
	}
	if p.step == eventlog.StepNone || step > p.step {
		p.step = step
	}
	if p.shutdownAt.IsZero() {
		p.shutdownAt = time.Now()
	}
	p.hostEnded = p.hostEnded || byHost
	p.s.logFact(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{
		State: eventlog.StateExiting, Step: step, Pid: p.pid, Signal: signalName(sig), ByHost: byHost,
		AfterEOF: byHost && p.hostClosedStdin, Detail: detail,
	}})
	// Under p.mu, as in kill: the server is not reaped before we let go,
	// so the group id is still the server's. A stopped process holds a
	// signal pending until it is continued: SIGCONT follows, as a shell
	// sends it to a stopped job it kills.
	signalGroup(p.pid, sig)
	if sig != syscall.SIGKILL && sig != syscall.SIGCONT {
		signalGroup(p.pid, syscall.SIGCONT)
	}
}
