package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"linesman/session"
)

// drainMargin is how long, beyond the ladder's own waits, linesman waits for
// the session to end before it kills the process group and reports anyway.
const drainMargin = 5 * time.Second

// A serverRun owns the lifetime of the server a mode starts (the inspector,
// check, send): the --log file, the session, the capture, the signals that
// end the run early, and the bounded shutdown. A mode reads top to bottom:
//
//	r, status, _ := startServerRun(name, flags, cfg, stderr)
//	if r == nil {
//		return status
//	}
//	defer r.close()
//	r.watch(nil, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
//	... talk to r.s until r.ctx ends ...
//	r.shutdown()
//	captureErr := r.stopCapture()
//
// The watched signals are registered once, for the whole run and until
// linesman exits: there is no moment between two phases in which a signal
// takes its default action and ends linesman with the server's group alive
// or its report unwritten.
type serverRun struct {
	name  string // "linesman check": the prefix of messages and log lines
	flags *commonFlags
	diag  *diagLog
	s     *session.Session
	// stopCap stops the capture (see startCapture).
	stopCap func() error

	// ctx ends when the run closes, or at the first watched signal when
	// watch was given no handler of its own.
	ctx    context.Context
	cancel context.CancelFunc
	// interrupted records that a watched signal arrived.
	interrupted atomic.Bool

	mu       sync.Mutex
	onSignal func() // what a signal does now; changes with the phase
	sigc     chan os.Signal
	closed   chan struct{}
}

// startServerRun opens the --log file, starts the server and its capture.
// When it cannot, it has said why on stderr and cleaned up, and returns a
// nil run and the exit status; startErr is the session's start error, for a
// report of a server that never ran.
func startServerRun(name string, flags *commonFlags, cfg session.Config, stderr io.Writer) (r *serverRun, status int, startErr error) {
	diag, err := openDiagLog(flags.logFile, name)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --log: %s\n", name, inertErr(err))
		return nil, exitUsage, nil
	}
	s, err := session.Start(cfg)
	if err != nil {
		diag.logf("cannot start %q: %v", cfg.Command, err)
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		diag.Close()
		return nil, exitFindings, err
	}
	stopCap, err := startCapture(flags, s.Log(), cfg.Command)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		s.Kill()
		waitBounded(s.Done(), drainMargin)
		diag.Close()
		return nil, exitFindings, nil
	}
	diag.logf("started %q, pid %d", cfg.Command, s.Info().Pid)
	r = &serverRun{name: name, flags: flags, diag: diag, s: s, stopCap: stopCap, closed: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.onSignal = func() {}
	return r, 0, nil
}

// logf writes a line to the --log file (nowhere without --log).
func (r *serverRun) logf(format string, a ...any) { r.diag.logf(format, a...) }

// watch makes the signals among sigs that linesman was not started with
// ignored end the run early: on is called at each one until the shutdown
// (nil: r.ctx ends). A signal ignored at start stays ignored (Notify would
// install a handler): under nohup a hangup must not end the run, and a
// background job (^C ignored) must not be interrupted by one. Call it once.
func (r *serverRun) watch(on func(), sigs ...os.Signal) {
	if on == nil {
		on = r.cancel
	}
	r.setOnSignal(func() {
		r.interrupted.Store(true)
		on()
	})
	var watched []os.Signal
	for _, sig := range sigs {
		if !signal.Ignored(sig) {
			watched = append(watched, sig)
		}
	}
	if len(watched) == 0 {
		return // Notify with no signals would relay every signal
	}
	r.sigc = make(chan os.Signal, 1)
	signal.Notify(r.sigc, watched...)
	go func() {
		for {
			select {
			case <-r.sigc:
				r.mu.Lock()
				f := r.onSignal
				r.mu.Unlock()
				f()
			case <-r.closed:
				return
			}
		}
	}()
}

func (r *serverRun) setOnSignal(f func()) {
	r.mu.Lock()
	r.onSignal = f
	r.mu.Unlock()
}

// shutdown runs the shutdown ladder (stdin closed, SIGTERM, SIGKILL) and
// waits for the session to end, bounded: by the ladder's own waits plus a
// margin, after which — or at a watched signal, which now means "stop
// waiting" — the process group is killed; then by a margin for the readers
// to drain, after which what was logged is what there is.
func (r *serverRun) shutdown() {
	r.setOnSignal(func() {
		r.logf("interrupted during the shutdown ladder; killing the process group")
		r.interrupted.Store(true)
		r.s.Kill()
	})
	r.s.Shutdown()
	if !waitBounded(r.s.Done(), r.flags.stdinWait+r.flags.sigtermWait+drainMargin) {
		r.logf("the session did not end within the ladder's waits; killing the process group")
		r.s.Kill()
	}
	if !waitBounded(r.s.Done(), drainMargin) {
		r.logf("the session still has not drained; reporting what was logged")
	}
	r.setOnSignal(func() {}) // the server is gone: a late signal changes nothing
	info := r.s.Info()
	r.logf("ended: %s, exit code %d, signal %q, ended by %s", info.State, info.ExitCode, info.Signal, info.EndedBy)
}

// stopCapture writes what is left of the log to the capture and closes it;
// call it after shutdown, once nothing more is logged.
func (r *serverRun) stopCapture() error { return r.stopCap() }

// close ends the run's context and closes the --log file. The watched
// signals stay caught, and now do nothing, until linesman exits: the report
// is written and the exit status decided, and a signal in the moment before
// the exit must not turn that status into a death by signal. (The signal
// package drops what the full channel cannot take; it never blocks.)
func (r *serverRun) close() {
	close(r.closed)
	r.cancel()
	r.diag.Close()
}

// stopSignals are the signals that make a headless run stop waiting, shut
// the server down and report: ^C, kill, and a hangup (the terminal closed),
// but those linesman was started with ignored (see [serverRun.watch]).
func stopSignals() []os.Signal {
	var out []os.Signal
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(sig) {
			out = append(out, sig)
		}
	}
	return out
}

// waitBounded waits for c to close, at most d; it reports whether it did.
func waitBounded(c <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c:
		return true
	case <-t.C:
		return false
	}
}
