package session

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"linesman/wire"
)

// proc is one run of the server process. A Session has one at a time;
// Restart replaces it.
type proc struct {
	s     *Session
	cmd   *exec.Cmd
	pipes *pipes
	pid   int // also the process group id

	command []string
	path    string
	env     []string
	dir     string

	exited     chan struct{} // closed once the exit status is recorded
	settled    chan struct{} // closed after exited, once stderr is drained (or known to be held)
	done       chan struct{} // closed when everything is over (see Session.Done)
	shutdownCh chan struct{} // closed by shutdown()
	killCh     chan struct{} // a kill() happened (coalescing)
	stdoutDone chan struct{}
	// stdoutProgress is poked (coalescing) after each stdout frame is
	// logged; stdoutRead counts the bytes read from the pipe.
	stdoutProgress chan struct{}
	stdoutRead     atomic.Int64
	stdoutWaiting  atomic.Bool // the framer is blocked reading the pipe
	stderrDone     chan struct{}
	shutOnce       sync.Once

	mu           sync.Mutex
	state        ProcessState
	step         ShutdownStep
	startedAt    time.Time
	shutdownAt   time.Time // first shutdown step (Shutdown or Kill), zero if none
	exitedAt     time.Time
	exitCode     int
	signal       string
	endedBy      ShutdownStep
	shutdownTook time.Duration
	bytesIn      int64
	bytesErr     int64
	s2cFrames    int64
	tail         []string // last stderr lines, a ring of tailKeep
	tailNext     int
	heldPipes    []string
	restarting   bool // Restart is replacing this process: its in-flight requests are not the server's fault

	w *writer
}

// catchUpPoll is how often the end of a process whose stdout is held checks
// whether the framer has caught up with what the server wrote.
const catchUpPoll = 20 * time.Millisecond

// tailKeep is how many stderr lines a process keeps for errors and StderrTail.
const tailKeep = 64

// exitedErrorTail is how many stderr lines an ExitedError carries.
const exitedErrorTail = 10

// stderrMaxLine bounds a stderr line kept in the log; longer lines are
// truncated (Line.Truncated, Length keeps the real size).
const stderrMaxLine = 1 << 20

// spawnMu serialises the spawns of all sessions (see spawn).
var spawnMu sync.Mutex

