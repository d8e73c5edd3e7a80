package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// ErrHandshake is wrapped by Handshake's errors.
// Its text is what a user reads in a report ("handshake failed: initialize:
// no answer to id 2 within 3s"), so it carries no package prefix.
var ErrHandshake = errors.New("handshake failed")

// trackerOptions are the tracker settings the Config asks for.
func (c Config) trackerOptions() eventlog.TrackerOptions {
	return eventlog.TrackerOptions{Timeout: c.Timeout}
}

// requestTimeout bounds the handshake's own waits, as the tracker bounds
// every request.
func (s *Session) requestTimeout() time.Duration {
	if s.cfg.Timeout > 0 {
		return s.cfg.Timeout
	}
	return eventlog.DefaultTimeout
}

func (s *Session) probeSilence() time.Duration {
	if s.cfg.ProbeSilence > 0 {
		return s.cfg.ProbeSilence
	}
	return ProbeSilence
}

func (s *Session) probeTimeout() time.Duration {
	if s.cfg.ProbeTimeout > 0 {
		return s.cfg.ProbeTimeout
	}
	return DefaultProbeTimeout
}

// Handshake opens the conversation as Config.Era says:
//
//   - EraUnknown (--era auto): the spec's probe. server/discover goes first;
//     a discover result offering a 2026-07-28 or later version means modern;
//     a -32022 error (the modern "unsupported protocol version") means modern
//     with a version it lists; any other error, a result offering only older
//     versions (or none), or no answer — within [ProbeSilence] of the
//     server reading the probe, or within ProbeTimeout — means legacy, and
//     the legacy handshake follows (the unanswered probe is cancelled, and
//     the fold told it was abandoned: a late answer is no finding). The
//     probe waits for the server, not a clock: it ends when the server
//     answers, exits or closes its stdout, and ProbeTimeout (default
//     [DefaultProbeTimeout]) bounds only a server that never answers.
//   - EraLegacy: initialize, then notifications/initialized; no probe.
//   - EraModern: no probe; server/discover is still asked, to learn the
//     server's identity and capabilities.
//
// Each wait is bounded by Config.Timeout (the probe's by ProbeTimeout), so
// a server that never answers fails the handshake instead of hanging it.
// A note in the log says which rule decided. With Config.NoHandshake it only
// pins Config.Era (if any) and leaves the handshake to the user.
func (s *Session) Handshake(ctx context.Context) error {
	if s.cfg.NoHandshake {
		const off = "automatic handshake off: the conversation is yours to open (initialize, or server/discover)"
		if s.cfg.Era != eventlog.EraUnknown {
			s.decide(s.cfg.Era, defaultVersion(s.cfg.Era), off)
		} else {
			s.note(off)
		}
		return nil
	}
	switch s.cfg.Era {
	case eventlog.EraLegacy:
		return s.legacyHandshake(ctx, "era legacy, as asked (--era legacy): no probe; initialize follows")
	case eventlog.EraModern:
		s.decide(eventlog.EraModern, eventlog.ModernProtocolVersion, "era modern, as asked (--era modern): no probe and no initialize; server/discover asks the server who it is")
		cctx, cancel := context.WithTimeout(ctx, s.requestTimeout())
		f, err := s.Call(cctx, "server/discover", nil)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: server/discover: %w", ErrHandshake, err)
		}
		if f.Msg.Kind == wire.KindError {
			return s.modernRefused(f)
		}
		return nil
	}
	return s.probe(ctx)
}

