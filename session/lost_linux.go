package session

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"0linesman/reaper"
	"linesman/wire"
)

// Containment that survives its own helper's death.
//
// The helper is a process like any other of the user's: the server's tree
// can SIGKILL it (kill -KILL $PPID) or SIGSTOP it. Killed, its children —
// the server and the orphans it had adopted, a double-forked daemon among
// them — would go to init, out of reach; stopped, it relays nothing and
// kills nothing, and linesman waited for its word until a bound ran out.
//
// So linesman is a child subreaper too (set once, before its first helper
// starts): when a helper dies, what it held becomes linesman's child, not
// init's. A watchdog per helper waits on a pidfd for the helper to stop or
// to exit without having said "C". Then linesman takes containment over:
// a stopped helper's tree is still below it and is killed there, then the
// helper itself; what a dead helper left is found among linesman's own
// children — a process linesman adopted (not one it started), in a session
// other than linesman's (the server's tree never shares it: the server
// starts in a session of its own and no process can join another session),
// started after the helper — and killed with its descendants, round after
// round until none is left. The server's zombie, adopted with the rest,
// gives the real exit status. The session's notes say containment was lost
// and name every process killed, and any that could not be.
//
// It cannot survive linesman's own death together with its helper's: then
// the tree goes to init. A cgroup would be the only answer to that (see
// reaper_linux.go).

var (
	subreaperOnce sync.Once
	subreaperErr  error
)

// becomeSubreaper makes linesman the subreaper of its own descendants, once.
func becomeSubreaper() error {
	subreaperOnce.Do(func() {
		subreaperErr = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	})
	return subreaperErr
}

// lostContainment is what linesman did when a helper was lost.
type lostContainment struct {
	how     string     // "killed by SIGKILL", "stopped by SIGSTOP", ...
	killed  []leftover // the processes of the tree linesman SIGKILLed
	escaped []leftover // those still alive after the last round
	adopted bool       // linesman is a subreaper: it could find the tree
}

// note is the session note of a lost containment.
func (l *lostContainment) note(helper int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "containment lost: the reaper helper (pid %d) was %s by a process of the server's tree before the session's end", helper, l.how)
	if !l.adopted {
		b.WriteString("; linesman could not become a subreaper, so what the helper held went to init and may still run")
	}
	if len(l.killed) > 0 {
		fmt.Fprintf(&b, "; linesman took containment over and sent SIGKILL to %d process(es) of the tree (pid %s)", len(l.killed), describeLeft(l.killed))
	}
	if len(l.escaped) > 0 {
		fmt.Fprintf(&b, "; %d process(es) escaped containment and may still run (pid %s)", len(l.escaped), describeLeft(l.escaped))
	}
	return b.String()
}

func describeLeft(left []leftover) string {
	names := make([]string, len(left))
	for i, l := range left {
		names[i] = fmt.Sprintf("%d %s", l.Pid, wire.VisibleString(l.Comm, wire.Pictures))
	}
	return strings.Join(names, "; ")
}

// helperChange is what waitid told of a helper: it stopped or exited.
type helperChange struct {
	stopped bool
	how     string
	clean   bool // exited with code 0
}

// waitHelperChange blocks until the helper behind pidfd fd stops or exits,
// without reaping it. ok is false when it cannot tell (already reaped).
func waitHelperChange(fd int, options int) (helperChange, bool) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PIDFD, fd, &info, options|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return helperChange{}, false
		}
		break
	}
	raw := (*[128]byte)(unsafe.Pointer(&info))
	status := int(*(*int32)(unsafe.Pointer(&raw[siStatusOffset])))
	switch info.Code {
	case 1: // CLD_EXITED
		return helperChange{how: fmt.Sprintf("ended (exit code %d)", status), clean: status == 0}, true
	case 4, 5: // CLD_TRAPPED, CLD_STOPPED
		return helperChange{stopped: true, how: "stopped by " + signalName(syscall.Signal(status))}, true
	default: // CLD_KILLED, CLD_DUMPED
		return helperChange{how: "killed by " + signalName(syscall.Signal(status))}, true
	}
}

// siStatusOffset is si_status's offset in a SIGCHLD siginfo: after
// si_signo, si_errno, si_code (and padding to a pointer), si_pid, si_uid.
var siStatusOffset = func() uintptr {
	if unsafe.Sizeof(uintptr(0)) == 8 {
		return 24
	}
	return 20
}()

