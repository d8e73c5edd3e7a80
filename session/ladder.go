package session

import (
	"fmt"
	"syscall"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// The shutdown ladder of a server process: stdin closed, then SIGTERM, then
// SIGKILL, each after its wait, climbed by the supervisor goroutine.

// kill sends SIGKILL to the group now.
func (p *proc) kill() {
	p.mu.Lock()
	running := p.state != eventlog.StateExited
	if running && exitedNow(p.pid) {
		// It has exited already, though wait has not recorded it yet: the
		// exit came first, so no step of ours ended it. What is left of
		// the group is for the leftovers' release.
		running = false
		if p.shutdownAt.IsZero() {
			p.shutdownAt = time.Now()
		}
	}
	if running {
		p.state = eventlog.StateExiting
		p.step = eventlog.StepSIGKILL
		if p.shutdownAt.IsZero() {
			p.shutdownAt = time.Now()
		}
		p.logExitingLocked(eventlog.StepSIGKILL, "SIGKILL sent to the process group (kill)")
		// Under p.mu: the server is not reaped before we let go (see
		// waitExit), so the group id is still the server's.
		signalGroup(p.pid, syscall.SIGKILL)
	}
	p.mu.Unlock()
	if running {
		p.w.stop(false)
	}
	select {
	case p.killCh <- struct{}{}:
	default:
	}
}

// shutdown starts the ladder (once).
func (p *proc) shutdown() {
	p.shutOnce.Do(func() { close(p.shutdownCh) })
}

// logExitingLocked logs a shutdown step. Process events are logged under
// p.mu with the change they record, so the log never shows a step after the
// exit it led to.
func (p *proc) logExitingLocked(step eventlog.ShutdownStep, detail string) {
	p.s.logFact(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{
		State: eventlog.StateExiting, Step: step, Pid: p.pid, Detail: detail,
	}})
}

// shuttingDown reports whether a shutdown step was taken (Shutdown or Kill).
func (p *proc) shuttingDown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.shutdownAt.IsZero()
}

// supervise watches the process from start to exit — ticking, and
// climbing the shutdown ladder when asked — then drains what the process
// left behind, and finally stops the writer and reaps the group.
func (p *proc) supervise() {
	defer close(p.done)
	shutdownC := p.runUntilExit()
	p.drainAfterExit(shutdownC)
	p.w.stop(false)
	<-p.w.done
	if p.scribe != nil {
		p.scribe.end(wire.ClientToServer, false)
		<-p.scribeStdinDone
	}
	p.reapAndClear()
}

// runUntilExit ticks, and climbs the shutdown ladder rung by rung once a
// shutdown is asked for (stdin closed, then SIGTERM, then SIGKILL, each
// after its wait), until the process exits. It returns the shutdown channel
// still to listen to: nil once a shutdown was asked for.
func (p *proc) runUntilExit() (shutdownC <-chan struct{}) {
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()
	var rung rungTimer
	defer rung.stop()
	shutdownC = p.shutdownCh
	for {
		select {
		case <-p.exited:
			return shutdownC
		case <-tick.C:
			p.tick()
		case <-shutdownC:
			shutdownC = nil
			if p.beginShutdown() {
				rung.start(p.s.cfg.StdinCloseWait)
			}
		case <-rung.C:
			if d, ok := p.nextRung(); ok {
				rung.start(d)
			}
		case <-p.killCh:
			rung.stop() // SIGKILL was sent: only the exit is left to wait for
		}
	}
}

// rungTimer is the timer of the ladder's pending rung; C is nil when no
// rung is pending.
type rungTimer struct {
	t *time.Timer
	C <-chan time.Time
}

func (r *rungTimer) start(d time.Duration) {
	r.stop()
	r.t = time.NewTimer(d)
	r.C = r.t.C
}

func (r *rungTimer) stop() {
	if r.t != nil {
		r.t.Stop()
		r.t, r.C = nil, nil
	}
}

// beginShutdown takes the first rung: close stdin once what is queued has
// been written. It reports false when the process already exited.
func (p *proc) beginShutdown() bool {
	p.mu.Lock()
	if p.state == eventlog.StateExited || p.step != eventlog.StepNone {
		// Already exited, or Kill came first: nothing to climb.
		p.mu.Unlock()
		return false
	}
	if exitedNow(p.pid) {
		// Exited in fact, not yet recorded by wait (a headless step saw
		// the failed write first): the exit was the server's own doing,
		// whichever goroutine noticed first. A shutdown was asked for:
		// the leftovers of the group are released after the exit.
		p.shutdownAt = time.Now()
		p.mu.Unlock()
		return false
	}
	p.state = eventlog.StateExiting
	p.step = eventlog.StepStdinClose
	p.shutdownAt = time.Now()
	// Sends fail from the moment the log says stdin is closing.
	if blocked, _ := p.w.blocked(p.s.cfg.StdinBlockedAfter); blocked {
		// The server is not reading: what is queued would never drain.
		p.w.stop(true)
	} else {
		p.w.closeWhenDrained()
	}
	p.logExitingLocked(eventlog.StepStdinClose, "closing stdin, waiting for the server to exit")
	p.mu.Unlock()
	return true
}

// nextRung takes the next ladder step after a wait ran out, and returns the
// next wait.
func (p *proc) nextRung() (time.Duration, bool) {
	s := p.s
	p.mu.Lock()
	if p.state == eventlog.StateExited {
		p.mu.Unlock()
		return 0, false
	}
	switch p.step {
	case eventlog.StepStdinClose:
		p.step = eventlog.StepSIGTERM
		p.logExitingLocked(eventlog.StepSIGTERM, "SIGTERM sent to the process group")
		s.logFinding("ignored-stdin-eof", fmt.Sprintf("the server was %s %s after its stdin was closed; SIGTERM was needed", runState(p.pid), s.cfg.StdinCloseWait))
		signalGroup(p.pid, syscall.SIGTERM) // under p.mu, as in kill
		p.mu.Unlock()
		p.w.stop(true)
		return s.cfg.SIGTERMWait, true
	case eventlog.StepSIGTERM:
		p.step = eventlog.StepSIGKILL
		p.logExitingLocked(eventlog.StepSIGKILL, "SIGKILL sent to the process group")
		s.logFinding("needed-sigkill", fmt.Sprintf("the server was %s %s after SIGTERM; SIGKILL was needed", runState(p.pid), s.cfg.SIGTERMWait))
		signalGroup(p.pid, syscall.SIGKILL) // under p.mu, as in kill
		p.mu.Unlock()
		return 0, false
	default:
		p.mu.Unlock()
		return 0, false
	}
}

// markShutdown records a shutdown asked for after the exit (it only matters
// for the leftovers of the group).
func (p *proc) markShutdown() {
	p.mu.Lock()
	if p.shutdownAt.IsZero() {
		p.shutdownAt = time.Now()
	}
	p.mu.Unlock()
}
