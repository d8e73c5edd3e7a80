package tapctl

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Unix stream sockets as *os.File, through golang.org/x/sys/unix: the net
// package would bring cgo's resolver into the binary, which is static
// (TestBinaryIsStatic). The files are non-blocking, so their reads, writes
// and accepts wait in the runtime's poller and honour deadlines and Close.

// newUnixSocket opens a stream socket that no child inherits.
func newUnixSocket() (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	return fd, err
}

// listenUnix binds a stream socket at path, made under umask 0177 (mode
// 0600), and listens on it.
func listenUnix(path string) (*os.File, error) {
	fd, err := newUnixSocket()
	if err != nil {
		return nil, err
	}
	old := unix.Umask(0o177)
	err = unix.Bind(fd, &unix.SockaddrUnix{Name: path})
	unix.Umask(old)
	if err == nil {
		err = unix.Listen(fd, 8)
	}
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "listen", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// acceptUnix waits for a connection on ln; it fails once ln is closed.
func acceptUnix(ln *os.File) (*os.File, error) {
	rc, err := ln.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var aerr error
	err = rc.Read(func(fd uintptr) bool {
		syscall.ForkLock.RLock()
		nfd, _, aerr = unix.Accept(int(fd))
		if aerr == nil {
			unix.CloseOnExec(nfd)
		}
		syscall.ForkLock.RUnlock()
		return !errors.Is(aerr, unix.EAGAIN)
	})
	if err == nil {
		err = aerr
	}
	if err == nil {
		err = unix.SetNonblock(nfd, true)
		if err != nil {
			unix.Close(nfd)
		}
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), "controller"), nil
}

// dialUnix connects to the stream socket at path.
func dialUnix(path string) (*os.File, error) {
	fd, err := newUnixSocket()
	if err != nil {
		return nil, err
	}
	err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "dial", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