// modernRefused judges an error answer to server/discover under --era
// modern. An error the probe would read as modern (-32022 listing a modern
// version, or none) leaves the era as asked, with a note. Any other error
// says the server does not speak the era asked for: an era-not-spoken
// finding names what it does speak, as its error tells, and the handshake
// fails, so that check lists nothing it cannot judge and exits 1 instead
// of passing a conversation that never happened.
func (s *Session) modernRefused(f *wire.Frame) error {
	era, _, rule := eventlog.DecideEra(f)
	if era == eventlog.EraModern {
		s.note(fmt.Sprintf("server/discover failed (%d %s); staying in the modern era as asked", f.Msg.ErrorCode(), f.Msg.ErrorMessage()))
		return nil
	}
	msg := fmt.Sprintf("--era modern asked for protocol %s, but the server does not speak it: %s; "+
		"it speaks the legacy era (initialize, %s and earlier): run with --era legacy, or --era auto to probe",
		eventlog.ModernProtocolVersion, rule, eventlog.LegacyProtocolVersion)
	s.logFinding("era-not-spoken", msg)
	s.decide(eventlog.EraModern, "", "") // no version was agreed: do not claim the one asked for
	return fmt.Errorf("%w: the server does not speak the modern era (%s)", ErrHandshake, rule)
}

func defaultVersion(e eventlog.Era) string {
	if e == eventlog.EraModern {
		return eventlog.ModernProtocolVersion
	}
	return eventlog.LegacyProtocolVersion
}

// probe runs the era probe and, when it says legacy, the legacy handshake.
func (s *Session) probe(ctx context.Context) error {
	// The probe is a modern request: it carries the modern _meta.
	params, err := s.withMeta(nil, eventlog.ModernProtocolVersion)
	if err != nil {
		return err
	}
	// The probe waits for the server: its answer, its exit or the end of
	// its stdout end the wait; the bound is for a server that reads the
	// probe and never answers it, and is long enough for one still
	// starting on a loaded machine.
	tctx, cancel := context.WithTimeout(ctx, s.probeTimeout())
	pctx, silent := context.WithCancelCause(tctx)
	stop := func() {}
	if s.probeSilence() < s.probeTimeout() {
		// A probe timeout at or under the silence bound is the one bound:
		// two clocks for one wait would race to say which gave up.
		stop = s.current().cancelWhenSilent(pctx, silent, s.probeSilence())
	}
	s.probing.Store(true)
	defer s.probing.Store(false)
	f, err := s.call(pctx, "server/discover", params, false)
	stop()
	gaveUp := errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(pctx), errProbeSilent)
	silent(nil)
	cancel()
	var we *waitError
	switch {
	case err == nil:
	case errors.As(err, &we) && gaveUp && ctx.Err() == nil:
		answer, answered := s.abandonProbe(we.id, errors.Is(context.Cause(pctx), errProbeSilent))
		s.probing.Store(false)
		if !answered {
			return s.initialize(ctx)
		}
		f = answer
	default:
		return fmt.Errorf("%w: server/discover: %w", ErrHandshake, err)
	}

	s.probing.Store(false)
	era, version, rule := eventlog.DecideEra(f)
	if era == eventlog.EraModern {
		s.decide(eventlog.EraModern, version, fmt.Sprintf("era modern (protocol %s): %s", version, rule))
		if f.Msg.Kind == wire.KindError {
			// Ask again in the version it speaks, to learn who it is (the
			// projection reads the answer).
			pctx, cancel := context.WithTimeout(ctx, s.probeTimeout())
			_, _ = s.Call(pctx, "server/discover", nil)
			cancel()
		}
		return nil
	}
	return s.legacyHandshake(ctx, fmt.Sprintf("era legacy: %s; initialize follows", rule))
}

