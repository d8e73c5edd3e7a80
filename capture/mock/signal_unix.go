//go:build unix

package mock

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// signals are the signals a mock can end by as its recording did: those
// the Go runtime, asked for nothing, dies of.
var signals = map[string]syscall.Signal{
	"SIGHUP": syscall.SIGHUP, "SIGINT": syscall.SIGINT,
	"SIGTERM": syscall.SIGTERM, "SIGKILL": syscall.SIGKILL,
}

// Raise ends the process by the named signal, as the recorded server
// ended. It returns (128+n, for the caller to exit with) only for a signal
// the runtime would not die of (SIGSEGV sent by kill is ignored by Go), or
// when the signal is unknown.
func Raise(name string) int {
	sig, ok := signals[name]
	if !ok {
		if n := unix.SignalNum(name); n != 0 {
			return 128 + int(n)
		}
		return 1
	}
	signal.Reset(sig)
	syscall.Kill(os.Getpid(), sig)
	select {} // the signal ends us
}

// holdOn keeps the mock alive after its stdin closed, as the recorded
// server did until sig ended it: a server that needed SIGKILL ignored
// SIGTERM.
func holdOn(sig string) {
	if sig == "SIGKILL" {
		signal.Ignore(syscall.SIGTERM)
	}
	// A sleeper keeps the runtime from taking the wait for a deadlock.
	go func() {
		for {
			time.Sleep(time.Hour)
		}
	}()
}
