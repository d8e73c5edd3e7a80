package session

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
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

// noReaper turns the reaper helper off (benchmarks compare the two).
var noReaper bool

// startServer starts cmd, contained where it can be.
func startServer(cmd *exec.Cmd) (*serverProc, error) {
	if noReaper {
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return &serverProc{pid: cmd.Process.Pid, direct: cmd}, nil
	}
	if rc, err := startReaper(cmd); err == nil {
		return &serverProc{pid: rc.serverPid(), reaper: rc}, nil
	} else if !errors.Is(err, errNoReaper) {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
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
	return nil
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

// clearWait bounds how long linesman waits for the helper to clear a tree.
const clearWait = 5 * time.Second

// errNoReaper: the reaper helper is not available here; start directly.
var errNoReaper = errors.New("no reaper helper")
