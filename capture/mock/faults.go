package mock

import (
	"io"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"linesman/session/eventlog"
	"linesman/session/fault"
)

// injectFaults puts an injector of the options' faults between the mock
// and its client, as the tap puts one between a server and its host: the
// client's bytes go past it as they are read (so it knows what each answer
// answers, and when a request sets off a kill or a close), and the mock's
// stdout goes through it. The mock keeps no log: each fault is said on
// stderr, "linesman mock: injected: ...", before it takes effect. A kill
// ends the mock by the signal; a close-stdout closes its stdout.
func (srv *server) injectFaults() {
	inj := fault.New(srv.opts.Faults, srv.opts.Stdout)
	var errMu sync.Mutex // the injector says a fault from inside a write that holds outMu
	stdout, stderr := srv.opts.Stdout, srv.opts.Stderr
	inj.SetTarget(fault.Target{
		Record: func(ev eventlog.Event) {
			errMu.Lock()
			defer errMu.Unlock()
			io.WriteString(stderr, "linesman mock: "+ev.Note+"\n")
		},
		Signal: func(sig syscall.Signal) {
			srv.killed.Store(true)
			srv.end(Exit{Signal: unix.SignalName(sig)})
		},
		CloseStdout: func() {
			if c, ok := stdout.(io.Closer); ok {
				c.Close()
			}
		},
	})
	srv.opts.Stdout = inj
	srv.opts.Stdin = io.TeeReader(srv.opts.Stdin, hostSide{inj})
}

// hostSide feeds what the client wrote to the injector.
type hostSide struct{ inj *fault.Injector }

func (h hostSide) Write(b []byte) (int, error) {
	h.inj.Host(b)
	return len(b), nil
}
