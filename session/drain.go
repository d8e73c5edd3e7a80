package session

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// After the exit: what a process left in its pipes is drained, the exit is
// judged once what it wrote before exiting is logged, and what is left of
// its group is reaped.

// catchUpPoll is how often the end of a process whose stdout is held checks
// whether the framer has caught up with what the server wrote.
const catchUpPoll = 20 * time.Millisecond

// drainAfterExit waits, once the process has exited, for what it left in
// the pipes: the exit is judged once what was written before it is logged,
// the stderr tail settles, and pipes that a process outside the group still
// holds are given up on a wait after the shutdown (see [exitDrain]).
func (p *proc) drainAfterExit(shutdownC <-chan struct{}) {
	d := p.newExitDrain()
	defer d.stopTimers()
	if p.shuttingDown() {
		d.releaseLeftovers()
	}
	for d.stdoutC != nil || d.stderrC != nil {
		select {
		case <-d.stdoutC:
			d.stdoutC, d.progressC, d.catchUpC = nil, nil, nil
			d.reportExit()
		case <-d.progressC:
			d.caughtUp()
		case <-d.catchUpC:
			d.caughtUp()
		case <-d.stderrC:
			d.stderrC = nil
			d.settle()
		case <-shutdownC:
			shutdownC = nil
			p.markShutdown()
			d.releaseLeftovers()
		case <-p.killCh:
			p.markShutdown()
			d.releaseLeftovers()
		case <-d.heldC:
			d.decideHeld()
		case <-d.forceC:
			d.forceC = nil
			d.stopListening()
		}
	}
	d.settle()
	d.reportExit()
	if d.held != nil { // both pipes closed within the grace: released, no finding
		d.held.Stop()
	}
}

// exitDrain is the state of [proc.drainAfterExit].
type exitDrain struct {
	p                *proc
	stdoutC, stderrC <-chan struct{} // nil once that pipe reached EOF (or was given up)

	// Judge the exit once what was written before it is logged. Usually
	// that is at stdout's EOF; when another process holds stdout, EOF may be
	// far off, so it is when the frames logged cover the bytes read so far
	// plus those still in the pipe — or when all those bytes were read and
	// the framer waits for more (a partial line: it may never end).
	exitReported bool
	target       int64 // stdout bytes the log must cover
	progressC    <-chan struct{}
	catchUp      *time.Ticker
	catchUpC     <-chan time.Time

	settled bool // p.settled is closed

	// force gives up on pipes still held a wait after the shutdown.
	force  *time.Timer
	forceC <-chan time.Time

	// judge decides pipe-held-after-exit heldGrace after the exit, or at
	// the teardown if that comes first (nil once decided, or when no pipe
	// was held at the exit).
	held  *time.Timer
	heldC <-chan time.Time
}

// heldGrace is how long after the exit a pipe may stay open before it
// counts as held: the processes of a wrapper's tree (npm exec → sh → node)
// end a moment after the server itself, and that teardown is no fault.
const heldGrace = 500 * time.Millisecond

// decideHeld decides pipe-held-after-exit once, by what holds the pipes
// now: nothing if they were released (EOF came, or no writer is left).
func (d *exitDrain) decideHeld() {
	if d.held == nil {
		return
	}
	d.held.Stop()
	d.held, d.heldC = nil, nil
	d.p.reportHeld()
}

// newExitDrain finds which pipes another process still holds, reports
// them, and sets up the wait for the exit's judgement: at once when
// stdout's EOF came, else by catching up with what was written.
func (p *proc) newExitDrain() *exitDrain {
	d := &exitDrain{p: p, stdoutC: p.stdoutDone, stderrC: p.stderrDone}
	stdoutHeld := isOpen(p.stdoutDone) && pipeHeld(p.pipes.stdoutR)
	stderrHeld := isOpen(p.stderrDone) && pipeHeld(p.pipes.stderrR)
	if stdoutHeld || stderrHeld {
		// Not judged yet: a wrapper's children often let go a moment
		// after it exits (npm exec → sh → node). See decideHeld.
		d.held = time.NewTimer(heldGrace)
		d.heldC = d.held.C
	}
	if stdoutHeld {
		d.target = p.stdoutRead.Load() + pipeBuffered(p.pipes.stdoutR)
		d.catchUp = time.NewTicker(catchUpPoll)
		d.catchUpC, d.progressC = d.catchUp.C, p.stdoutProgress
		d.caughtUp()
	}
	// The last stderr lines go into ExitedError: wait for them unless
	// another process holds stderr (then EOF may never come). Without a
	// holder the rest is at most a pipe's buffer away.
	if stderrHeld {
		d.settle()
	}
	return d
}

