//go:build linux

package reaper

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Arg0 is argv[0] of the helper: this package's init runs the helper
// instead of the program when it sees it.
const Arg0 = "linesman-reaper"

func init() {
	switch {
	case len(os.Args) >= 2 && os.Args[0] == Arg0:
		os.Exit(run(os.Args[1], os.Args[2:]))
	case len(os.Args) == 1 && os.Args[0] == Arg0:
		os.Exit(runPrespawned())
	case os.Getenv("LINESMAN_PRESPAWN") != "0" && StartsServer(os.Args[1:]):
		prespawnAtInit()
	}
}

// run is the helper's main when started for one server: start path with
// argv (in the helper's own environment, working directory and stdio),
// relay, contain.
func run(path string, argv []string) int {
	ctl, ev := os.NewFile(3, "control"), os.NewFile(4, "events")
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	if !becomeSubreaper(ev) {
		return 1
	}
	return serve(ctl, ev, start{path: path, argv: argv, env: os.Environ(), files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
}

// becomeSubreaper makes the helper the subreaper of the server's tree, or
// says on ev why it cannot.
func becomeSubreaper(ev io.Writer) bool {
	if err := prctl(prSetChildSubreaper, 1); err != nil {
		io.WriteString(ev, "E "+strconv.Itoa(int(syscall.EPERM))+" cannot become a subreaper: "+oneLine(err.Error())+"\n")
		return false
	}
	return true
}

// start is what the helper starts: the server's program, argv, environment,
// working directory ("" is the helper's own) and stdin, stdout, stderr.
type start struct {
	path, dir string
	argv, env []string
	files     []*os.File
}

// serve starts the server, relays its pid and exit status on ev, and
// contains its tree until "end" or EOF on ctl.
func serve(ctl, ev *os.File, st start) int {
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	// syscall.ForkExec, not os/exec (this package imports nothing that Go
	// initialises late, see doc.go) and not os.StartProcess (whose first
	// call forks once more, to check that pidfds work: half a millisecond
	// in front of the server's start, for a pidfd the helper never uses).
	fds := make([]uintptr, len(st.files))
	for i, f := range st.files {
		fds[i] = f.Fd()
	}
	server, err := syscall.ForkExec(st.path, st.argv, &syscall.ProcAttr{
		Dir:   st.dir,
		Env:   st.env,
		Files: fds,
		Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	// The server has the pipes; the helper must not hold them open.
	if null, err := syscall.Open(os.DevNull, syscall.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			syscall.Dup3(null, fd, 0)
		}
		syscall.Close(null)
	}
	for _, f := range st.files {
		if f.Fd() > 2 {
			f.Close()
		}
	}
	if err != nil {
		var errno syscall.Errno
		errors.As(err, &errno)
		io.WriteString(ev, "E "+strconv.Itoa(int(errno))+" "+oneLine("fork/exec "+st.path+": "+err.Error())+"\n")
		return 1
	}
	io.WriteString(ev, "P "+strconv.Itoa(server)+"\n")
	go func() {
		code, sig, err := WaitNoReap(server)
		if err != nil {
			code, sig = -1, 0
		}
		io.WriteString(ev, "X "+strconv.Itoa(code)+" "+strconv.Itoa(int(sig))+"\n")
	}()
	go func() {
		for range chld {
			reapOrphans(server)
		}
	}()
	in := bufio.NewScanner(ctl)
	for in.Scan() {
		if in.Text() == "end" {
			var ws syscall.WaitStatus
			syscall.Wait4(server, &ws, 0, nil)
			if hasChildren() {
				killTree(ev)
			}
			io.WriteString(ev, "C\n")
			return 0
		}
	}
	// EOF: linesman is gone (it exited without "end", or was killed).
	syscall.Kill(server, syscall.SIGKILL)
	killTree(io.Discard)
	return 0
}

// hasChildren reports whether the helper has any child left, dead or
// alive: every descendant of a subreaper's tree has an ancestor among its
// children, so none means the tree is empty, and the /proc scan of
// killTree is skipped (the common case costs one system call).
func hasChildren() bool {
	var info siginfo
	err := waitid(pAll, 0, &info, syscall.WEXITED|syscall.WNOHANG|syscall.WNOWAIT)
	return err != syscall.ECHILD
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// Proc is what /proc/PID/stat says of a process.
type Proc struct {
	Pid, Ppid, Pgrp, Sid int
	State                byte
	Comm                 string
	Start                uint64 // clock ticks after boot
}

// ReadProcs reads every process's stat line.
func ReadProcs() []Proc {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]Proc, 0, len(dir))
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := ReadProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// ReadProc parses /proc/pid/stat: "pid (comm) S ppid pgrp session ...";
// comm may hold spaces and parentheses, so parse from the last ')'.
func ReadProc(pid int) (Proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return Proc{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return Proc{}, false
	}
	p := Proc{Pid: pid, State: f[0][0], Comm: s[open+1 : end]}
	p.Ppid, _ = strconv.Atoi(f[1])
	p.Pgrp, _ = strconv.Atoi(f[2])
	p.Sid, _ = strconv.Atoi(f[3])
	if len(f) > 19 {
		p.Start, _ = strconv.ParseUint(f[19], 10, 64)
	}
	return p, true
}

// Descendants returns the processes below root, parents before children.
func Descendants(procs []Proc, root int) []Proc {
	children := map[int][]Proc{}
	for _, p := range procs {
		children[p.Ppid] = append(children[p.Ppid], p)
	}
	var out []Proc
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			out = append(out, c)
			queue = append(queue, c.Pid)
		}
	}
	return out
}

// reapOrphans reaps the helper's children that have exited, except the
// server, whose zombie is kept until "end": once the server's zombie is the
// first waitable child, the orphans that die after it wait for "end" too.
func reapOrphans(server int) {
	for {
		var info siginfo
		if waitid(pAll, 0, &info, syscall.WEXITED|syscall.WNOHANG|syscall.WNOWAIT) != nil {
			return
		}
		pid := info.field(0) // si_pid; 0: none was waitable
		if pid <= 0 || pid == server {
			return
		}
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// reapAll reaps every child that has exited (the server too).
func reapAll() {
	for {
		var ws syscall.WaitStatus
		if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
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
		for _, p := range Descendants(ReadProcs(), self) {
			if p.State == 'Z' || p.State == 'X' {
				continue
			}
			live++
			if syscall.Kill(p.Pid, syscall.SIGKILL) == nil && !killed[p.Pid] {
				killed[p.Pid] = true
				io.WriteString(w, "K "+strconv.Itoa(p.Pid)+" "+strconv.Itoa(p.Pgrp)+" "+strconv.Itoa(p.Sid)+" "+oneLine(p.Comm)+"\n")
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

// WaitNoReap observes the exit of the child pid without reaping it: the
// zombie keeps its pid, and so its process group id, from being reused until
// it is reaped. Until then a signal to the group can only reach the server's
// own processes — never a stranger that got the recycled number (pid_max is
// often 32768: a busy machine wraps it in minutes).
func WaitNoReap(pid int) (code int, sig syscall.Signal, err error) {
	var info siginfo
	for {
		err = waitid(pPid, pid, &info, syscall.WEXITED|syscall.WNOWAIT)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return -1, 0, err
	}
	status := info.field(2)
	if info.code() == cldExited {
		return status, 0, nil
	}
	return -1, syscall.Signal(status), nil
}
