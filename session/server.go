package session

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"linesman/wire"
)

// serverProc is the started server as a proc sees it: its pid (also its
// process group), its exit status, and what is left of its tree at the end.
// On Linux a reaper helper stands between linesman and the server (see
// reaper_linux.go) and contains the whole tree; where it cannot be started,
// and on other systems, the server is linesman's own child ("direct") and
// only its process group can be signalled.
type serverProc struct {
	pid int

	direct *exec.Cmd // the server itself, when started directly
	reaper *reaperConn
}

// leftover is a process of the server's tree killed at the session's end.
type leftover struct {
	Pid, Pgid, Sid int
	Comm           string
}

// errReaperLost is the exit error when the reaper helper died before it
// could say how the server ended.
var errReaperLost = errors.New("the reaper helper ended before the server's exit status was known")

// errContainmentLost qualifies the exit of a server whose reaper helper
// was killed or stopped by its own tree (see lost_linux.go).
var errContainmentLost = errors.New("its reaper helper was lost; linesman ended the tree")

// noReaper turns the reaper helper off (benchmarks compare the two).
var noReaper bool

// startServer starts cmd, contained where it can be.
func startServer(cmd *exec.Cmd) (*serverProc, error) {
	if noReaper {
		return startDirect(cmd)
	}
	if rc, err := startReaper(cmd); err == nil {
		return &serverProc{pid: rc.serverPid(), reaper: rc}, nil
	} else if !errors.Is(err, errNoReaper) {
		return nil, err
	}
	return startDirect(cmd)
}

// startDirect starts cmd as linesman's own child.
func startDirect(cmd *exec.Cmd) (*serverProc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	markStarted(cmd.Process.Pid)
	return &serverProc{pid: cmd.Process.Pid, direct: cmd}, nil
}

// waitExit waits for the server's exit without reaping it where the
// platform allows (see waitNoReap), so the group id stays the server's.
func (sp *serverProc) waitExit() (code int, sig syscall.Signal, err error) {
	if sp.reaper != nil {
		return sp.reaper.waitExit()
	}
	return waitExit(sp.direct)
}

// end reaps the server and SIGKILLs every process left of its tree,
// wherever it went (its own session, a double fork), and says which.
// Direct: only the reap (the caller signals the group).
func (sp *serverProc) end() []leftover {
	if sp.reaper != nil {
		return sp.reaper.end()
	}
	reap(sp.direct)
	unmarkStarted(sp.pid)
	return nil
}

// lostNote says what linesman did when the server's tree killed or
// stopped its containment helper; "" when it did not.
func (sp *serverProc) lostNote() string {
	if sp.reaper == nil {
		return ""
	}
	return sp.reaper.lostNote()
}

// ours keeps the pids that are descendants of the server's tree: only they
// may be signalled. An unrelated process that merely opened the server's
// pipe (through /proc/PID/fd, say) is not.
func (sp *serverProc) ours(pids []int) (mine, strangers []int) {
	root := 0
	if sp.reaper != nil {
		root = sp.reaper.helperPid()
	}
	for _, pid := range pids {
		if isOurDescendant(pid, root) {
			mine = append(mine, pid)
		} else {
			strangers = append(strangers, pid)
		}
	}
	return mine, strangers
}

// leftoverNote says what clearing the tree did, naming the processes that
// had left the server's process group (the comm names are the processes'
// own words: inert).
func leftoverNote(pgid int, left []leftover) string {
	var in, out []string
	for _, l := range left {
		name := fmt.Sprintf("%d %s", l.Pid, wire.VisibleString(l.Comm, wire.Pictures))
		if l.Pgid == pgid {
			in = append(in, name)
			continue
		}
		how := "its own process group"
		if l.Sid != pgid {
			how = "its own session"
		}
		out = append(out, fmt.Sprintf("%s, in %s", name, how))
	}
	var what []string
	if len(in) > 0 {
		what = append(what, fmt.Sprintf("%d process(es) left in the server's process group (pid %s)", len(in), strings.Join(in, "; ")))
	}
	if len(out) > 0 {
		what = append(what, fmt.Sprintf("%d descendant(s) that had escaped the server's process group (pid %s)", len(out), strings.Join(out, "; ")))
	}
	if len(what) == 0 {
		return ""
	}
	return "SIGKILL sent to " + strings.Join(what, " and ") + " after the server exited"
}

// startedPids are the session processes linesman started itself (helpers
// and servers started directly), until they are reaped: a process that
// merely became linesman's child (an orphan it adopted as a subreaper) is
// not among them.
var startedPids struct {
	sync.Mutex
	m map[int]bool
}

func markStarted(pid int) {
	startedPids.Lock()
	defer startedPids.Unlock()
	if startedPids.m == nil {
		startedPids.m = map[int]bool{}
	}
	startedPids.m[pid] = true
}

func unmarkStarted(pid int) {
	startedPids.Lock()
	defer startedPids.Unlock()
	delete(startedPids.m, pid)
}

func startedByUs(pid int) bool {
	startedPids.Lock()
	defer startedPids.Unlock()
	return startedPids.m[pid]
}

// clearWait bounds how long linesman waits for the helper to clear a tree.
const clearWait = 5 * time.Second

// errNoReaper: the reaper helper is not available here; start directly.
var errNoReaper = errors.New("no reaper helper")
