package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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
// binary re-run as [reaperArg0]) between itself and the server, because a
// subreaper must be an ancestor that outlives linesman: the helper starts
// the server, relays its pid and exit status, and kills the whole tree
// (repeatedly, until nothing is left, which also ends a hydra) when told
// at the session's end, or when its control pipe reaches EOF because
// linesman died, even by SIGKILL. The server keeps a parent-death signal
// from the helper. The cost is one extra exec per server start.
//
// Protocol, one line each. linesman → helper on fd 3: "end" (reap the
// server, SIGKILL every descendant left, report them, exit). helper →
// linesman on fd 4: "P pid", or "E errno message" when the start failed;
// "X code signal" at the server's exit (its zombie is kept until "end", so
// the group id stays the server's); "K pid pgid sid comm" per process
// killed, then "C" when the tree is empty.

// reaperArg0 is argv[0] of the helper: the session package's init runs
// the helper instead of the program when it sees it.
const reaperArg0 = "linesman-reaper"

func init() {
	if len(os.Args) >= 2 && os.Args[0] == reaperArg0 {
		os.Exit(runReaper(os.Args[1], os.Args[2:]))
	}
}

// runReaper is the helper's main: start path with argv, relay, contain.
func runReaper(path string, argv []string) int {
	ctl, ev := os.NewFile(3, "control"), os.NewFile(4, "events")
	unix.CloseOnExec(3)
	unix.CloseOnExec(4)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(ev, "E %d cannot become a subreaper: %v\n", unix.EPERM, err)
		return 1
	}
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	cmd := &exec.Cmd{
		Path: path, Args: argv, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	}
	if err := cmd.Start(); err != nil {
		var errno syscall.Errno
		errors.As(err, &errno)
		fmt.Fprintf(ev, "E %d %s\n", int(errno), oneLine(err.Error()))
		return 1
	}
	// The server has the pipes; the helper must not hold them open.
	if null, err := unix.Open(os.DevNull, unix.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			unix.Dup3(null, fd, 0)
		}
		unix.Close(null)
	}
	server := cmd.Process.Pid
	fmt.Fprintf(ev, "P %d\n", server)
	go func() {
		code, sig, err := waitNoReap(server)
		if err != nil {
			code, sig = -1, 0
		}
		fmt.Fprintf(ev, "X %d %d\n", code, int(sig))
	}()
	go func() {
		for range chld {
			reapOrphans(server)
		}
	}()
	in := bufio.NewScanner(ctl)
	for in.Scan() {
		if in.Text() == "end" {
			var ws unix.WaitStatus
			unix.Wait4(server, &ws, 0, nil)
			if hasChildren() {
				killTree(ev)
			}
			fmt.Fprintln(ev, "C")
			return 0
		}
	}
	// EOF: linesman is gone (it exited without "end", or was killed).
	unix.Kill(server, unix.SIGKILL)
	killTree(io.Discard)
	return 0
}

// hasChildren reports whether the helper has any child left, dead or
// alive: every descendant of a subreaper's tree has an ancestor among its
// children, so none means the tree is empty, and the /proc scan of
// killTree is skipped (the common case costs one system call).
func hasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err != unix.ECHILD
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// procEntry is what /proc/PID/stat says of a process.
type procEntry struct {
	pid, ppid, pgrp, sid int
	state                byte
	comm                 string
}

// readProcs reads every process's stat line.
func readProcs() []procEntry {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]procEntry, 0, len(dir))
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// readProc parses /proc/pid/stat: "pid (comm) S ppid pgrp session ...";
// comm may hold spaces and parentheses, so parse from the last ')'.
func readProc(pid int) (procEntry, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procEntry{}, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procEntry{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return procEntry{}, false
	}
	p := procEntry{pid: pid, state: f[0][0], comm: s[open+1 : end]}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgrp, _ = strconv.Atoi(f[2])
	p.sid, _ = strconv.Atoi(f[3])
	return p, true
}

// descendants returns the processes below root, parents before children.
func descendants(procs []procEntry, root int) []procEntry {
	children := map[int][]procEntry{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p)
	}
	var out []procEntry
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
	}
	return out
}

// isDescendant reports whether pid is below ancestor (by /proc's ppid
// links, read now).
func isDescendant(pid, ancestor int) bool {
	for seen := 0; pid > 1 && seen < 4096; seen++ {
		p, ok := readProc(pid)
		if !ok {
			return false
		}
		if p.ppid == ancestor {
			return true
		}
		pid = p.ppid
	}
	return false
}

