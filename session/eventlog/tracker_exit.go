package eventlog

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"linesman/wire"
)

// exitBurst is how long before Exited is told an answer may have come out
// and still count as part of the burst of output a process writes as it
// exits (Exited is told once the pipes are drained, just after the exit).
const exitBurst = 500 * time.Millisecond

// checkUnflushed raises unflushed-output when an answer comes out only once
// stdin was closed or the process exited, for a request that had been
// waiting a while before that, with the server silent meanwhile: the
// signature of a block-buffered stdout that is flushed only at exit.
func (t *Tracker) checkUnflushed(e *entry, f *wire.Frame, at time.Duration) {
	if t.unflushedRaised {
		return
	}
	flush, what, out := t.stdinClosedAt, "stdin was closed", t.outAtClose
	if flush == 0 || (t.exitedAt != 0 && t.exitedAt < flush) {
		flush, what, out = t.exitedAt, "the process exited", t.outAtExit
	}
	if flush == 0 || at < flush {
		return
	}
	waited := flush - e.SentAt
	if waited < t.opts.unflushedAfter() {
		return
	}
	if out > e.SentAt {
		// The server wrote to stdout meanwhile, before the flush (a line
		// that is not JSON-RPC counts: it reached the pipe all the same),
		// so its stdout does get flushed: this answer is merely slow. What
		// it wrote after the flush shows nothing (a buffer emptied at
		// exit comes out whole).
		return
	}
	t.unflushedRaised = true
	addFinding(f, wire.NewFinding("unflushed-output", fmt.Sprintf(
		"the answer to request #%d (%s, id %s) came out only after %s, %s after it was sent: stdout looks block-buffered",
		e.Seq, e.Method, idText(e.ID), what, waited.Round(time.Millisecond))))
}

// StdinClosed tells the tracker the client closed the server's stdin.
func (t *Tracker) stdinClosed(at time.Duration, byHost bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stdinClosedAt == 0 {
		t.stdinClosedAt = max(at, 1)
		t.stdinByHost = byHost
		t.outAtClose = t.outAt
	}
}

// Exited tells the tracker the process exited at the given time; requests
// still in flight become ReqLost, and the findings to log are returned
// (exited-during-request, naming the client's requests left unanswered; a
// note only when the client had closed stdin first).
// Answers still drained from the pipe afterwards revive them.
func (t *Tracker) exited(at time.Duration) (out []LoggedFinding) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exitedAt == 0 {
		t.exitedAt = max(at, 1)
		t.outAtExit = t.outAt
	}
	if lf, ok := t.exitBurstLocked(at); ok {
		out = append(out, lf)
	}
	atStart := t.exitAtStartLocked()
	defer func() {
		if atStart {
			out = append(out, LoggedFinding{Finding: wire.NewFinding("exit-at-start",
				fmt.Sprintf("the server %s before writing anything to stdout", exitHow(t.proc.ExitCode, t.proc.Signal)))})
		}
	}()
	lost, n := t.loseAllLocked(at)
	if n == 0 || atStart {
		// One verdict per fault: a server that exited on its own without
		// writing anything is exit-at-start, and that alone; whether a
		// request had reached its pipe before it died is timing.
		return out
	}
	names := make([]string, len(lost))
	for i, e := range lost {
		names[i] = fmt.Sprintf("#%d %s (id %s)", e.Seq, e.Method, idText(e.ID))
	}
	list := strings.Join(names, ", ")
	if n > len(lost) {
		list += fmt.Sprintf(" and %d more", n-len(lost))
	}
	msg := fmt.Sprintf("the process exited with %d request(s) unanswered: %s", n, list)
	fd := wire.NewFinding("exited-during-request", msg)
	if t.injectedEnd {
		// Linesman killed the server or closed its stdout on purpose.
		fd.Message += " after linesman injected a fault that ends it"
		fd.Severity = wire.SeverityNote
	} else if t.stdinClosedAt != 0 && t.stdinClosedAt <= at {
		// The client closed stdin with requests in flight: a server that
		// stops on EOF is right to, so this is only worth knowing.
		fd.Message += " after the client closed stdin with them in flight"
		fd.Severity = wire.SeverityNote
	}
	return append(out, LoggedFinding{Finding: fd, FrameSeq: lost[0].Seq, Dir: wire.ClientToServer})
}