// spawn starts the configured command as a new proc.
func (s *Session) spawn() (*proc, error) {
	cfg := s.cfg
	fail := func(reason, path string, err error) error {
		e := &StartError{Reason: reason, Command: cfg.Command, Path: path, Dir: cfg.Dir, Err: err}
		if cfg.Log != nil || s.proc != nil {
			s.note(e.Error())
		}
		return e
	}
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, fail(StartEmptyCommand, "", nil)
	}
	env := childEnv(cfg.CleanEnv, cfg.Env)
	dir := cfg.Dir
	if err := checkDir(dir); err != nil {
		return nil, fail(StartBadCwd, "", err)
	}
	// Record the directory as the child sees it: absolute.
	if dir == "" {
		if wd, err := os.Getwd(); err == nil {
			dir = wd
		}
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	path, reason, err := resolveProgram(cfg.Command[0], cfg.Dir, env)
	if err != nil {
		return nil, fail(reason, path, err)
	}
	// From the pipes' creation until our copies of the child's ends are
	// closed, a process forked by another session would inherit those ends
	// (close-on-exec closes them only at its exec) and hold our child's
	// stdout open for a moment: sessions spawn one at a time.
	spawnMu.Lock()
	defer spawnMu.Unlock()
	pp, err := newPipes()
	if err != nil {
		return nil, fail(StartFailed, path, err)
	}
	// Stdin, Stdout and Stderr are *os.File, so exec starts no copying
	// goroutines and cmd.Wait returns when the process exits, whoever else
	// holds the pipes. Every other descriptor of ours is close-on-exec.
	cmd := &exec.Cmd{
		Path:        path,
		Args:        append([]string(nil), cfg.Command...),
		Env:         env,
		Dir:         cfg.Dir,
		Stdin:       pp.stdinR,
		Stdout:      pp.stdoutW,
		Stderr:      pp.stderrW,
		SysProcAttr: sysProcAttr(),
	}
	p := &proc{
		s:              s,
		cmd:            cmd,
		pipes:          pp,
		command:        cmd.Args,
		path:           path,
		env:            env,
		dir:            dir,
		exited:         make(chan struct{}),
		settled:        make(chan struct{}),
		done:           make(chan struct{}),
		shutdownCh:     make(chan struct{}),
		killCh:         make(chan struct{}, 1),
		stdoutDone:     make(chan struct{}),
		stdoutProgress: make(chan struct{}, 1),
		stderrDone:     make(chan struct{}),
		state:          StateStarting,
	}
	s.log.Append(Event{Type: EventProcess, Process: &ProcessEvent{
		State:  StateStarting,
		Detail: fmt.Sprintf("starting %s in %s", strings.Join(cfg.Command, " "), dir),
	}})
	closeInheritedOnExec()
	if err := cmd.Start(); err != nil {
		pp.closeAll()
		return nil, fail(startReason(err), path, explainStartError(path, err))
	}
	// The child has its own copies now; ours must go, or we would hold the
	// write ends of its stdout/stderr and never see EOF.
	pp.closeChildEnds()
	p.pid = cmd.Process.Pid
	p.mu.Lock()
	p.state = StateRunning
	p.startedAt = time.Now()
	p.mu.Unlock()
	p.w = newWriter(p, pp.stdinW)
	s.log.Append(Event{Type: EventProcess, Process: &ProcessEvent{
		State:  StateRunning,
		Pid:    p.pid,
		Detail: fmt.Sprintf("started %s (pid %d)", path, p.pid),
	}})

	go p.wait()
	go p.readStdout()
	go p.readStderr()
	go p.w.run()
	go p.supervise()
	return p, nil
}

// wait observes the exit from the process itself.
func (p *proc) wait() {
	code, signum, err := waitExit(p.cmd)
	now := time.Now()
	sig := ""
	if signum != 0 {
		sig = signalName(signum)
	}
	p.mu.Lock()
	p.state = StateExited
	p.exitedAt = now
	p.exitCode, p.signal = code, sig
	p.endedBy = p.step
	if !p.shutdownAt.IsZero() {
		p.shutdownTook = now.Sub(p.shutdownAt)
	}
	ev := &ProcessEvent{
		State:        StateExited,
		Step:         p.endedBy,
		Pid:          p.pid,
		ExitCode:     code,
		Signal:       sig,
		ShutdownTook: p.shutdownTook,
	}
	switch {
	case sig != "":
		ev.Detail = fmt.Sprintf("exited: killed by %s", sig)
	case code >= 0:
		ev.Detail = fmt.Sprintf("exited with code %d", code)
	default:
		ev.Detail = fmt.Sprintf("exited: %v", err)
	}
	if ev.Step != StepNone {
		ev.Detail += fmt.Sprintf(" (ended by the shutdown's %s step, %s after the shutdown began)", ev.Step, ev.ShutdownTook.Round(time.Millisecond))
	}
	p.s.log.Append(Event{Type: EventProcess, Process: ev})
	p.mu.Unlock()
	close(p.exited)
}

