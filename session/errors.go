package session

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Reasons a server could not be started (StartError.Reason).
const (
	StartEmptyCommand  = "empty-command"  // no command was given
	StartNotFound      = "not-found"      // argv[0] is not in PATH, or the path does not exist
	StartNotExecutable = "not-executable" // it exists but is a directory, lacks the execute bit, or has an unknown format
	StartBadCwd        = "bad-cwd"        // the working directory does not exist or is not a directory
	StartFailed        = "start-failed"   // anything else the kernel refused (fork limits, pipes, ...)
)

// StartError says why a server could not be started. It is returned by Start
// at once, before any process exists.
type StartError struct {
	Reason  string   // one of the Start* reasons
	Command []string // argv as given
	Path    string   // the program as resolved, when it got that far
	Dir     string   // the working directory asked for
	Err     error    // the underlying cause
}

func (e *StartError) Error() string {
	name := ""
	if len(e.Command) > 0 {
		name = e.Command[0]
	}
	var what, hint string
	switch e.Reason {
	case StartEmptyCommand:
		return "cannot start the server: no command given (put it after --)"
	case StartNotFound:
		what, hint = "not found", "check the name, or give its full path"
		if !strings.Contains(name, "/") {
			what, hint = "not found in PATH", "check the name, give its full path, or fix PATH (-e PATH=...)"
		}
		if f := strings.Fields(name); len(f) > 1 {
			// "command": "npx -y pkg" in a host's config: hosts run the
			// command as one program, without a shell, and so does linesman.
			hint = fmt.Sprintf("the name holds spaces, and a command is one program, run without a shell: give %q alone as the command and the rest as its arguments (args in a host's config)", f[0])
		}
	case StartNotExecutable:
		what, hint = "not executable", "chmod +x it, or run it through its interpreter (python3 server.py)"
	case StartBadCwd:
		return fmt.Sprintf("cannot start %q: bad working directory %q: %v", name, e.Dir, e.Err)
	default:
		what = "start failed"
	}
	msg := fmt.Sprintf("cannot start %q: %s", name, what)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if hint != "" {
		msg += " (" + hint + ")"
	}
	return msg
}

// notInPath says where a command name was looked for; it is exec.ErrNotFound.
type notInPath struct{ dirs int }

func (e notInPath) Error() string        { return fmt.Sprintf("looked in %d directories", e.dirs) }
func (e notInPath) Is(target error) bool { return target == exec.ErrNotFound }

func (e *StartError) Unwrap() error { return e.Err }

// ExitedError is returned by Send when the server process has exited. It
// carries how the process ended and the last lines it wrote to stderr, which
// usually say why.
type ExitedError struct {
	Pid        int
	ExitCode   int    // -1 when a signal ended it
	Signal     string // e.g. "SIGKILL", or ""
	StderrTail []string
}

func (e *ExitedError) Error() string {
	var b strings.Builder
	if e.Signal != "" {
		fmt.Fprintf(&b, "server exited (killed by %s)", e.Signal)
	} else {
		fmt.Fprintf(&b, "server exited with code %d", e.ExitCode)
	}
	if len(e.StderrTail) == 0 {
		b.WriteString("; it wrote nothing to stderr")
		return b.String()
	}
	b.WriteString("; last stderr: ")
	for i, l := range e.StderrTail {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(l)
	}
	return b.String()
}

// ErrQueueFull is returned by Send when the bytes already queued for the
// server's stdin exceed Config.QueueLimit: the server is not reading its
// input fast enough (see the stdin-not-read finding). Nothing was queued.
var ErrQueueFull = errors.New("too much is already waiting to be written to the server's stdin: the server is not reading its input")

// ErrStdinClosed is returned by Send when the server's stdin is closed but
// the process has not exited (yet): a shutdown is under way, or the server
// closed its end of the pipe.
var ErrStdinClosed = errors.New("the server's stdin is closed")
