package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"linesman/session"
)

// drainMargin is how long, beyond the ladder's own waits, linesman waits for
// the session to end before it kills the process group and reports anyway.
const drainMargin = 5 * time.Second

// A Run owns the lifetime of the server a mode starts: the --log file, the
// session, the capture, the signals that end the run early, and the
// bounded shutdown. It reads top to bottom:
//
//	r, status, _ := Start(opts, stderr)
//	if r == nil {
//		return status
//	}
//	defer r.Close()
//	... talk to r.Session() until r.Context() ends ...
//	r.Shutdown()
//	captureErr := r.stopCapture()
//	if status, ok := r.SignalStatus(); ok { return status }
//
// The watched signals are registered once, before the server starts, for
// the whole run and until linesman exits: there is no moment in which a
// signal takes its default action and ends linesman with the server's group
// alive or its report unwritten.
type Run struct {
	opts *Options
	diag *diagLog
	s    *session.Session // set once started (under mu: the signal goroutine reads it)
	// stopCap stops the capture (see startCapture).
	stopCap func() error

	// ctx ends when the run closes, or at the first watched signal.
	ctx    context.Context
	cancel context.CancelFunc
	// sigs catches the watched signals and remembers the first.
	sigs *Watch

	mu sync.Mutex
}

// Start watches the signals, opens the --log file, starts the server and
// its capture. When it cannot, it has said why on stderr and cleaned up,
// and returns a nil run and the exit status; startErr is the session's
// start error, for a report of a server that never ran.
func Start(opts *Options, stderr io.Writer) (r *Run, status int, startErr error) {
	run := &Run{opts: opts}
	run.ctx, run.cancel = context.WithCancel(context.Background())
	run.watch(opts.Signals)
	defer func() {
		if r == nil { // the signals stay caught; their goroutine ends
			run.sigs.Close()
			run.cancel()
		}
	}()
	diag, err := openDiagLog(opts.LogFile, opts.Name, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --log: %s\n", opts.Name, inertErr(err))
		return nil, StatusUsage, nil
	}
	run.diag = diag
	cfg := opts.sessionConfig()
	s, err := session.Start(cfg)
	if err != nil {
		diag.logf("cannot start %q: %v", cfg.Command, err)
		fmt.Fprintf(stderr, "%s: %v\n", opts.Name, err)
		diag.Close()
		return nil, StatusFailed, err
	}
	run.mu.Lock()
	run.s = s
	run.mu.Unlock()
	if first, ok := run.sigs.First(); ok && opts.Signals.kills(first) {
		s.Kill() // the signal came while the server was starting
	}
	stopCap, err := startCapture(opts, s.Log())
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", opts.Name, err)
		s.Kill()
		WaitBounded(s.Done(), drainMargin)
		diag.Close()
		return nil, StatusFailed, nil
	}
	run.stopCap = stopCap
	diag.logf("started %q, pid %d", cfg.Command, s.Info().Pid)
	return run, 0, nil
}

// Session is the running server's session.
func (r *Run) Session() *session.Session { return r.s }

// Context ends when the run closes, or at the first watched signal.
func (r *Run) Context() context.Context { return r.ctx }

// Options are the options the run was started with.
func (r *Run) Options() *Options { return r.opts }

// Logf writes a line to the --log file (nowhere without --log).
func (r *Run) Logf(format string, a ...any) { r.diag.logf(format, a...) }

// watch catches sig.Stop for the rest of the process's life (see
// [WatchSignals]); until the shutdown each one ends r.ctx, and those in
// sig.Kill kill the group.
func (r *Run) watch(sig Signals) {
	r.sigs = WatchSignals(sig.Stop, func(got os.Signal) {
		r.cancel()
		if sig.kills(got) {
			r.mu.Lock()
			s := r.s
			r.mu.Unlock()
			if s != nil {
				s.Kill()
			}
		}
	})
}

// SignalStatus is the exit status of a run a watched signal stopped
// ([report.SignalStatus] of the first); ok is false when none came.
func (r *Run) SignalStatus() (status int, ok bool) { return r.sigs.Status() }

// stopCapture writes what is left of the log to the capture and closes it;
// call it after the shutdown and the checks of the finished run, once nothing more is logged.
func (r *Run) stopCapture() error { return r.stopCap() }

// Shutdown runs the shutdown ladder (stdin closed, SIGTERM, SIGKILL) and
// waits for the session to end, bounded: by the ladder's own waits plus a
// margin, after which — or at a watched signal, which now means "stop
// waiting" — the process group is killed; then by a margin for the readers
// to drain, after which what was logged is what there is.
func (r *Run) Shutdown() {
	r.sigs.SetAction(func(os.Signal) {
		r.Logf("interrupted during the shutdown ladder; killing the process group")
		r.s.Kill()
	})
	r.s.Shutdown()
	cfg := &r.opts.Session
	if !WaitBounded(r.s.Done(), cfg.StdinCloseWait+cfg.SIGTERMWait+drainMargin) {
		r.Logf("the session did not end within the ladder's waits; killing the process group")
		r.s.Kill()
	}
	if !WaitBounded(r.s.Done(), drainMargin) {
		r.Logf("the session still has not drained; reporting what was logged")
	}
	r.sigs.SetAction(func(os.Signal) {}) // the server is gone: a late signal changes nothing
	info := r.s.Info()
	r.Logf("ended: %s, exit code %d, signal %q, ended by %s", info.State, info.ExitCode, info.Signal, info.EndedBy)
}

// Close ends the run's context and closes the --log file. The watched
// signals stay caught, and now do nothing, until linesman exits (see
// [Watch.Close]).
func (r *Run) Close() {
	r.sigs.Close()
	r.cancel()
	r.diag.Close()
}
