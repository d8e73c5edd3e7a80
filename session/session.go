package session

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"linesman/session/eventlog"
	"linesman/session/fault"
	"linesman/wire"
)

// Config says which server to start and how to run it.
type Config struct {
	Command []string // argv; [0] is looked up in the child's PATH unless it holds a '/'
	Env     []string // KEY=VALUE overrides on top of os.Environ() (a bare KEY removes it)
	// CleanEnv starts the server from a minimal environment, as hosts do:
	// only the variables of [CleanEnvKeys] from ours, then Env.
	CleanEnv bool
	Dir      string        // working directory ("" = ours)
	Log      *eventlog.Log // append to this log (nil = a new one); lets a restart continue a log

	Retention int64 // budget of a new Log in bytes (0 = DefaultRetention)
	MaxFrame  int   // longest stdout line kept whole (0 = wire.DefaultMaxFrame)

	// The shutdown ladder: after stdin is closed wait StdinCloseWait for the
	// exit, then SIGTERM the group and wait SIGTERMWait, then SIGKILL it.
	// 0 means 2 s each. A Shutdown or Kill after the exit SIGKILLs what
	// still holds stdout or stderr open (the group, and holders outside it
	// found by the pipe); a pipe still open SIGTERMWait later (a holder
	// linesman cannot see or signal) is given up on, so Done never hangs.
	StdinCloseWait, SIGTERMWait time.Duration
	// A write to stdin blocked this long means the server is not reading its
	// input (finding stdin-not-read). 0 means 2 s.
	StdinBlockedAfter time.Duration
	// Bytes that may wait for the server's stdin before Send fails with
	// ErrQueueFull. 0 means 64 MiB.
	QueueLimit int

	// Part 2: the client half (client.go, era.go).
	Era          eventlog.Era  // EraUnknown = probe (server/discover, then initialize)
	NoHandshake  bool          // leave the handshake to the user
	Timeout      time.Duration // per request (0 = DefaultTimeout)
	ProbeTimeout time.Duration // era probe (0 = DefaultProbeTimeout)
	// ProbeSilence is how long a server that read the probe may stay
	// silent before the probe gives up (0 = the ProbeSilence constant).
	ProbeSilence time.Duration
	Roots        []string // answered to roots/list (default: the server's directory)
	NoRoots      bool     // do not declare the roots capability
	Headless     bool     // a one-shot run: declares no client capability (roots, sampling, elicitation); answers what the server asks anyway (roots/list -32601, sampling/elicitation declined)
	ClientName   string   // clientInfo.name ("" = DefaultClientName)

	// Observe is for a host that drives the server itself (linesman tap):
	// the session sends nothing of its own — no handshake, no answers to
	// the server's requests (the host answers them) — and only judges and
	// logs what crosses the wire. Bytes from the host go in through
	// [Session.Inlet].
	Observe bool
	// StdoutTee and StderrTee, when set, receive every byte read from the
	// server's stdout and stderr, as each read returns, before it is framed
	// (so a partial line is passed on at once, byte for byte). A write to
	// either may block: the server then blocks on its own write, as it
	// would on a host that is slow to read. An error from StdoutTee ends
	// the reading of stdout (the server's next write to it fails, as it
	// would if the host had closed its end); an error from StderrTee only
	// stops the copying, stderr is still drained.
	StdoutTee, StderrTee io.Writer
	// ScribeBudget bounds, per direction, the bytes an Observe session has
	// passed on but not judged yet; past it, bytes are passed on unjudged
	// and the log says how many (see inlet_scribe.go). 0 means
	// DefaultScribeBudget.
	ScribeBudget int
	// Intercept lets an Observe session hold frames ([Session.SetInterceptor]):
	// both directions are then passed on by whole lines (see
	// intercept_tap.go). linesman tap --intercept sets it.
	Intercept bool

	scribeHold <-chan struct{} // tests: an Observe session's scribes wait for it to close
}

// Defaults of the Config fields left zero.
const (
	DefaultLadderWait   = 2 * time.Second
	DefaultStdinBlocked = 2 * time.Second
	DefaultQueueLimit   = 64 << 20
)

// tickEvery is how often a running session checks timeouts and a blocked stdin.
const tickEvery = 250 * time.Millisecond

// exitStatusWait bounds how long a failed write waits for the exit status,
// and a Send to an exited server for the last stderr lines: a process that
// has closed its pipes may not have exited yet, and its last stderr lines
// may still be in the pipe.
const exitStatusWait = time.Second

func (c Config) withDefaults() Config {
	if c.StdinCloseWait <= 0 {
		c.StdinCloseWait = DefaultLadderWait
	}
	if c.SIGTERMWait <= 0 {
		c.SIGTERMWait = DefaultLadderWait
	}
	if c.StdinBlockedAfter <= 0 {
		c.StdinBlockedAfter = DefaultStdinBlocked
	}
	if c.QueueLimit <= 0 {
		c.QueueLimit = DefaultQueueLimit
	}
	if c.MaxFrame <= 0 {
		c.MaxFrame = wire.DefaultMaxFrame
	}
	c.Command = append([]string(nil), c.Command...)
	c.Env = append([]string(nil), c.Env...)
	c.Roots = append([]string(nil), c.Roots...)
	return c
}

