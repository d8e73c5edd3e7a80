package session

import (
	"io"

	"linesman/session/eventlog"
	"linesman/session/fault"
)

// InjectFault arms one fault (a --fault spec, [fault.Parse]) for the
// session's own conversation, where linesman is the host (the inspector's
// ! key): it acts on the answer to the next request sent that the spec
// matches (the Nth with #N), or as that request passes for a kill or a
// close of stdout, once; a fault armed later replaces one not injected
// yet. It is the tap's injector on the session's stdout path: the server's
// stdout is read, framed and judged as it came, and passed on to the
// injector as well, so the log keeps what the server wrote and the fault
// event ([eventlog.EventFault], logged before the answer it concerns) says
// what linesman did to it; the fold charges the server for none of it
// (after a kill or a close, the end is linesman's). With no fault armed,
// the path costs one atomic load a read.
//
// A session that only observes (Config.Observe, the tap) takes its faults
// on the host's side of the wire instead (tap --fault), not here.
func (s *Session) InjectFault(spec string) error {
	sp, err := fault.Parse(spec)
	if err != nil {
		return err
	}
	sp.Nth = max(sp.Nth, 1)
	// What a host would have been given goes nowhere: linesman reads the
	// server's bytes as they came.
	inj := fault.New([]fault.Spec{sp}, io.Discard)
	t := s.FaultTarget()
	record := t.Record
	t.Record = func(ev eventlog.Event) {
		record(ev)
		s.injector.CompareAndSwap(inj, nil) // once injected, out of the way
	}
	inj.SetTarget(t)
	s.injector.Store(inj)
	return nil
}

// FaultTarget is what an injector of faults into this session's
// conversation logs to (the session's log, folded) and acts on (the
// server's process group, linesman's end of its stdout).
func (s *Session) FaultTarget() fault.Target {
	return fault.Target{
		Record:      func(ev eventlog.Event) { s.logFact(ev) },
		Signal:      s.InjectSignal,
		CloseStdout: s.CloseStdout,
	}
}

// injectHost shows the armed injector, if any, the bytes linesman is about
// to send the server: it learns what each answer will answer, and a kill
// or a close acts as its request passes.
func (s *Session) injectHost(raw []byte) {
	if inj := s.injector.Load(); inj != nil {
		inj.Host(raw)
	}
}
