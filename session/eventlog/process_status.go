package eventlog

import (
	"slices"
	"strings"
	"time"
)

// ProcessStatus is the projection's word on the server process: the state
// of the last process started, how it ended, and how many were started
// before it. It is folded from the log's process events (and restarts) by
// [Tracker.Apply]; the UI's process pane, the report's process block and
// the exit rules read it from [Tracker.Process] and keep no fold of their own.
//
// The one rule for the order of events: once a process has exited, a
// shutdown step logged after the exit (the signal and its log entry race
// the exit) changes nothing — the exit stands; a process starting after an
// exit is a new process (Restarts counts it).
type ProcessStatus struct {
	// Seen: a process event was folded (false for a log with none, such as
	// another tool's log).
	Seen  bool
	State ProcessState
	// Step is, while exiting, the step under way; once exited, the step
	// that ended it (StepNone: it exited on its own).
	Step ShutdownStep
	Pid  int
	// StartedAt and ExitedAt are log times (ExitedAt 0 while it runs).
	StartedAt, ExitedAt time.Duration
	// ExitCode is -1 when a signal ended the process (Signal names it).
	ExitCode     int
	Signal       string
	ShutdownTook time.Duration
	// AfterEOF: it exited after its stdin was closed; ByHost: the host
	// (a tap's) closed it, or took the step that ended it.
	AfterEOF, ByHost bool
	// Detail is the first words the session logged about the process
	// ("started /usr/bin/python3 server.py").
	Detail string
	// Restarts counts the processes started before this one.
	Restarts int
	// Steps are the shutdown steps taken, in order, with their log times.
	Steps []StepAt
}

// StepAt is a shutdown step and when it was taken.
type StepAt struct {
	Step ShutdownStep
	At   time.Duration
}

// Exited reports whether the last process has exited.
func (p *ProcessStatus) Exited() bool { return p.Seen && p.State == StateExited }

// Fold applies one process event logged at at. The projection calls it for
// every process event it is given; a reader with no projection (a report of
// a log with no tracker) calls it itself, so that the rule is one.
func (p *ProcessStatus) Fold(ev *ProcessEvent, at time.Duration) {
	if p.Exited() {
		if ev.State == StateExiting || ev.State == StateExited {
			return // the exit stands
		}
		*p = ProcessStatus{Restarts: p.Restarts + 1}
	}
	switch ev.State {
	case StateStarting, StateRunning:
		if !p.Seen || ev.State == StateStarting {
			p.StartedAt = at
		}
		if p.Detail == "" {
			p.Detail = ev.Detail
		}
	case StateExiting:
		p.Steps = append(p.Steps, StepAt{Step: ev.Step, At: at})
	case StateExited:
		p.ExitedAt = at
		p.ExitCode, p.Signal, p.ShutdownTook = ev.ExitCode, ev.Signal, ev.ShutdownTook
		p.AfterEOF, p.ByHost = ev.AfterEOF, ev.ByHost
	}
	p.Seen = true
	p.State, p.Step = ev.State, ev.Step
	if ev.Pid != 0 {
		p.Pid = ev.Pid
	}
}

// processEvent folds a process event into the projection and returns what
// the host rules settle about it (a shutdown step the host took out of
// order).
func (t *Tracker) processEvent(ev *ProcessEvent, at time.Duration) []LoggedFinding {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.hostShutdown(ev, at)
	t.proc.Fold(ev, at)
	return out
}

// Process returns the process status as the fold stands (a copy).
func (t *Tracker) Process() ProcessStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.proc
	p.Steps = slices.Clone(p.Steps)
	return p
}

// HowEnded says who ended a process that exited, in the words the text
// report, the process pane and the transcript use: "on its own" (no step
// was taken and its stdin was open), "after its stdin was closed" (the end
// of its input, the spec's shutdown; "(by the host)" when a tap's host
// closed it), "ended by the host's SIGTERM" (a tap's host sent it) or
// "after SIGTERM" (linesman's shutdown ladder).
func HowEnded(step ShutdownStep, afterEOF, byHost bool) string {
	switch {
	case step == StepNone && !afterEOF:
		return "on its own"
	case step == StepNone || step == StepStdinClose:
		if byHost {
			return "after its stdin was closed (by the host)"
		}
		return "after its stdin was closed"
	case byHost:
		return "ended by the host's " + strings.ToUpper(step.String())
	default:
		return "after " + strings.ToUpper(step.String())
	}
}

// ParseShutdownStep is the inverse of [ShutdownStep.String] ("exit",
// "stdin-close", "sigterm", "sigkill"); anything else is StepNone.
func ParseShutdownStep(s string) ShutdownStep {
	for _, st := range []ShutdownStep{StepStdinClose, StepSIGTERM, StepSIGKILL} {
		if st.String() == s {
			return st
		}
	}
	return StepNone
}
