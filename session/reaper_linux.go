package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"0linesman/reaper"
)

// Containment on Linux: a reaper between linesman and the server.
//
// A parent-death signal reaches only the direct child, and a process that
// double-forks, calls setsid or re-forks ("hydra") leaves the server's
// process group, so neither the group nor the parent-death signal can end
// the whole tree. Two ways were weighed (measured on this machine, Linux
// 6.18, cgroup v1+v2 hybrid):
//
//   - a cgroup v2 per session, emptied with cgroup.kill: atomic, but only
//     where linesman may create cgroups (here only as root, in the v2
//     half of a hybrid mount; read-only in most containers; on desktops
//     only inside a delegated systemd subtree), and a killed linesman still
//     needs a helper to write cgroup.kill;
//   - a subreaper: PR_SET_CHILD_SUBREAPER makes every orphan of the tree a
//     child of the subreaper instead of init, whatever it does (setsid,
//     double fork), so the tree stays findable by ancestry. Any user may
//     set it, in containers too.
//
// linesman takes the subreaper, and puts it in a small helper (the linesman
// binary re-run as [reaper.Arg0]) between itself and the server, because a
// subreaper must be an ancestor that outlives linesman: the helper starts
// the server, relays its pid and exit status, and kills the whole tree
// (repeatedly, until nothing is left, which also ends a hydra) when told
// at the session's end, or when its control pipe reaches EOF because
// linesman died, even by SIGKILL. The server keeps a parent-death signal
// from the helper. The cost is one extra exec per server start.
//
// The first helper is started ahead of need, at linesman's init, and waits
// on its control socket for the server to start (see package reaper,
// prespawn_linux.go): its own start-up then overlaps linesman's instead of
// delaying the server's. The others are started with their server.
//
// Protocol, one line each. linesman → helper on fd 3: "end" (reap the
// server, SIGKILL every descendant left, report them, exit). helper →
// linesman on fd 4: "P pid", or "E errno message" when the start failed;
// "X code signal" at the server's exit (its zombie is kept until "end", so
// the group id stays the server's); "K pid pgid sid comm" per process
// killed, then "C" when the tree is empty.

// isDescendant reports whether pid is below ancestor (by /proc's ppid
// links, read now).
func isDescendant(pid, ancestor int) bool {
	for seen := 0; pid > 1 && seen < 4096; seen++ {
		p, ok := reaper.ReadProc(pid)
		if !ok {
			return false
		}
		if p.Ppid == ancestor {
			return true
		}
		pid = p.Ppid
	}
	return false
}

// reaperConn is linesman's side of a reaper helper.
type reaperConn struct {
	helper     int    // the helper's pid
	waitHelper func() // reaps the helper
	pid        int    // the server's
	ctl        *os.File
	exit       chan exitStatus // one status, through deliver
	exitOnce   sync.Once
	cleared    chan []leftover // the processes killed, at "C"; closed when the events end
	mu         sync.Mutex      // ctl writes

	// The watchdog (lost_linux.go).
	helperStart uint64        // the helper's start time, in clock ticks
	watching    bool          // a watchdog waits on the helper's pidfd
	eventsDone  chan struct{} // closed when the helper's events end
	watchDone   chan struct{} // closed when the watchdog is done
	gotC        atomic.Bool   // the helper said "C": its end was the ordinary one
	closing     atomic.Bool   // linesman closed the control pipe
	lostMu      sync.Mutex
	lost        *lostContainment
}

// deliver hands the server's exit to waitExit, once.
func (rc *reaperConn) deliver(st exitStatus) {
	rc.exitOnce.Do(func() { rc.exit <- st })
}

// lostNote is the note of a lost containment, or "".
func (rc *reaperConn) lostNote() string {
	rc.lostMu.Lock()
	defer rc.lostMu.Unlock()
	if rc.lost == nil {
		return ""
	}
	return rc.lost.note(rc.helper)
}

type exitStatus struct {
	code int
	sig  syscall.Signal
	err  error
}

// startReaper starts the helper, which starts cmd. It returns errNoReaper
// when the helper itself cannot run (then the caller starts cmd directly),
// and the server's start error as exec would have returned it.
func startReaper(cmd *exec.Cmd) (*reaperConn, error) {
	becomeSubreaper() // what a lost helper leaves comes to linesman (lost_linux.go)
	if pre := reaper.TakePrespawned(); pre != nil {
		if rc, err := startPrespawned(pre, cmd); !errors.Is(err, errNoReaper) {
			return rc, err
		}
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, errNoReaper
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, errNoReaper
	}
	helper := &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        append([]string{reaper.Arg0, cmd.Path}, cmd.Args...),
		Env:         cmd.Env,
		Dir:         cmd.Dir,
		Stdin:       cmd.Stdin,
		Stdout:      cmd.Stdout,
		Stderr:      cmd.Stderr,
		ExtraFiles:  []*os.File{ctlR, evW},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	err = helper.Start()
	ctlR.Close()
	evW.Close()
	if err != nil {
		ctlW.Close()
		evR.Close()
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
			return nil, err // the working directory: the server's error too
		}
		return nil, errNoReaper
	}
	return helperStarted(helper.Process.Pid, func() { helper.Wait() }, ctlW, evR)
}