// abandonProbe decides the legacy era when the probe's bound passed
// unanswered, saying in the decision that linesman gave up on its own
// request (so that the fold judges no later answer to it, nor a reuse of its
// id), and only then cancels the probe. The log's order says whether it
// passed unanswered: an answer logged before the decision (a linesman the
// machine did not run across the bound wakes with the answer read and the
// bound passed, and its goroutines in either order) is the probe's answer,
// returned with answered true, and nothing is cancelled: the era is the
// one it tells, as on an idle machine.
func (s *Session) abandonProbe(id wire.ID, silent bool) (answer *wire.Frame, answered bool) {
	waited := fmt.Sprintf("no answer to server/discover within %s (--probe-timeout)", s.probeTimeout())
	if silent {
		waited = fmt.Sprintf("the server read server/discover and answered nothing for %s", s.probeSilence())
	}
	why := "era legacy: " + waited + "; linesman stopped waiting and cancels its probe, and a later answer to it is no finding; initialize follows"
	decided := s.logFact(eventlog.Event{Type: eventlog.EventEra, Note: why, Era: &eventlog.EraDecision{
		Era: eventlog.EraLegacy, Version: eventlog.LegacyProtocolVersion, ProbeAbandoned: true,
	}})
	if r, ok := s.tracker.Lookup(wire.ClientToServer, id); ok && !r.Abandoned && r.ResponseSeq != 0 && r.ResponseSeq < decided {
		if ev, ok := s.log.Get(r.ResponseSeq); ok && ev.Frame != nil {
			s.note(fmt.Sprintf("the answer to server/discover (#%d) was logged before the probe gave up: the era is the one it tells", r.ResponseSeq))
			return ev.Frame, true
		}
	}
	_ = s.Cancel(id)
	return nil, false
}

// legacyHandshake logs the decision for the legacy era (why, in words) and
// runs the legacy handshake ([Session.initialize]).
func (s *Session) legacyHandshake(ctx context.Context, why string) error {
	s.decide(eventlog.EraLegacy, eventlog.LegacyProtocolVersion, why)
	return s.initialize(ctx)
}

// initialize sends initialize, waits for its result, and sends
// notifications/initialized.
func (s *Session) initialize(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, s.requestTimeout())
	defer cancel()
	f, err := s.Call(cctx, "initialize", map[string]any{
		"protocolVersion": eventlog.LegacyProtocolVersion,
		"capabilities":    s.clientCapabilities(),
		"clientInfo":      s.clientInfo(),
	})
	if err != nil {
		s.decide(eventlog.EraLegacy, "", "") // no version was agreed: do not claim the one asked for
		return fmt.Errorf("%w: initialize: %w", ErrHandshake, err)
	}
	if f.Msg.Kind == wire.KindError {
		s.decide(eventlog.EraLegacy, "", "")
		return fmt.Errorf("%w: initialize answered error %d (%s)", ErrHandshake, f.Msg.ErrorCode(), f.Msg.ErrorMessage())
	}
	line, err := wire.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err != nil {
		return err
	}
	if err := s.Send(line); err != nil {
		return fmt.Errorf("%w: notifications/initialized: %w", ErrHandshake, err)
	}
	return nil
}

// errProbeSilent is the cause of a probe given up because the server read
// it and stayed silent.
var errProbeSilent = errors.New("the server read server/discover and answered nothing")

// cancelWhenSilent cancels ctx (with cancel) once the server has read
// everything written to its stdin and then written nothing to stdout for
// silence: the probe's bound that counts the server's time, not the
// machine's (before the read, the server may still be starting). It returns
// a function that stops the watch. On systems where the pipe's fill cannot
// be read, the read counts from the write.
func (p *proc) cancelWhenSilent(ctx context.Context, cancel context.CancelCauseFunc, silence time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		var readAt time.Time
		var seen int64
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-tick.C:
			}
			p.mu.Lock()
			frames := p.s2cFrames
			p.mu.Unlock()
			switch {
			case !p.stdinDrained() || frames != seen:
				readAt, seen = time.Time{}, frames
			case readAt.IsZero():
				readAt = time.Now()
			case time.Since(readAt) >= silence:
				cancel(errProbeSilent)
				return
			}
		}
	}()
	return func() { close(done) }
}

// stdinDrained reports whether the server has read everything written to
// its stdin: nothing queued, nothing left in the pipe.
func (p *proc) stdinDrained() bool {
	pending, _ := p.w.counts()
	return pending == 0 && pipeBuffered(p.w.f) == 0
}
