package tapctl

import (
	"os"

	"golang.org/x/sys/unix"
)

// peerUID is the user id of the process at the other end of conn.
func peerUID(conn *os.File) (int, bool) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return -1, true // unknown: served to nobody
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil || cerr != nil {
		return -1, true
	}
	return int(cred.Uid), true
}