// maxLostNamed bounds the requests exited-during-request names (a million
// requests in flight made a message of 30 MB); it counts them all.
const maxLostNamed = 20

// loseAllLocked ends every request in flight, both ways, as lost, and
// returns the client's first ones (at most maxLostNamed, in Seq order)
// and how many of the client's it lost.
func (t *Tracker) loseAllLocked(at time.Duration) (first []Request, n int) {
	keep := func(r Request) {
		n++
		i, _ := slices.BinarySearchFunc(first, r.Seq, func(q Request, seq uint64) int { return cmpSeq(q.Seq, seq) })
		if i < maxLostNamed {
			first = slices.Insert(first, i, r)
			first = first[:min(len(first), maxLostNamed)]
		}
	}
	for d, sp := range t.spaces {
		if sp == nil {
			continue
		}
		for _, es := range sp.inflight {
			for _, e := range es {
				if wire.Dir(d) == wire.ClientToServer {
					keep(e.Request)
				}
			}
			for _, e := range slices.Clone(es) {
				t.end(sp, e, ReqLost, at)
			}
		}
	}
	var e entry
	t.lostAll(at, func(r *waitRec) {
		if r.dir == wire.ClientToServer {
			t.waits.fill(&e, r)
			keep(e.Request)
		}
	})
	return first, n
}

// exitAtStartLocked reports whether the process exited on its own (no
// shutdown step before the exit, and its stdin still open: a server that
// exits at the end of its input does what the spec asks) without writing
// one frame to stdout.
func (t *Tracker) exitAtStartLocked() bool {
	p := &t.proc
	return p.Exited() && p.Step == StepNone && !p.AfterEOF && t.s2cFrames == 0 && !t.injectedEnd
}

// injected folds a fault linesman injected: a kill or a closed stdout
// makes the end that follows linesman's, not the server's.
func (t *Tracker) injected(f *FaultEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.faults++
	if f.Kind == FaultKill || f.Kind == FaultCloseStdout {
		t.injectedEnd = true
	}
}

// Faults returns how many faults linesman injected into the conversation.
func (t *Tracker) Faults() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.faults
}

// exitBurstLocked looks back, when a process that exited on its own (stdin
// never closed) is reported, for unflushed output: answers that came out in
// the last moments before the exit, to requests that had waited a while
// with the server silent meanwhile. The stdin-close case is judged as the
// answers arrive (checkUnflushed); this one can only be judged afterwards,
// so the finding points at the first answer of the burst.
func (t *Tracker) exitBurstLocked(at time.Duration) (LoggedFinding, bool) {
	if t.unflushedRaised || t.stdinClosedAt != 0 {
		// Stdin was closed: the exit followed from that, and answers
		// after the close were judged as they came.
		return LoggedFinding{}, false
	}
	var burst []*entry // client requests answered in the burst, by answer
	t.records(0, func(e *entry, compact bool) bool {
		if !compact && e.Dir == wire.ClientToServer && e.ResponseSeq != 0 && !e.Late && e.EndedAt >= at-exitBurst && e.EndedAt <= at {
			burst = append(burst, e)
		}
		return true
	})
	if len(burst) == 0 {
		return LoggedFinding{}, false
	}
	slices.SortFunc(burst, func(a, b *entry) int { return cmpSeq(a.ResponseSeq, b.ResponseSeq) })
	start, quiet := burst[0].EndedAt, burst[0].quietBefore
	if t.lastC2SAt > start {
		// The client wrote after the first answer came out, and the
		// process lived on to its exit: the answer was out before the
		// end, not flushed by it (a slow start followed by a crash on
		// the next request is no buffering).
		return LoggedFinding{}, false
	}
	for _, e := range burst {
		waited := start - e.SentAt
		if quiet > e.SentAt || waited < t.opts.unflushedAfter() {
			continue
		}
		t.unflushedRaised = true
		return LoggedFinding{
			Finding: wire.NewFinding("unflushed-output", fmt.Sprintf(
				"the answer to request #%d (%s, id %s) came out only as the process exited, %s after it was sent: stdout looks block-buffered",
				e.Seq, e.Method, idText(e.ID), waited.Round(time.Millisecond))),
			FrameSeq: e.ResponseSeq, Dir: wire.ServerToClient,
		}, true
	}
	return LoggedFinding{}, false
}

