package demo

import (
	"errors"
	"os"
)

// ErrIsolationUnsupported is returned by Isolate where the descriptor dance
// is not implemented (everything but Linux, for now).
var ErrIsolationUnsupported = errors.New("demo: stdio isolation is only implemented on Linux")

// Isolation is the state of an isolated process: the protocol is served from
// private duplicates of the original fd 0 and fd 1, while fd 0 reads the null
// device and fd 1 writes to stderr. It exists so that anything else in the
// process that writes to "standard output" — a stray fmt.Println, a log
// library, a child process that inherits fd 1 — cannot corrupt the wire.
//
// In and Out are owned by the Isolation: Restore closes them.
type Isolation struct {
	// In is a private duplicate of the original fd 0 (descriptor ≥ 3,
	// close-on-exec): the protocol's input.
	In *os.File
	// Out is a private duplicate of the original fd 1 (descriptor ≥ 3,
	// close-on-exec): the protocol's output.
	Out *os.File

	inFd, outFd int
	restored    bool
}
