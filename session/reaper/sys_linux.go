//go:build linux

package reaper

import (
	"encoding/binary"
	"syscall"
	"unsafe"
)

// The few system calls the helper needs beyond package syscall, made
// directly: importing golang.org/x/sys/unix would put every package that
// sorts before it (the UI's among them) in front of the helper's start
// (see doc.go).

const (
	prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER

	pAll = 0 // waitid's idtypes
	pPid = 1

	cldExited = 1 // si_code of an exit; CLD_KILLED (2) and CLD_DUMPED (3) carry a signal
)

// siginfo is the kernel's siginfo_t (128 bytes): si_signo, si_errno and
// si_code, then, for SIGCHLD, si_pid, si_uid and si_status, aligned to a
// pointer.
type siginfo [128]byte

func (s *siginfo) code() int { return int(int32(binary.NativeEndian.Uint32(s[8:]))) }

// field returns the k-th int of a SIGCHLD siginfo's fields: 0 si_pid, 1
// si_uid, 2 si_status.
func (s *siginfo) field(k int) int {
	at := 3 * 4
	if unsafe.Sizeof(uintptr(0)) == 8 {
		at = 4 * 4
	}
	return int(int32(binary.NativeEndian.Uint32(s[at+4*k:])))
}

// waitid is waitid(2) without its rusage argument.
func waitid(idtype, id int, info *siginfo, options int) error {
	_, _, e := syscall.Syscall6(syscall.SYS_WAITID, uintptr(idtype), uintptr(id), uintptr(unsafe.Pointer(info)), uintptr(options), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// prctl is prctl(2) with one argument.
func prctl(option, arg int) error {
	_, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, uintptr(option), uintptr(arg), 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