// kill sends SIGKILL to the group now.
func (p *proc) kill() {
	p.mu.Lock()
	running := p.state != StateExited
	if running {
		p.state = StateExiting
		p.step = StepSIGKILL
		if p.shutdownAt.IsZero() {
			p.shutdownAt = time.Now()
		}
		p.logExitingLocked(StepSIGKILL, "SIGKILL sent to the process group (kill)")
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
func (p *proc) logExitingLocked(step ShutdownStep, detail string) {
	p.s.log.Append(Event{Type: EventProcess, Process: &ProcessEvent{
		State: StateExiting, Step: step, Pid: p.pid, Detail: detail,
	}})
}

// shuttingDown reports whether a shutdown step was taken (Shutdown or Kill).
func (p *proc) shuttingDown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.shutdownAt.IsZero()
}

// supervise runs the process's life: ticks and the ladder while it runs,
// then the end: findings about the exit, draining, leftovers, Done.
func (p *proc) supervise() {
	defer close(p.done)
	s := p.s
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()
	var rung *time.Timer
	var rungC <-chan time.Time
	stopRung := func() {
		if rung != nil {
			rung.Stop()
			rung, rungC = nil, nil
		}
	}
	defer stopRung()
	startRung := func(d time.Duration) {
		stopRung()
		rung = time.NewTimer(d)
		rungC = rung.C
	}
	shutdownC := p.shutdownCh

running:
	for {
		select {
		case <-p.exited:
			break running
		case <-tick.C:
			p.tick()
		case <-shutdownC:
			shutdownC = nil
			if p.beginShutdown() {
				startRung(s.cfg.StdinCloseWait)
			}
		case <-rungC:
			rung, rungC = nil, nil
			if d, ok := p.nextRung(); ok {
				startRung(d)
			}
		case <-p.killCh:
			stopRung() // SIGKILL was sent: only the exit is left to wait for
		}
	}
	stopRung()

	// The process has exited. Which pipes does another process still hold?
	stdoutHeld := isOpen(p.stdoutDone) && pipeHeld(p.pipes.stdoutR)
	stderrHeld := isOpen(p.stderrDone) && pipeHeld(p.pipes.stderrR)
	if stdoutHeld || stderrHeld {
		p.reportHeld(stdoutHeld, stderrHeld)
	}
	exitReported := false
	reportExit := func() {
		if !exitReported {
			exitReported = true
			p.reportExit()
		}
	}
	// Judge the exit once what was written before it is logged. Usually
	// that is at stdout's EOF; when another process holds stdout, EOF may be
	// far off, so it is when the frames logged cover the bytes read so far
	// plus those still in the pipe — or when all those bytes were read and
	// the framer waits for more (a partial line: it may never end).
	var catchUp *time.Ticker
	var catchUpC <-chan time.Time
	var progressC <-chan struct{}
	var target int64
	caughtUp := func() {
		p.mu.Lock()
		logged := p.bytesIn >= target
		p.mu.Unlock()
		starved := p.stdoutRead.Load() >= target && p.stdoutWaiting.Load()
		if logged || starved {
			progressC, catchUpC = nil, nil
			reportExit()
		}
	}
	if stdoutHeld {
		target = p.stdoutRead.Load() + pipeBuffered(p.pipes.stdoutR)
		catchUp = time.NewTicker(catchUpPoll)
		defer catchUp.Stop()
		catchUpC, progressC = catchUp.C, p.stdoutProgress
		caughtUp()
	}
	// The last stderr lines go into ExitedError: wait for them unless
	// another process holds stderr (then EOF may never come). Without a
	// holder the rest is at most a pipe's buffer away.
	isSettled := false
	settled := func() {
		if !isSettled {
			isSettled = true
			close(p.settled)
		}
	}
	if stderrHeld {
		settled()
	}

	var force *time.Timer
	var forceC <-chan time.Time
	defer func() {
		if force != nil {
			force.Stop()
		}
	}()
	// At shutdown, kill what is left of the group (which releases pipes
	// its members hold), and give up on pipes still open a wait later.
	releaseLeftovers := func() {
		p.releaseHolders()
		if force == nil && (isOpen(p.stdoutDone) || isOpen(p.stderrDone)) {
			force = time.NewTimer(s.cfg.SIGTERMWait)
			forceC = force.C
		}
	}
	if p.shuttingDown() {
		releaseLeftovers()
	}
	stdoutC, stderrC := p.stdoutDone, p.stderrDone
	for stdoutC != nil || stderrC != nil {
		select {
		case <-stdoutC:
			stdoutC, progressC, catchUpC = nil, nil, nil
			reportExit()
		case <-progressC:
			caughtUp()
		case <-catchUpC:
			caughtUp()
		case <-stderrC:
			stderrC = nil
			settled()
		case <-shutdownC:
			shutdownC = nil
			p.markShutdown()
			releaseLeftovers()
		case <-p.killCh:
			p.markShutdown()
			releaseLeftovers()
		case <-forceC:
			forceC = nil
			// Whoever holds the pipes is outside the group (it made its own
			// session or group): we cannot kill it, so stop listening.
			var which []string
			if stdoutC != nil {
				which = append(which, "stdout")
				p.pipes.stdoutR.Close()
			}
			if stderrC != nil {
				which = append(which, "stderr")
				p.pipes.stderrR.Close()
			}
			s.note(fmt.Sprintf("stopped reading %s: still held open by a process outside the server's process group", strings.Join(which, " and ")))
		}
	}
	settled()
	reportExit()
	p.w.stop(false)
	<-p.w.done
	p.reapAndClear()
}

// beginShutdown takes the first rung: close stdin once what is queued has
// been written. It reports false when the process already exited.
func (p *proc) beginShutdown() bool {
	p.mu.Lock()
	if p.state == StateExited || p.step != StepNone {
		// Already exited, or Kill came first: nothing to climb.
		p.mu.Unlock()
		return false
	}
	p.state = StateExiting
	p.step = StepStdinClose
	p.shutdownAt = time.Now()
	// Sends fail from the moment the log says stdin is closing.
	if blocked, _ := p.w.blocked(p.s.cfg.StdinBlockedAfter); blocked {
		// The server is not reading: what is queued would never drain.
		p.w.stop(true)
	} else {
		p.w.closeWhenDrained()
	}
	p.logExitingLocked(StepStdinClose, "closing stdin, waiting for the server to exit")
	p.mu.Unlock()
	return true
}

// nextRung takes the next ladder step after a wait ran out, and returns the
// next wait.
func (p *proc) nextRung() (time.Duration, bool) {
	s := p.s
	p.mu.Lock()
	if p.state == StateExited {
		p.mu.Unlock()
		return 0, false
	}
	switch p.step {
	case StepStdinClose:
		p.step = StepSIGTERM
		p.logExitingLocked(StepSIGTERM, "SIGTERM sent to the process group")
		s.logFinding("ignored-stdin-eof", fmt.Sprintf("the server was still running %s after its stdin was closed; SIGTERM was needed", s.cfg.StdinCloseWait))
		signalGroup(p.pid, syscall.SIGTERM) // under p.mu, as in kill
		p.mu.Unlock()
		p.w.stop(true)
		return s.cfg.SIGTERMWait, true
	case StepSIGTERM:
		p.step = StepSIGKILL
		p.logExitingLocked(StepSIGKILL, "SIGKILL sent to the process group")
		s.logFinding("needed-sigkill", fmt.Sprintf("the server was still running %s after SIGTERM; SIGKILL was needed", s.cfg.SIGTERMWait))
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
	outside := without(pipeHolders(files...), members)
	signalGroup(p.pid, syscall.SIGKILL)
	for _, pid := range outside {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	p.noteLeftovers(members, outside, false)
}

// reapAndClear reaps the server and SIGKILLs what is left of its process
// group: nothing may outlive the session (a wrapper's real server, a helper
// that let go of the pipes). Right after the reap the group id is still the
// group's if anything is left in it (its members hold it); if nothing is,
// kill(-pgid, 0) says so long before the kernel, which hands pids out in
// sequence, could give the number to anyone else.
func (p *proc) reapAndClear() {
	p.mu.Lock()
	reap(p.cmd)
	p.mu.Unlock()
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

// reportHeld records the finding pipe-held-after-exit.
func (p *proc) reportHeld(stdout, stderr bool) {
	var which []string
	var files []*os.File
	if stdout {
		which = append(which, "stdout")
		files = append(files, p.pipes.stdoutR)
	}
	if stderr {
		which = append(which, "stderr")
		files = append(files, p.pipes.stderrR)
	}
	p.mu.Lock()
	p.heldPipes = which
	p.mu.Unlock()
	msg := fmt.Sprintf("the server (pid %d) exited but its %s stayed open", p.pid, strings.Join(which, " and "))
	members := groupMembers(p.pid)
	holders := pipeHolders(files...)
	inGroup := without(holders, without(holders, members))
	outside := without(holders, members)
	switch {
	case len(inGroup) > 0 && len(outside) > 0:
		msg += fmt.Sprintf(", held by pid %s of its process group and pid %s outside it", joinInts(inGroup), joinInts(outside))
	case len(inGroup) > 0:
		msg += fmt.Sprintf(", held by pid %s of its process group", joinInts(inGroup))
	case len(outside) > 0:
		msg += fmt.Sprintf(", held by pid %s outside its process group", joinInts(outside))
	case len(members) > 0:
		msg += fmt.Sprintf(", held by pid %s of its process group", joinInts(members))
	default:
		msg += ", held by a descendant outside its process group"
	}
	msg += "; reading on until it closes"
	p.s.logFinding("pipe-held-after-exit", msg)
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
		// On a restart, Tracker.Restarted ends what is still in flight,
		// without a finding: the user asked for it.
		s.logFindings(s.tracker.Exited(s.log.Since()))
	}
	p.mu.Lock()
	onItsOwn := p.endedBy == StepNone && p.shutdownAt.IsZero()
	frames := p.s2cFrames
	how := exitHow(p.exitCode, p.signal)
	p.mu.Unlock()
	if onItsOwn && frames == 0 {
		s.logFinding("exit-at-start", fmt.Sprintf("the server %s before writing anything to stdout", how))
	}
}

func exitHow(code int, sig string) string {
	if sig != "" {
		return "was killed by " + sig
	}
	return fmt.Sprintf("exited with code %d", code)
}

// tick checks the tracker's timeouts and a blocked stdin.
func (p *proc) tick() {
	s := p.s
	s.logFindings(s.tracker.Tick(s.log.Since()))
	if blocked, pending := p.w.blocked(s.cfg.StdinBlockedAfter); blocked && s.flagOnce(&s.stdinStuck) {
		s.logFindingDir("stdin-not-read", wire.ClientToServer, fmt.Sprintf("a write to the server's stdin has been blocked for more than %s; %d bytes pending", s.cfg.StdinBlockedAfter, pending))
	}
}

// send queues raw for stdin; see Session.Send.
func (p *proc) send(raw []byte) (end int64, err error) {
	if !isOpen(p.exited) {
		return 0, p.exitedError()
	}
	frames := wire.FramesOf(raw, wire.Options{MaxFrame: p.s.cfg.MaxFrame})
	end, err = p.w.enqueue(raw, func() {
		for _, f := range frames {
			p.s.logFrame(wire.ClientToServer, f)
		}
	})
	if errors.Is(err, ErrStdinClosed) && !isOpen(p.exited) {
		return 0, p.exitedError()
	}
	return end, err
}

// exitedError builds the error of a send to the exited process, waiting
// (bounded) for the last stderr lines.
func (p *proc) exitedError() *ExitedError {
	select {
	case <-p.settled:
	case <-time.After(exitStatusWait):
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return &ExitedError{
		Pid:        p.pid,
		ExitCode:   p.exitCode,
		Signal:     p.signal,
		StderrTail: p.tailLocked(exitedErrorTail),
	}
}

func (p *proc) info() ProcessInfo {
	pending, out := p.w.counts()
	p.mu.Lock()
	defer p.mu.Unlock()
	return ProcessInfo{
		Command:      append([]string(nil), p.command...),
		Path:         p.path,
		Env:          append([]string(nil), p.env...),
		Dir:          p.dir,
		Pid:          p.pid,
		State:        p.state,
		Step:         p.step,
		StartedAt:    p.startedAt,
		ExitedAt:     p.exitedAt,
		ExitCode:     p.exitCode,
		Signal:       p.signal,
		EndedBy:      p.endedBy,
		ShutdownTook: p.shutdownTook,
		BytesIn:      p.bytesIn,
		BytesOut:     out,
		BytesStderr:  p.bytesErr,
		PendingWrite: pending,
		HeldPipes:    append([]string(nil), p.heldPipes...),
	}
}

// isOpen reports whether a done-style channel is still open.
func isOpen(c <-chan struct{}) bool {
	select {
	case <-c:
		return false
	default:
		return true
	}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
