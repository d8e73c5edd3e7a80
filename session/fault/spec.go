// Package fault injects faults into a live conversation on purpose (tap
// --fault, mock --fault): an answer delayed, dropped, replaced by an error,
// cut, corrupted or preceded by a stray line; the server's stdout closed;
// the server killed. Every fault it injects is logged as an
// [eventlog.EventFault] before it takes effect, so a capture tells what was
// the server's and what was linesman's, and the fold charges the server for
// none of it.
//
// An [Injector] sits on the host's side of the wire: it reads the host's
// requests (to know what each answer answers) and passes the server's
// stdout on, line by line, changed where a spec says. With no spec, nothing
// here is in the way: the tap passes bytes on as before.
package fault

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"linesman/session/eventlog"
)

// Spec is one --fault: KIND[:ARG][@METHOD[:NAME]][#N].
//
//	delay:2s@tools/call:slow   hold the answers to tools/call of "slow" for 2s
//	drop@tools/list#2          never pass on the answer to the 2nd tools/list
//	error:-32000:busy@ping     answer ping with that JSON-RPC error instead
//	truncate@tools/call        cut the answer mid-line (its newline kept)
//	corrupt@initialize         put invalid UTF-8 into the answer
//	stray@tools/list           a stray stdout line before the answer
//	close-stdout@tools/call    close the server's stdout as the request passes
//	kill:SIGKILL#3             kill the server as the 3rd request passes
//
// NAME is a tool's or prompt's name, or a resource's uri. Without #N an
// answer fault applies to every matching request, and a kill or a close to
// the first.
type Spec struct {
	Raw          string
	Kind         eventlog.FaultKind
	Method, Name string
	Nth          int
	Delay        time.Duration
	Code         int
	Message      string
	Signal       syscall.Signal
}

// Parse reads one --fault spec.
func Parse(raw string) (Spec, error) {
	sp := Spec{Raw: raw}
	rest := raw
	if i := strings.LastIndexByte(rest, '#'); i >= 0 {
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil || n < 1 {
			return sp, fmt.Errorf("--fault %q: #N wants a count from 1", raw)
		}
		sp.Nth, rest = n, rest[:i]
	}
	if i := strings.IndexByte(rest, '@'); i >= 0 {
		sp.Method, sp.Name, _ = strings.Cut(rest[i+1:], ":")
		rest = rest[:i]
	}
	kind, arg, _ := strings.Cut(rest, ":")
	sp.Kind = eventlog.FaultKind(kind)
	if err := sp.parseArg(arg); err != nil {
		return sp, fmt.Errorf("--fault %q: %w", raw, err)
	}
	return sp, nil
}

func (sp *Spec) parseArg(arg string) error {
	switch sp.Kind {
	case eventlog.FaultDelay:
		d, err := time.ParseDuration(arg)
		if err != nil || d <= 0 {
			return fmt.Errorf("delay wants a duration, as delay:2s")
		}
		sp.Delay = d
	case eventlog.FaultError:
		code, msg, _ := strings.Cut(arg, ":")
		n, err := strconv.Atoi(code)
		if err != nil {
			return fmt.Errorf("error wants a code, as error:-32000:message")
		}
		sp.Code, sp.Message = n, msg
		if msg == "" {
			sp.Message = "injected by linesman"
		}
	case eventlog.FaultKill:
		if arg == "" {
			arg = "SIGKILL"
		}
		sp.Signal = unix.SignalNum(strings.ToUpper(arg))
		if sp.Signal == 0 {
			return fmt.Errorf("kill wants a signal, as kill:SIGTERM")
		}
	case eventlog.FaultDrop, eventlog.FaultTruncate, eventlog.FaultCorrupt, eventlog.FaultStray, eventlog.FaultCloseStdout:
		if arg != "" {
			return fmt.Errorf("%s takes no argument", sp.Kind)
		}
	default:
		return fmt.Errorf("unknown kind %q: want delay, drop, error, truncate, corrupt, stray, close-stdout or kill", sp.Kind)
	}
	return nil
}

// onRequest: the fault acts as the request passes (a kill, a close),
// rather than on its answer.
func (sp *Spec) onRequest() bool {
	return sp.Kind == eventlog.FaultKill || sp.Kind == eventlog.FaultCloseStdout
}

// targets reports whether a request of method and name is one sp aims at.
func (sp *Spec) targets(method, name string) bool {
	return (sp.Method == "" || sp.Method == method) && (sp.Name == "" || sp.Name == name)
}

func unixSignalName(sig syscall.Signal) string { return unix.SignalName(sig) }
