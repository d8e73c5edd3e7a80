package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// proc is one run of the server process. A Session has one at a time;
// Restart replaces it.
type proc struct {
	s     *Session
	cmd   *exec.Cmd
	sp    *serverProc // the started server (through the reaper helper on Linux)
	pipes *pipes
	pid   int // also the process group id

	outSplit lineSplit // a tap's stdout under Config.Intercept: the partial line (forwardStdout's)

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
	stdoutLost chan struct{} // closed when stdout ended while the process ran on (stdoutlost.go)
	// stdoutProgress is poked (coalescing) after each stdout frame is
	// logged; stdoutRead counts the bytes read from the pipe.
	stdoutProgress chan struct{}
	stdoutRead     atomic.Int64
	stdoutWaiting  atomic.Bool // the framer is blocked reading the pipe
	stderrDone     chan struct{}
	shutOnce       sync.Once

	mu         sync.Mutex
	state      eventlog.ProcessState
	step       eventlog.ShutdownStep
	startedAt  time.Time
	shutdownAt time.Time // first shutdown step (Shutdown or Kill), zero if none
	onItsOwn   bool      // the server exited before any step of the ladder (fixed at the exit)
	// hostEnded: the host (a tap's) closed stdin or sent the last signal;
	// hostClosedStdin: the host closed stdin (whenever its close is
	// logged: the scribe logs it in the wire's order, maybe after a signal
	// the host sent right after it; a signal that finds the tap's stdin
	// hung up sets it before the thread reading stdin gets there).
	hostEnded, hostClosedStdin bool
	exitedAt                   time.Time
	exitCode                   int
	signal                     string
	endedBy                    eventlog.ShutdownStep
	shutdownTook               time.Duration
	bytesIn                    int64
	bytesErr                   int64
	s2cFrames                  int64
	tail                       []string // last stderr lines, a ring of tailKeep
	tailNext                   int
	heldPipes                  []string
	restarting                 bool // Restart is replacing this process: its in-flight requests are not the server's fault
	stdoutCut                  bool // an injected fault closed our end of its stdout (CloseStdout)

	w *writer

	// scribe is a tap's scribe queue (Config.Observe), else nil: the wire
	// does not wait for the scribe (inlet_scribe.go). scribeStdinDone is
	// closed when the scribe of the host's bytes has returned.
	scribe          *scribeQueue
	scribeStdinDone chan struct{}
}

// tailKeep is how many stderr lines a process keeps for errors and StderrTail.
const tailKeep = 64

// exitedErrorTail is how many stderr lines an ExitedError carries.
const exitedErrorTail = 10

// stderrMaxLine bounds a stderr line kept in the log; longer lines are
// truncated (Line.Truncated, Length keeps the real size).
const stderrMaxLine = 1 << 20

// spawnMu serialises the spawns of all sessions (see spawn).
var spawnMu sync.Mutex

// spawnTarget resolves what spawn starts: the child's environment, its
// working directory as the child sees it (absolute), and the program's
// path. When it cannot start, reason is one of the Start* reasons (err may
// be nil: an empty command).
func spawnTarget(cfg Config) (env []string, dir, path, reason string, err error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, "", "", StartEmptyCommand, nil
	}
	env = childEnv(cfg.CleanEnv, cfg.Env)
	dir = cfg.Dir
	if err := checkDir(dir); err != nil {
		return nil, "", "", StartBadCwd, err
	}
	if dir == "" {
		if wd, err := os.Getwd(); err == nil {
			dir = wd
		}
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	path, reason, err = resolveProgram(cfg.Command[0], cfg.Dir, env)
	return env, dir, path, reason, err
}

// newProc is a proc for cmd, not started yet.
func newProc(s *Session, cmd *exec.Cmd, pp *pipes, path string, env []string, dir string) *proc {
	return &proc{
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
		stdoutLost:     make(chan struct{}),
		stdoutProgress: make(chan struct{}, 1),
		stderrDone:     make(chan struct{}),
		state:          eventlog.StateStarting,
	}
}

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
	env, dir, path, reason, err := spawnTarget(cfg)
	if reason != "" {
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
	p := newProc(s, cmd, pp, path, env, dir)
	s.logFact(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{
		State:  eventlog.StateStarting,
		Detail: fmt.Sprintf("starting %s in %s", strings.Join(cfg.Command, " "), dir),
	}})
	closeInheritedOnExec()
	sp, err := startServer(cmd)
	if err != nil {
		pp.closeAll()
		return nil, fail(startReason(err), path, explainStartError(path, err))
	}
	// The child has its own copies now; ours must go, or we would hold the
	// write ends of its stdout/stderr and never see EOF.
	pp.closeChildEnds()
	p.sp = sp
	p.pid = sp.pid
	p.mu.Lock()
	p.state = eventlog.StateRunning
	p.startedAt = time.Now()
	p.mu.Unlock()
	p.w = newWriter(p, pp.stdinW)
	s.logFact(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{
		State:  eventlog.StateRunning,
		Pid:    p.pid,
		Detail: fmt.Sprintf("started %s (pid %d)", path, p.pid),
	}})

	if cfg.Observe {
		p.scribe = newScribeQueue(cfg.ScribeBudget, cfg.scribeHold)
		p.scribeStdinDone = make(chan struct{})
		go p.scribeStdin()
	}
	go p.wait()
	go p.readStdout()
	go p.readStderr()
	go p.w.run()
	go p.supervise()
	return p, nil
}

