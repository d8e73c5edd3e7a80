package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerUID is the user id of the process at the other end of conn.
func peerUID(conn *net.UnixConn) (int, bool) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, false
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil || cerr != nil {
		return -1, true // unknown: served to nobody
	}
	return int(cred.Uid), true
}

func umask(m int) int { return unix.Umask(m) }