func (d *exitDrain) reportExit() {
	if !d.exitReported {
		d.exitReported = true
		d.p.reportExit()
	}
}

// caughtUp judges the exit when the log covers the target, or when the
// framer read it all and waits for more.
func (d *exitDrain) caughtUp() {
	p := d.p
	p.mu.Lock()
	logged := p.bytesIn >= d.target
	p.mu.Unlock()
	starved := p.stdoutRead.Load() >= d.target && p.stdoutStarved()
	if logged || starved {
		d.progressC, d.catchUpC = nil, nil
		d.reportExit()
	}
}

func (d *exitDrain) settle() {
	if !d.settled {
		d.settled = true
		close(d.p.settled)
	}
}

// releaseLeftovers, at shutdown, kills what is left of the group (which
// releases pipes its members hold), and gives up on pipes still open a
// wait later.
func (d *exitDrain) releaseLeftovers() {
	d.decideHeld() // by what holds the pipes before anything is killed
	d.p.releaseHolders()
	if d.force == nil && (isOpen(d.p.stdoutDone) || isOpen(d.p.stderrDone)) {
		d.force = time.NewTimer(d.p.s.cfg.SIGTERMWait)
		d.forceC = d.force.C
	}
}

// stopListening gives up on the pipes still open: whoever holds them is
// outside the group (it made its own session or group), so it cannot be
// killed.
func (d *exitDrain) stopListening() {
	var which []string
	if d.stdoutC != nil {
		which = append(which, "stdout")
		d.p.pipes.stdoutR.Close()
	}
	if d.stderrC != nil {
		which = append(which, "stderr")
		d.p.pipes.stderrR.Close()
	}
	d.p.s.note(fmt.Sprintf("stopped reading %s: still held open by a process outside the server's process group", strings.Join(which, " and ")))
}

func (d *exitDrain) stopTimers() {
	if d.catchUp != nil {
		d.catchUp.Stop()
	}
	if d.force != nil {
		d.force.Stop()
	}
}

