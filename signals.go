package main

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"linesman/session/report"
)

// The exit status policy for signals, the same in every mode that outlives
// a moment (the inspector, check, send, view):
//
//   - SIGINT, SIGTERM and SIGHUP from outside stop the run early; linesman
//     still shuts its server down (and reports, headless), then exits with
//     128+n ([report.SignalStatus]): 130, 143, 129, the status a shell
//     reports for a death by that signal. The first signal decides.
//   - A user who quits the inspector or view with q or ctrl+c (keys, read
//     in raw mode: no signal is sent) ends it normally: 0.
//   - A signal linesman was started with ignored (nohup, a background job)
//     stays ignored.
//   - tap is the server's stand-in: it passes the signal to the server's
//     group and exits with the server's status, a death by signal n being
//     128+n as well.
//   - The short modes (explain, export, taps, wrap) keep the default action:
//     a shell reports their death by signal n as 128+n too.

// A signalWatch catches a set of signals for the rest of the process's life
// and remembers the first that arrived; each one runs the current action.
// Catching never stops (a signal in the moment before the exit must not
// turn the decided status into a death by signal); after close the signals
// do nothing. The signal package drops what the full channel cannot take:
// a signal never blocks.
type signalWatch struct {
	firstSig atomic.Int32 // the first signal's number; 0: none yet

	mu     sync.Mutex
	action func(os.Signal)
	closed chan struct{}
}

// watchSignals catches those of sigs that linesman was not started with
// ignored, and runs action for each until the action changes or the watch
// closes. A signal ignored at start stays ignored (Notify would install a
// handler): under nohup a hangup must not end the run, and a background
// job (^C ignored) must not be interrupted by one.
func watchSignals(sigs []os.Signal, action func(os.Signal)) *signalWatch {
	w := &signalWatch{action: action, closed: make(chan struct{})}
	var watched []os.Signal
	for _, s := range sigs {
		if !signal.Ignored(s) {
			watched = append(watched, s)
		}
	}
	if len(watched) == 0 {
		return w // Notify with no signals would relay every signal
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, watched...)
	go func() {
		for {
			select {
			case got := <-c:
				if n, ok := got.(syscall.Signal); ok {
					w.firstSig.CompareAndSwap(0, int32(n))
				}
				w.mu.Lock()
				f := w.action
				w.mu.Unlock()
				f(got)
			case <-w.closed:
				return
			}
		}
	}()
	return w
}

// setAction changes what a signal does from now on.
func (w *signalWatch) setAction(f func(os.Signal)) {
	w.mu.Lock()
	w.action = f
	w.mu.Unlock()
}

// first is the first signal that arrived; ok is false when none did.
func (w *signalWatch) first() (sig syscall.Signal, ok bool) {
	n := w.firstSig.Load()
	return syscall.Signal(n), n != 0
}

// status is linesman's exit status after the first signal
// ([report.SignalStatus]); ok is false when none arrived.
func (w *signalWatch) status() (status int, ok bool) {
	sig, ok := w.first()
	if !ok {
		return 0, false
	}
	return report.SignalStatus(sig), true
}

// close ends the actions; the signals stay caught, and do nothing, until
// linesman exits. Call it once.
func (w *signalWatch) close() { close(w.closed) }
