package run

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

// pollableStdin applies [pollable] to stdin when it is a file. Stdout is
// left blocking: a write to it blocks only while the host is slow to read,
// and then the blocked thread is what a flood wants. Polled, every full
// pipe cost the forwarder a park and an epoll wake-up, and under a flood of
// 1 KiB messages the tap forwarded at half a bare proxy's rate
// (BenchmarkTapFlood with the judge off: 0.9-1.3 s for 256 MiB polled,
// 0.68-0.74 s blocking, the proxy 0.67-0.70 s).
func pollableStdin(stdin io.Reader) (io.Reader, func()) {
	if f, ok := stdin.(*os.File); ok {
		return pollable(f)
	}
	return stdin, func() {}
}
