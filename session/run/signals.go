package run

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"linesman/session/report"
)

// A Watch catches a set of signals for the rest of the process's life
// and remembers the first that arrived; each one runs the current action.
// Catching never stops (a signal in the moment before the exit must not
// turn the decided status into a death by signal); after [Watch.Close] the signals
// do nothing. The signal package drops what the full channel cannot take:
// a signal never blocks.
type Watch struct {
	firstSig atomic.Int32 // the first signal's number; 0: none yet

	mu     sync.Mutex
	action func(os.Signal)
	closed chan struct{}
}

// WatchSignals catches those of sigs that linesman was not started with
// ignored, and runs action for each until the action changes or the watch
// closes. A signal ignored at start stays ignored (Notify would install a
// handler): under nohup a hangup must not end the run, and a background
// job (^C ignored) must not be interrupted by one.
func WatchSignals(sigs []os.Signal, action func(os.Signal)) *Watch {
	w := &Watch{action: action, closed: make(chan struct{})}
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

// SetAction changes what a signal does from now on.
func (w *Watch) SetAction(f func(os.Signal)) {
	w.mu.Lock()
	w.action = f
	w.mu.Unlock()
}

// First is the first signal that arrived; ok is false when none did.
func (w *Watch) First() (sig syscall.Signal, ok bool) {
	n := w.firstSig.Load()
	return syscall.Signal(n), n != 0
}

// Status is linesman's exit status after the first signal
// ([report.SignalStatus]); ok is false when none arrived.
func (w *Watch) Status() (status int, ok bool) {
	sig, ok := w.First()
	if !ok {
		return 0, false
	}
	return report.SignalStatus(sig), true
}

// Close ends the actions; the signals stay caught, and do nothing, until
// linesman exits. Call it once.
func (w *Watch) Close() { close(w.closed) }

// StopSignals are the signals that make a headless run stop waiting, shut
// the server down and report: ^C, kill, and a hangup (the terminal closed),
// but those linesman was started with ignored.
func StopSignals() []os.Signal {
	var out []os.Signal
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(sig) {
			out = append(out, sig)
		}
	}
	return out
}

// WaitBounded waits for c to close, at most d; it reports whether it did.
func WaitBounded(c <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c:
		return true
	case <-t.C:
		return false
	}
}