// Session is one server run through linesman: the child process (replaced by
// Restart), the Tracker of its JSON-RPC traffic, and the Log of everything.
//
// All methods are safe for concurrent use. None blocks its caller except
// Restart, which waits for the shutdown ladder (run it off the UI goroutine).
//
// Goroutines per process: one waits for the exit, one reads stdout, one reads
// stderr, one writes stdin, one supervises (ticks, the shutdown ladder, the
// end). All five have returned when Done is closed, give or take their last
// instruction.
type Session struct {
	cfg     Config
	log     *eventlog.Log
	tracker *eventlog.Tracker
	client  clientState // the client half (client.go)

	restartMu sync.Mutex // serialises Restart

	icept interception // frames held in flight (intercept.go)
	// Under Config.Intercept, what linesman writes into a tap's streams
	// goes in whole lines under these (intercept_tap.go).
	inletMu, teeMu sync.Mutex

	mu       sync.Mutex
	proc     *proc
	restarts int

	// injector is the fault armed by InjectFault, nil when none is.
	injector atomic.Pointer[fault.Injector]

	// probing is set while the era probe waits for its answer: its own
	// bound (--probe-timeout, at most --timeout) ends that wait, and the
	// tracker's timeouts wait for it (see [proc.tick]).
	probing atomic.Bool

	// Once-per-session findings, kept across restarts.
	flagMu     sync.Mutex
	stderrEsc  bool // stderr-escape-sequences was flagged
	stdinStuck bool // stdin-not-read was flagged
}

// ProcessInfo is a snapshot of the server process, as the child got it.
type ProcessInfo struct {
	Command []string // argv as given
	Path    string   // the program that was executed (argv[0] resolved)
	Env     []string // the child's whole environment
	Dir     string   // the child's working directory
	Pid     int      // also its process group id

	State eventlog.ProcessState
	Step  eventlog.ShutdownStep // the ladder step under way (StateExiting) or last taken

	StartedAt time.Time
	ExitedAt  time.Time // zero until exited
	// ExitCode is -1 when a signal ended the process (Signal names it).
	ExitCode     int
	Signal       string
	EndedBy      eventlog.ShutdownStep // StepNone: it exited on its own
	ShutdownTook time.Duration         // first shutdown step to exit

	BytesIn      int64 // read from the server's stdout
	BytesOut     int64 // written to the server's stdin
	BytesStderr  int64 // read from the server's stderr
	PendingWrite int64 // queued for stdin, not yet written

	// HeldPipes names the pipes ("stdout", "stderr") another process kept
	// open after the server exited (finding pipe-held-after-exit).
	HeldPipes []string
	Restarts  int // how many times Restart replaced the process
}

// Start starts the server and returns at once. A command that cannot start
// returns a *StartError saying which and why; nothing is left running.
func Start(cfg Config) (*Session, error) {
	cfg = cfg.withDefaults()
	log := cfg.Log
	if log == nil {
		log = eventlog.NewLog(cfg.Retention)
	}
	s := &Session{cfg: cfg, log: log, tracker: eventlog.NewTracker(cfg.trackerOptions())}
	p, err := s.spawn()
	if err != nil {
		return nil, err
	}
	s.proc = p
	return s, nil
}

// Log returns the session's event log.
func (s *Session) Log() *eventlog.Log { return s.log }

// Tracker returns the session's request tracker.
func (s *Session) Tracker() *eventlog.Tracker { return s.tracker }

func (s *Session) current() *proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// Send queues raw bytes for the server's stdin and returns at once. The bytes
// are split into frames (wire.FramesOf) and each is logged as a client frame
// when queued, so the log shows exactly what will cross the wire, in order.
//
// It fails, queuing nothing, with *ExitedError when the server has exited,
// ErrQueueFull when too much is already waiting, or ErrStdinClosed while the
// shutdown ladder runs. A write that fails after Send returned is logged.
//
// With an [Interceptor] set, a frame that matches is held instead
// ([Session.SetInterceptor]).
func (s *Session) Send(raw []byte) error {
	if match, filter := s.interceptor(); match != nil {
		return s.sendIntercepted(raw, match, filter)
	}
	_, err := s.current().send(raw, false)
	return err
}

// SendOwned is Send for bytes the caller gives up: they are queued as they
// are, not copied, and must not be changed after (a line of a gigabyte
// is held once, not twice). The log keeps a copy of what it keeps of the
// frames (up to MaxFrame a line), never raw itself. It is for headless
// sends: no interceptor holds them.
func (s *Session) SendOwned(raw []byte) error {
	_, err := s.current().send(raw, true)
	return err
}

// Shutdown starts the shutdown ladder and returns at once; calling it again
// does nothing. Done is closed when the ladder is over and the output drained.
func (s *Session) Shutdown() { s.current().shutdown() }