// wait observes the exit from the process itself.
func (p *proc) wait() {
	code, signum, err := p.sp.waitExit()
	now := time.Now()
	sig := ""
	if signum != 0 {
		sig = signalName(signum)
	}
	p.mu.Lock()
	p.state = eventlog.StateExited
	p.exitedAt = now
	p.exitCode, p.signal = code, sig
	if errors.Is(err, errContainmentLost) && signalName(signum) == "SIGKILL" && p.step == eventlog.StepNone {
		// Containment's SIGKILL (the takeover's, or the lost helper's
		// parent-death signal), not the server's own end: judge no exit.
		p.step = eventlog.StepSIGKILL
	}
	p.endedBy = p.step
	p.onItsOwn = p.step == eventlog.StepNone // no step of the ladder came before the exit
	if !p.shutdownAt.IsZero() {
		p.shutdownTook = now.Sub(p.shutdownAt)
	}
	ev := &eventlog.ProcessEvent{
		State:        eventlog.StateExited,
		Step:         p.endedBy,
		Pid:          p.pid,
		ExitCode:     code,
		Signal:       sig,
		ShutdownTook: p.shutdownTook,
		AfterEOF:     p.w != nil && p.w.eof.Load(),
		ByHost:       p.hostEnded,
	}
	switch {
	case sig != "":
		ev.Detail = fmt.Sprintf("exited: killed by %s", sig)
	case code >= 0:
		ev.Detail = fmt.Sprintf("exited with code %d", code)
	default:
		ev.Detail = fmt.Sprintf("exited: %v", err)
	}
	switch {
	case errors.Is(err, errContainmentLost) && (sig != "" || code >= 0):
		ev.Detail += " (" + err.Error() + ")"
	case ev.Step != eventlog.StepNone && ev.ByHost:
		ev.Detail += fmt.Sprintf(" (%s, %s after it)", eventlog.HowEnded(ev.Step, ev.AfterEOF, true), ev.ShutdownTook.Round(time.Millisecond))
	case ev.Step != eventlog.StepNone:
		ev.Detail += fmt.Sprintf(" (ended by the shutdown's %s step, %s after the shutdown began)", ev.Step, ev.ShutdownTook.Round(time.Millisecond))
	}
	p.s.logFact(eventlog.Event{Type: eventlog.EventProcess, Process: ev})
	p.mu.Unlock()
	close(p.exited)
}

// tick checks the tracker's timeouts and a blocked stdin. While the era
// probe waits, the timeouts wait for it: the probe's bound is at most the
// timeout, and the probe gives up on its own request (no finding) before
// the tracker may time it out; a linesman the machine did not run across
// that instant wakes with both due, and the order of its goroutines
// decided the verdict (request-timeout in some runs, none in others).
func (p *proc) tick() {
	s := p.s
	if at, ok := s.tracker.NextDeadline(); ok && at <= s.log.Since() && !s.probing.Load() {
		s.logFact(eventlog.Event{Type: eventlog.EventTimeout})
	}
	if blocked, pending := p.w.blocked(s.cfg.StdinBlockedAfter); blocked && s.flagOnce(&s.stdinStuck) {
		s.logFindingDir("stdin-not-read", wire.ClientToServer, fmt.Sprintf("a write to the server's stdin has been blocked for more than %s; %d bytes pending", s.cfg.StdinBlockedAfter, pending))
	}
}

// send queues raw for stdin, a copy unless owned; see Session.Send and
// Session.SendOwned.
func (p *proc) send(raw []byte, owned bool) (end int64, err error) {
	if !isOpen(p.exited) {
		return 0, p.exitedError()
	}
	frames := wire.FramesOf(raw, wire.Options{MaxFrame: p.s.cfg.MaxFrame})
	p.s.injectHost(raw) // before the server can answer it
	if !owned {
		raw = bytes.Clone(raw)
	}
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
