package main

import (
	"io"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// pollable returns a file the Go runtime polls for f, when f is a pipe or a
// socket in blocking mode (how a host hands the tap its stdin and stdout),
// and a function that puts the blocking mode back. Otherwise it returns f
// itself.
//
// A read or write that blocks in the kernel holds a thread, and the
// runtime hands its processor to another thread each time one blocks for
// long: a tap's read of stdin blocks between every two messages, and
// strace showed the runtime's monitor waking every 20 µs all through a
// ping-pong to take the processor back. A polled file parks only the
// goroutine. A terminal is left alone: its mode is shared with the shell.
func pollable(f *os.File) (*os.File, func()) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f, func() {}
	}
	fd := int(f.Fd()) // (Fd leaves a blocking-mode file as it is)
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return f, func() {}
	}
	if fl&unix.O_NONBLOCK == 0 {
		if err := unix.SetNonblock(fd, true); err != nil {
			return f, func() {}
		}
	}
	// A second File for the descriptor, which sees it in non-blocking
	// mode and so registers it with the poller (the first does not know).
	polled := os.NewFile(uintptr(fd), f.Name())
	return polled, func() {
		if fl&unix.O_NONBLOCK == 0 {
			unix.SetNonblock(fd, false)
		}
		runtime.KeepAlive(polled) // its finalizer would close fd
	}
}

// pollableStdio applies [pollable] to stdin and stdout when they are files.
func pollableStdio(stdin io.Reader, stdout io.Writer) (io.Reader, io.Writer, func()) {
	restoreIn, restoreOut := func() {}, func() {}
	if f, ok := stdin.(*os.File); ok {
		stdin, restoreIn = pollable(f)
	}
	if f, ok := stdout.(*os.File); ok {
		stdout, restoreOut = pollable(f)
	}
	return stdin, stdout, func() { restoreIn(); restoreOut() }
}