// Kill sends SIGKILL to the server's process group now.
func (s *Session) Kill() { s.current().kill() }

// Exited is closed when the process has exited, as observed from the
// process itself (not from its pipes).
func (s *Session) Exited() <-chan struct{} { return s.current().exited }

// Done is closed when the process has exited and its stdout and stderr have
// been read to the end and logged.
func (s *Session) Done() <-chan struct{} { return s.current().done }

// Info returns a snapshot of the process.
func (s *Session) Info() ProcessInfo {
	s.mu.Lock()
	p, restarts := s.proc, s.restarts
	s.mu.Unlock()
	info := p.info()
	info.Restarts = restarts
	return info
}

// StderrTail returns up to the last n lines the current process wrote to
// stderr (exact bytes as text), oldest first.
func (s *Session) StderrTail(n int) []string { return s.current().stderrTail(n) }

// Restart runs the shutdown ladder on the current process, waits until it is
// done, and starts the same command again, logging into the same Log (a note
// marks the restart) and the same Tracker. It blocks for as long as the
// ladder takes. When the new process cannot start, the error says why, the
// old (exited) process stays current, and the log says so too.
func (s *Session) Restart() error {
	s.restartMu.Lock()
	defer s.restartMu.Unlock()
	old := s.current()
	old.mu.Lock()
	old.restarting = true
	old.mu.Unlock()
	old.shutdown()
	<-old.done
	s.mu.Lock()
	n := s.restarts + 1
	s.mu.Unlock()
	s.logFact(eventlog.Event{Type: eventlog.EventRestart, Restart: &eventlog.RestartEvent{N: n, Command: slices.Clone(s.cfg.Command)},
		Note: fmt.Sprintf("restart #%d: starting %s again", n, strings.Join(s.cfg.Command, " "))})
	p, err := s.spawn()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc = p
	s.restarts = n
	s.mu.Unlock()
	return nil
}

// logFrame appends a frame to the log, letting the tracker see it (and add
// its protocol findings) under the log's lock with the Seq it gets.
func (s *Session) logFrame(dir wire.Dir, f *wire.Frame) uint64 {
	return s.logFrameIndexed(dir, f, nil)
}

// logFrameIndexed is logFrame with the framer's index of the frame's
// params, which the judge reads instead of scanning them (nil: none).
func (s *Session) logFrameIndexed(dir wire.Dir, f *wire.Frame, params *wire.ParamsIndex) uint64 {
	seq := s.recordFrame(dir, f, params)
	s.onFrame(dir, f, seq)
	return seq
}

// recordFrame is logFrame without the client side seeing the frame (a
// server frame about to be held), with the framer's index of its params
// when there is one (see eventlog.Event.Params).
func (s *Session) recordFrame(dir wire.Dir, f *wire.Frame, params *wire.ParamsIndex) uint64 {
	return s.logFact(eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: f, Params: params})
}

// logUnjudged appends bytes of direction dir that the tap's judge passed
// over (see inlet_scribe.go); last ends the gap.
func (s *Session) logUnjudged(dir wire.Dir, b []byte, last bool) {
	s.log.Append(eventlog.Event{Type: eventlog.EventUnjudged, Unjudged: &eventlog.UnjudgedBytes{Dir: dir, Bytes: b, Last: last}})
}

// logFinding appends a finding that is not attached to a frame.
func (s *Session) logFinding(code, message string) { s.logFindingDir(code, 0, message) }

// logFindingDir appends a finding about one direction of the wire.
func (s *Session) logFindingDir(code string, dir wire.Dir, message string) {
	f := eventlog.LoggedFinding{Finding: wire.NewFinding(code, message), Dir: dir}
	s.log.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &f})
}

func (s *Session) logFindings(fs []eventlog.LoggedFinding) {
	for i := range fs {
		f := fs[i]
		s.log.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &f})
	}
}

// logFact appends an event the fold must see in log order (an era
// decision, a restart, a process event, a timeout, stdin's close, the end):
// the tracker applies it under the log's lock, as it sees frames. The
// findings the event settles ([Tracker.Apply]) are logged right after it.
// logFact records ev (the tracker folds it), then has the tracker forget
// what the log has dropped, so the history stays inside the log's budget:
// after a frame, and after a timeout's findings too (a million requests
// timed out were kept whole until the report).
func (s *Session) logFact(ev eventlog.Event) uint64 {
	seq := eventlog.Record(s.log, s.tracker, ev)
	first, _ := s.log.Bounds()
	if outside, passed := s.tracker.Forget(first); passed {
		s.log.Reserve(outside)
	}
	return seq
}

func (s *Session) note(text string) {
	s.log.Append(eventlog.Event{Type: eventlog.EventNote, Note: text})
}

// flagOnce reports whether a once-per-session flag was not set yet, setting it.
func (s *Session) flagOnce(flag *bool) bool {
	s.flagMu.Lock()
	defer s.flagMu.Unlock()
	if *flag {
		return false
	}
	*flag = true
	return true
}