// releaseHolders SIGKILLs, at a shutdown after the exit, whatever still
// holds the server's stdout or stderr open: the rest of its process group
// (the server's unreaped zombie keeps the group id from being anyone
// else's), and holders outside the group, found by the pipe.
func (p *proc) releaseHolders() {
	files := p.heldPipesNow()
	if len(files) == 0 {
		return // nothing holds them: EOF is on its way; the rest waits for the reap
	}
	members := groupMembers(p.pid)
	// Only descendants are signalled: a stranger that opened the pipe
	// (through /proc/PID/fd) is named, not killed.
	outside, strangers := p.sp.ours(without(pipeHolders(files...), members))
	signalGroup(p.pid, syscall.SIGKILL)
	for _, pid := range outside {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	p.noteLeftovers(members, outside, false)
	if len(strangers) > 0 {
		p.s.note(fmt.Sprintf("pid %s, not a descendant of the server, holds its pipe open: not signalled", joinInts(strangers)))
	}
}

// reapAndClear reaps the server and SIGKILLs what is left of its process
// group: nothing may outlive the session (a wrapper's real server, a helper
// that let go of the pipes). Right after the reap the group id is still the
// group's if anything is left in it (its members hold it); if nothing is,
// kill(-pgid, 0) says so long before the kernel, which hands pids out in
// sequence, could give the number to anyone else.
func (p *proc) reapAndClear() {
	p.mu.Lock()
	left := p.sp.end() // the reap; with the reaper, every descendant left too
	p.mu.Unlock()
	if note := p.sp.lostNote(); note != "" {
		p.s.note(note)
	}
	if note := leftoverNote(p.pid, left); note != "" {
		p.s.note(note)
	}
	if !groupAlive(p.pid) {
		return
	}
	members := groupMembers(p.pid)
	signalGroup(p.pid, syscall.SIGKILL)
	p.noteLeftovers(members, nil, len(members) == 0)
}

// noteLeftovers logs what killing the leftovers reached.
func (p *proc) noteLeftovers(members, outside []int, unnamed bool) {
	var what []string
	switch {
	case len(members) > 0:
		what = append(what, fmt.Sprintf("%d process(es) left in the server's process group (pid %s)", len(members), joinInts(members)))
	case unnamed:
		what = append(what, "the processes left in the server's process group")
	}
	if len(outside) > 0 {
		what = append(what, fmt.Sprintf("%d process(es) outside it holding the server's pipes (pid %s)", len(outside), joinInts(outside)))
	}
	if len(what) > 0 {
		p.s.note("SIGKILL sent to " + strings.Join(what, " and ") + " after the server exited")
	}
}

// heldPipesNow returns the read ends of stdout and stderr that some other
// process still holds open.
func (p *proc) heldPipesNow() []*os.File {
	var fs []*os.File
	if isOpen(p.stdoutDone) && pipeHeld(p.pipes.stdoutR) {
		fs = append(fs, p.pipes.stdoutR)
	}
	if isOpen(p.stderrDone) && pipeHeld(p.pipes.stderrR) {
		fs = append(fs, p.pipes.stderrR)
	}
	return fs
}

// reportHeld records pipe-held-after-exit if a pipe is still held now,
// worded by what was observed: the holders found by the pipe they hold, as
// members of the server's process group, descendants that left it, or
// processes that are not the server's at all. The holders are looked up
// before the pipe is checked again, so a holder that let go in between
// makes no finding rather than an unnamed one.
func (p *proc) reportHeld() {
	var which []string
	var files []*os.File
	for _, c := range []struct {
		name string
		done <-chan struct{}
		f    *os.File
	}{{"stdout", p.stdoutDone, p.pipes.stdoutR}, {"stderr", p.stderrDone, p.pipes.stderrR}} {
		if isOpen(c.done) {
			files = append(files, c.f)
			which = append(which, c.name)
		}
	}
	members := groupMembers(p.pid)
	holders := pipeHolders(files...)
	var held []string
	for i, f := range files {
		if pipeHeld(f) {
			held = append(held, which[i])
		}
	}
	if len(held) == 0 {
		return // released: the teardown of the server's tree, not a fault
	}
	p.mu.Lock()
	p.heldPipes = held
	exitedAt := p.exitedAt
	p.mu.Unlock()
	msg := fmt.Sprintf("the server (pid %d) exited but its %s stayed open %s later", p.pid, strings.Join(held, " and "),
		time.Since(exitedAt).Round(time.Millisecond))
	inGroup := without(holders, without(holders, members))
	escaped, strangers := p.sp.ours(without(holders, members))
	var by []string
	if len(inGroup) > 0 {
		by = append(by, fmt.Sprintf("pid %s of its process group", namedPids(inGroup)))
	}
	if len(escaped) > 0 {
		by = append(by, fmt.Sprintf("pid %s outside its process group", namedPids(escaped)))
	}
	if len(strangers) > 0 {
		by = append(by, fmt.Sprintf("pid %s, not a descendant of the server", namedPids(strangers)))
	}
	if len(by) == 0 {
		by = append(by, "a process linesman cannot see (another user's?)")
	}
	msg += ", held by " + strings.Join(by, " and ") + "; reading on until it closes"
	p.s.logFinding("pipe-held-after-exit", msg)
}

// namedPids renders pids with their command names: "123 (node), 124 (sh)".
func namedPids(pids []int) string {
	out := make([]string, len(pids))
	for i, pid := range pids {
		out[i] = fmt.Sprint(pid)
		if name := procName(pid); name != "" {
			out[i] = fmt.Sprintf("%d (%s)", pid, wire.VisibleString(name, wire.Pictures))
		}
	}
	return strings.Join(out, ", ")
}

// without returns the elements of a not in b.
func without(a, b []int) []int {
	var out []int
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// reportExit records what the exit means: requests it left unanswered (the
// tracker's exited-during-request) and exit-at-start.
func (p *proc) reportExit() {
	s := p.s
	p.mu.Lock()
	restarting := p.restarting
	p.mu.Unlock()
	if !restarting {
		// The fold settles the exit (exit-at-start, exited-during-request,
		// unflushed output). On a restart, the restart ends what is still
		// in flight, without a finding: the user asked for it.
		s.logFact(eventlog.Event{Type: eventlog.EventEnd, End: &eventlog.EndEvent{Exited: true}})
	}
}