// Tick checks timeouts at the given time and returns the findings to log.
// Only the client's requests time out: the server's wait on the user.
func (t *Tracker) tick(at time.Duration) []LoggedFinding {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stdoutHeldLocked() {
		return nil // linesman holds the server's stdout: its clock is stopped
	}
	sp := t.spaces[wire.ClientToServer]
	var due []*entry
	for _, es := range sp.inflight {
		for _, e := range es {
			if e.Deadline != 0 && at >= e.Deadline {
				due = append(due, e)
			}
		}
	}
	slices.SortFunc(due, func(a, b *entry) int { return cmpSeq(a.Seq, b.Seq) })
	var compact []*waitRec
	t.waits.waitingIn(wire.ClientToServer, func(r *waitRec) {
		if r.due != 0 && at >= r.due {
			compact = append(compact, r)
		}
	})
	out := make([]LoggedFinding, 0, len(due)+len(compact))
	// Both are in Seq order: merge them, so the findings are.
	for len(due) > 0 || len(compact) > 0 {
		if len(compact) == 0 || (len(due) > 0 && due[0].Seq < compact[0].seq) {
			e := due[0]
			due = due[1:]
			t.end(sp, e, ReqTimedOut, at)
			e.TimedOut = true
			out = append(out, timeoutFinding(e, at))
			continue
		}
		r := compact[0]
		compact = compact[1:]
		var e entry
		t.waits.fill(&e, r)
		t.endInPlace(r, ReqTimedOut, at)
		out = append(out, timeoutFinding(&e, at))
	}
	return out
}

// timeoutFinding is the request-timeout of e, in flight, at the time at.
func timeoutFinding(e *entry, at time.Duration) LoggedFinding {
	msg := fmt.Sprintf("no answer to request #%d (%s, id %s) after %s",
		e.Seq, e.Method, idText(e.ID), (at - e.SentAt).Round(time.Millisecond))
	if e.HasProgress {
		msg += fmt.Sprintf(" (last progress %s ago)", (at - e.LastProgressAt).Round(time.Millisecond))
	}
	return LoggedFinding{Finding: wire.NewFinding("request-timeout", msg), FrameSeq: e.Seq, Dir: wire.ClientToServer}
}

// NextDeadline returns the earliest time a client request in flight would
// time out, so a caller can sleep until then; ok is false when none is in
// flight, and while a server frame is held (see intercept.go).
func (t *Tracker) NextDeadline() (at time.Duration, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stdoutHeldLocked() {
		return 0, false
	}
	for _, es := range t.spaces[wire.ClientToServer].inflight {
		for _, e := range es {
			if e.Deadline != 0 && (!ok || e.Deadline < at) {
				at, ok = e.Deadline, true
			}
		}
	}
	t.waits.waitingIn(wire.ClientToServer, func(r *waitRec) {
		if r.due != 0 && (!ok || r.due < at) {
			at, ok = r.due, true
		}
	})
	return at, ok
}

// exitHow says how a process ended, for a finding.
func exitHow(code int, sig string) string {
	if sig != "" {
		return "was killed by " + sig
	}
	return fmt.Sprintf("exited with code %d", code)
}