// reapOrphans reaps the helper's children that have exited, except the
// server, whose zombie is kept until "end": once the server's zombie is the
// first waitable child, the orphans that die after it wait for "end" too.
func reapOrphans(server int) {
	for {
		var info unix.Siginfo
		if unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil) != nil {
			return
		}
		pid := siginfoPid(&info)
		if pid <= 0 || pid == server {
			return
		}
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	}
}

// reapAll reaps every child that has exited (the server too).
func reapAll() {
	for {
		var ws unix.WaitStatus
		if pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil); pid <= 0 || err != nil {
			return
		}
	}
}

// killTree SIGKILLs every live descendant of the helper, round after round
// until the helper has no child left, reaping the orphans that land on it.
// It writes "K pid pgid sid comm" for each process killed.
//
// The end is decided by the kernel, not by a /proc scan: a scan lists the
// directory first and reads each stat after, so a process forked by a
// parent that dies between the two is in neither (the CI run of
// TestKilledLinesmanLeavesNoSurvivor/hydra caught one: an empty scan ended
// the helper and the new generation went to init). A subreaper with no
// child, dead or alive, has no descendant at all: every descendant hangs
// below one of its children, and an orphan is handed to it before its
// parent turns into a zombie. So the rounds go on until waitid says ECHILD.
// Bounded: a tree that could outrun it would have to fork faster than
// SIGKILL lands; after the bound the helper gives up rather than spin.
func killTree(w io.Writer) {
	self := os.Getpid()
	killed := map[int]bool{}
	for round := 0; round < 10000; round++ {
		live := 0
		for _, p := range descendants(readProcs(), self) {
			if p.state == 'Z' || p.state == 'X' {
				continue
			}
			live++
			if unix.Kill(p.pid, unix.SIGKILL) == nil && !killed[p.pid] {
				killed[p.pid] = true
				fmt.Fprintf(w, "K %d %d %d %s\n", p.pid, p.pgrp, p.sid, oneLine(p.comm))
			}
		}
		reapAll()
		if !hasChildren() {
			return
		}
		if live == 0 {
			// Children the scan did not see (forked after it listed
			// /proc) or dying ones not yet zombies: look again shortly.
			time.Sleep(time.Millisecond)
		}
	}
}

// reaperConn is linesman's side of a reaper helper.
type reaperConn struct {
	helper  *exec.Cmd
	pid     int // the server's
	ctl     *os.File
	exit    chan exitStatus // one status
	cleared chan []leftover // one list per "clear"
	mu      sync.Mutex      // ctl writes
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
		Args:        append([]string{reaperArg0, cmd.Path}, cmd.Args...),
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
	rc := &reaperConn{helper: helper, ctl: ctlW, exit: make(chan exitStatus, 1), cleared: make(chan []leftover, 1)}
	r := bufio.NewReader(evR)
	line, _ := r.ReadString('\n')
	kind, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	switch kind {
	case "P":
		rc.pid, _ = strconv.Atoi(rest)
		go rc.readEvents(r, evR)
		return rc, nil
	case "E":
		num, msg, _ := strings.Cut(rest, " ")
		n, _ := strconv.Atoi(num)
		ctlW.Close()
		evR.Close()
		helper.Wait()
		return nil, &startFailure{msg: msg, errno: syscall.Errno(n)}
	}
	// The helper died before a word: not ours to explain.
	ctlW.Close()
	evR.Close()
	helper.Wait()
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
		if !gotExit {
			rc.exit <- exitStatus{-1, 0, errReaperLost}
		}
		close(rc.cleared)
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
			rc.exit <- exitStatus{code, syscall.Signal(sig), nil}
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
	if rc.send("end") {
		select {
		case left = <-rc.cleared:
		case <-time.After(clearWait):
		}
	}
	rc.mu.Lock()
	rc.ctl.Close()
	rc.mu.Unlock()
	rc.helper.Wait()
	return left
}

func (rc *reaperConn) helperPid() int { return rc.helper.Process.Pid }
func (rc *reaperConn) serverPid() int { return rc.pid }

// isOurDescendant reports whether pid descends from root (the reaper
// helper; 0 means linesman itself).
func isOurDescendant(pid, root int) bool {
	if root == 0 {
		root = os.Getpid()
	}
	return isDescendant(pid, root)
}