// watch is the helper's watchdog: it waits for the helper to stop, or to
// exit before its "C", and then takes containment over.
func (rc *reaperConn) watch(fd int) {
	defer close(rc.watchDone)
	defer unix.Close(fd)
	lostStatus := exitStatus{-1, 0, errReaperLost}
	defer func() { rc.deliver(lostStatus) }() // a no-op once the exit was told
	ch, ok := waitHelperChange(fd, unix.WEXITED|unix.WSTOPPED)
	if !ok {
		<-rc.eventsDone
		return
	}
	var below []leftover
	if ch.stopped {
		below = killBelow(rc.helper)
		syscall.Kill(rc.helper, syscall.SIGKILL)
		waitHelperChange(fd, unix.WEXITED)
	}
	<-rc.eventsDone
	if !ch.stopped && (rc.gotC.Load() || rc.closing.Load() && ch.clean) {
		return // the ordinary end
	}
	lost := &lostContainment{how: ch.how, adopted: becomeSubreaper() == nil}
	var server *exitStatus
	lost.killed, lost.escaped, server = sweepAdopted(rc.helperStart, rc.pid)
	lost.killed = append(below, lost.killed...)
	if server != nil {
		server.err = errContainmentLost
		lostStatus = *server
	}
	rc.lostMu.Lock()
	rc.lost = lost
	rc.lostMu.Unlock()
}

// killBelow SIGKILLs every live descendant of a stopped helper, round
// after round until none is left (its orphans stay below it: it is still
// their subreaper, stopped or not). Bounded, like the helper's killTree.
func killBelow(root int) (killed []leftover) {
	seen := map[int]bool{}
	for round := 0; round < 10000; round++ {
		live := 0
		for _, p := range reaper.Descendants(reaper.ReadProcs(), root) {
			if p.State == 'Z' || p.State == 'X' {
				continue
			}
			live++
			if syscall.Kill(p.Pid, syscall.SIGKILL) == nil && !seen[p.Pid] {
				seen[p.Pid] = true
				killed = append(killed, leftover{Pid: p.Pid, Pgid: p.Pgrp, Sid: p.Sid, Comm: p.Comm})
			}
		}
		if live == 0 {
			return killed
		}
		time.Sleep(time.Millisecond)
	}
	return killed
}

// sweepAdopted kills what a lost helper left to linesman (see the top of
// this file) and reaps it; it returns the processes killed, those still
// alive after the last round, and the server's exit when its zombie was
// among them.
func sweepAdopted(since uint64, server int) (killed, escaped []leftover, serverExit *exitStatus) {
	self := os.Getpid()
	me, _ := reaper.ReadProc(self)
	seen := map[int]bool{}
	quiet := 0
	for round := 0; round < 10000 && quiet < 3; round++ {
		procs := reaper.ReadProcs()
		var tree []reaper.Proc
		for _, c := range procs {
			if c.Ppid == self && c.Sid != me.Sid && c.Start >= since && !startedByUs(c.Pid) {
				tree = append(tree, c)
				tree = append(tree, reaper.Descendants(procs, c.Pid)...)
			}
		}
		if len(tree) == 0 {
			quiet++
			time.Sleep(time.Millisecond)
			continue
		}
		quiet = 0
		for _, p := range tree {
			if p.State == 'Z' || p.State == 'X' {
				if p.Ppid == self {
					if st, ok := reapAdopted(p.Pid); ok && p.Pid == server {
						serverExit = &st
					}
				}
				continue
			}
			if syscall.Kill(p.Pid, syscall.SIGKILL) == nil && !seen[p.Pid] {
				seen[p.Pid] = true
				killed = append(killed, leftover{Pid: p.Pid, Pgid: p.Pgrp, Sid: p.Sid, Comm: p.Comm})
			}
		}
		if round == 9999 {
			for _, p := range tree {
				if p.State != 'Z' && p.State != 'X' {
					escaped = append(escaped, leftover{Pid: p.Pid, Pgid: p.Pgrp, Sid: p.Sid, Comm: p.Comm})
				}
			}
		}
	}
	return killed, escaped, serverExit
}

// reapAdopted reaps an adopted zombie and returns its exit.
func reapAdopted(pid int) (exitStatus, bool) {
	var ws syscall.WaitStatus
	if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got != pid || err != nil {
		return exitStatus{}, false
	}
	if ws.Signaled() {
		return exitStatus{-1, ws.Signal(), nil}, true
	}
	return exitStatus{ws.ExitStatus(), 0, nil}, true
}
