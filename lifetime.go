package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
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
//	r, status, _ := startServerRun(name, flags, cfg, stderr, runSignals{sigs: stopSignals()})
//	if r == nil {
//		return status
//	}
//	defer r.close()
//	... talk to r.s until r.ctx ends ...
//	r.shutdown()
//	captureErr := r.stopCapture()
//	if status, ok := r.signalStatus(); ok { return status }
//
// The watched signals are registered once, before the server starts, for
// the whole run and until linesman exits: there is no moment in which a
// signal takes its default action and ends linesman with the server's group
// alive or its report unwritten.
type serverRun struct {
	name  string // "linesman check": the prefix of messages and log lines
	flags *commonFlags
	diag  *diagLog
	s     *session.Session // set once started (under mu: the signal goroutine reads it)
	// stopCap stops the capture (see startCapture).
	stopCap func() error

	// ctx ends when the run closes, or at the first watched signal.
	ctx    context.Context
	cancel context.CancelFunc
	// sigs catches the watched signals and remembers the first.
	sigs *signalWatch

	mu sync.Mutex
}

// runSignals are the signals that end a run early (those linesman was
// started with ignored excepted: see [watchSignals]). Each ends the run's
// context; those in kill also kill the server's process group at once (the
// inspector's hangup: the terminal is gone, nobody will quit the UI).
type runSignals struct {
	sigs []os.Signal
	kill []os.Signal
}

// kills reports whether sig is one of sig.kill.
func (rs runSignals) kills(sig os.Signal) bool {
	for _, k := range rs.kill {
		if k == sig {
			return true
		}
	}
	return false
}

// startServerRun watches the signals, opens the --log file, starts the
// server and its capture. When it cannot, it has said why on stderr and
// cleaned up, and returns a nil run and the exit status; startErr is the
// session's start error, for a report of a server that never ran.
func startServerRun(name string, flags *commonFlags, cfg session.Config, stderr io.Writer, sig runSignals) (r *serverRun, status int, startErr error) {
	run := &serverRun{name: name, flags: flags}
	run.ctx, run.cancel = context.WithCancel(context.Background())
	run.watch(sig)
	defer func() {
		if r == nil { // the signals stay caught; their goroutine ends
			run.sigs.close()
			run.cancel()
		}
	}()
	r = run
	diag, err := openDiagLog(flags.logFile, name, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --log: %s\n", name, inertErr(err))
		return nil, exitUsage, nil
	}
	r.diag = diag
	s, err := session.Start(cfg)
	if err != nil {
		diag.logf("cannot start %q: %v", cfg.Command, err)
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		diag.Close()
		return nil, exitFindings, err
	}
	r.mu.Lock()
	r.s = s
	r.mu.Unlock()
	if first, ok := r.sigs.first(); ok && sig.kills(first) {
		s.Kill() // the signal came while the server was starting
	}
	stopCap, err := startCapture(flags, s.Log(), cfg.Command)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		s.Kill()
		waitBounded(s.Done(), drainMargin)
		diag.Close()
		return nil, exitFindings, nil
	}
	r.stopCap = stopCap
	diag.logf("started %q, pid %d", cfg.Command, s.Info().Pid)
	return r, 0, nil
}

// logf writes a line to the --log file (nowhere without --log).
func (r *serverRun) logf(format string, a ...any) { r.diag.logf(format, a...) }

// watch catches sig.sigs for the rest of the process's life (see
// [watchSignals]); until the shutdown each one ends r.ctx, and those in
// sig.kill kill the group.
func (r *serverRun) watch(sig runSignals) {
	r.sigs = watchSignals(sig.sigs, func(got os.Signal) {
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

// signalStatus is the exit status of a run a watched signal stopped
// ([report.SignalStatus] of the first); ok is false when none came.
func (r *serverRun) signalStatus() (status int, ok bool) { return r.sigs.status() }

// shutdown runs the shutdown ladder (stdin closed, SIGTERM, SIGKILL) and
// waits for the session to end, bounded: by the ladder's own waits plus a
// margin, after which — or at a watched signal, which now means "stop
// waiting" — the process group is killed; then by a margin for the readers
// to drain, after which what was logged is what there is.
func (r *serverRun) shutdown() {
	r.sigs.setAction(func(os.Signal) {
		r.logf("interrupted during the shutdown ladder; killing the process group")
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
	r.sigs.setAction(func(os.Signal) {}) // the server is gone: a late signal changes nothing
	info := r.s.Info()
	r.logf("ended: %s, exit code %d, signal %q, ended by %s", info.State, info.ExitCode, info.Signal, info.EndedBy)
}

// stopCapture writes what is left of the log to the capture and closes it;
// call it after shutdown, once nothing more is logged.
func (r *serverRun) stopCapture() error { return r.stopCap() }

// close ends the run's context and closes the --log file. The watched
// signals stay caught, and now do nothing, until linesman exits (see
// [signalWatch.close]).
func (r *serverRun) close() {
	r.sigs.close()
	r.cancel()
	r.diag.Close()
}

// stopSignals are the signals that make a headless run stop waiting, shut
// the server down and report: ^C, kill, and a hangup (the terminal closed),
// but those linesman was started with ignored.
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
