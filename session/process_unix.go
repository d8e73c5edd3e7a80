//go:build unix && !linux

package session

import (
	"os"
	"os/exec"
	"syscall"
)

// sysProcAttr starts the child in a session (and so a process group) of its
// own: terminal signals aimed at linesman never reach it, shutdown can signal
// the whole group, and it has no controlling terminal (no /dev/tty). There is
// no parent-death signal outside Linux.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// groupMembers is not available without /proc.
func groupMembers(pgid int) []int { return nil }

// closeInheritedOnExec marks the descriptors above stderr close-on-exec,
// so that exec hands the server none of ours.
func closeInheritedOnExec() {
	for fd := 3; fd < 1024; fd++ {
		syscall.CloseOnExec(fd)
	}
}

// growPipe: pipe sizes are fixed outside Linux.
func growPipe(f *os.File) {}

// pipeBuffered is unknown here: the caller waits for its bound instead.
func pipeBuffered(f *os.File) int64 { return 0 }

// pipeHolders is not available without /proc.
func pipeHolders(files ...*os.File) []int { return nil }

// waitExit waits for cmd's process and reaps it: there is no way to wait
// without reaping here, so a group signal after the exit could, in a rare
// race with pid reuse, reach a process that got the recycled number.
func waitExit(cmd *exec.Cmd) (code int, sig syscall.Signal, err error) { return waitReap(cmd) }

// reap: waitExit already did.
func reap(cmd *exec.Cmd) {}

// startReaper: the reaper helper needs Linux (PR_SET_CHILD_SUBREAPER).
func startReaper(cmd *exec.Cmd) (*reaperConn, error) { return nil, errNoReaper }

// reaperConn is never made outside Linux.
type reaperConn struct{}

func (*reaperConn) waitExit() (int, syscall.Signal, error) { return -1, 0, errReaperLost }
func (*reaperConn) end() []leftover                        { return nil }
func (*reaperConn) helperPid() int                         { return 0 }
func (*reaperConn) serverPid() int                         { return 0 }
func (*reaperConn) lostNote() string                       { return "" }

// isOurDescendant cannot be told without /proc: nobody outside the group
// is signalled.
func isOurDescendant(pid, root int) bool { return false }

// exitedNow is not known without /proc: the ladder goes by what wait saw.
func exitedNow(pid int) bool { return false }

// procName is not known without /proc.
func procName(pid int) string { return "" }
