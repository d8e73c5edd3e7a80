//go:build unix

package run

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// hostHungUp reports whether the host has closed its end of r, the tap's
// stdin as the host made it: a pipe whose every writer closed polls
// POLLHUP, a socket the host shut down for writing (Node's child stdio is a
// socket pair) POLLRDHUP, even while bytes the tap has not read yet wait
// in it. Anything else (a terminal, a file, a reader that is not a file)
// says no.
func hostHungUp(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	hung := false
	rc.Control(func(fd uintptr) {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN | pollReadHangUp}}
		for {
			_, err := unix.Poll(pfd, 0)
			if err == unix.EINTR {
				continue
			}
			hung = err == nil && pfd[0].Revents&(unix.POLLHUP|pollReadHangUp) != 0
			return
		}
	})
	return hung
}