// startPrespawned has the helper started at init (see package reaper)
// start cmd. errNoReaper: that helper is gone or cmd's stdio are not files;
// the caller starts a helper of its own.
func startPrespawned(pre *reaper.Prespawned, cmd *exec.Cmd) (*reaperConn, error) {
	var files [3]*os.File
	for i, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		f, ok := s.(*os.File)
		if !ok {
			pre.Close()
			return nil, errNoReaper
		}
		files[i] = f
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	if err := pre.SendStart(cmd.Path, cmd.Dir, cmd.Args, env, files); err != nil {
		pre.Close()
		return nil, errNoReaper
	}
	return helperStarted(pre.Pid, func() { pre.Wait() }, pre.Ctl, pre.Events)
}

// helperStarted reads a started helper's first word: the server's pid, or
// why it could not start it.
func helperStarted(helper int, waitHelper func(), ctlW, evR *os.File) (*reaperConn, error) {
	rc := &reaperConn{helper: helper, ctl: ctlW, exit: make(chan exitStatus, 1), cleared: make(chan []leftover, 1),
		eventsDone: make(chan struct{}), watchDone: make(chan struct{})}
	markStarted(helper)
	rc.waitHelper = func() { waitHelper(); unmarkStarted(helper) }
	if p, ok := reaper.ReadProc(helper); ok {
		rc.helperStart = p.Start
	}
	r := bufio.NewReader(evR)
	line, _ := r.ReadString('\n')
	kind, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	switch kind {
	case "P":
		rc.pid, _ = strconv.Atoi(rest)
		// The helper is linesman's unreaped child: its pid is still its own.
		if fd, err := unix.PidfdOpen(helper, 0); err == nil {
			rc.watching = true
			go rc.watch(fd)
		} else {
			close(rc.watchDone)
		}
		go rc.readEvents(r, evR)
		return rc, nil
	case "E":
		num, msg, _ := strings.Cut(rest, " ")
		n, _ := strconv.Atoi(num)
		ctlW.Close()
		evR.Close()
		rc.waitHelper()
		return nil, &startFailure{msg: msg, errno: syscall.Errno(n)}
	}
	// The helper died before a word: not ours to explain.
	ctlW.Close()
	evR.Close()
	rc.waitHelper()
	return nil, errNoReaper
}

// startFailure is the server's start error as the helper's exec saw it.
type startFailure struct {
	msg   string
	errno syscall.Errno
}

func (e *startFailure) Error() string { return e.msg }
func (e *startFailure) Unwrap() error { return e.errno }

// readEvents reads the helper's reports until it ends.
func (rc *reaperConn) readEvents(r *bufio.Reader, f *os.File) {
	defer f.Close()
	var killed []leftover
	gotExit := false
	defer func() {
		if !gotExit && !rc.watching {
			rc.deliver(exitStatus{-1, 0, errReaperLost})
		}
		close(rc.cleared)
		close(rc.eventsDone)
	}()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		kind, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		switch kind {
		case "X":
			var code, sig int
			fmt.Sscanf(rest, "%d %d", &code, &sig)
			gotExit = true
			rc.deliver(exitStatus{code, syscall.Signal(sig), nil})
		case "K":
			var l leftover
			f := strings.SplitN(rest, " ", 4)
			if len(f) == 4 {
				l.Pid, _ = strconv.Atoi(f[0])
				l.Pgid, _ = strconv.Atoi(f[1])
				l.Sid, _ = strconv.Atoi(f[2])
				l.Comm = f[3]
				killed = append(killed, l)
			}
		case "C":
			rc.gotC.Store(true)
			rc.cleared <- killed
			return
		}
	}
}

func (rc *reaperConn) waitExit() (int, syscall.Signal, error) {
	st := <-rc.exit
	return st.code, st.sig, st.err
}

func (rc *reaperConn) send(cmd string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	_, err := io.WriteString(rc.ctl, cmd+"\n")
	return err == nil
}

// end has the helper reap the server, kill what is left of its tree and
// exit; it returns the processes killed.
func (rc *reaperConn) end() []leftover {
	var left []leftover
	timedOut := false
	if rc.send("end") {
		select {
		case left = <-rc.cleared:
		case <-time.After(clearWait):
			timedOut = true
		}
	}
	if !rc.gotC.Load() && !timedOut {
		// Lost (or slow): the watchdog's takeover, if any, is what ends it.
		select {
		case <-rc.watchDone:
		case <-time.After(clearWait):
		}
	}
	rc.mu.Lock()
	rc.closing.Store(true)
	rc.ctl.Close()
	rc.mu.Unlock()
	// The helper exits right after "C" (or at EOF on its control socket);
	// its exit takes a millisecond or two that the caller need not wait
	// for (a one-shot send would spend them before its report). Reap it
	// in the background.
	go rc.waitHelper()
	return left
}

func (rc *reaperConn) helperPid() int { return rc.helper }
func (rc *reaperConn) serverPid() int { return rc.pid }

// isOurDescendant reports whether pid descends from root (the reaper
// helper; 0 means linesman itself).
func isOurDescendant(pid, root int) bool {
	if root == 0 {
		root = os.Getpid()
	}
	return isDescendant(pid, root)
}
