//go:build linux

package reaper

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Arg0 is argv[0] of the helper: this package's init runs the helper
// instead of the program when it sees it.
const Arg0 = "linesman-reaper"

func init() {
	if len(os.Args) >= 2 && os.Args[0] == Arg0 {
		os.Exit(run(os.Args[1], os.Args[2:]))
	}
}

// run is the helper's main: start path with argv, relay, contain.
func run(path string, argv []string) int {
	ctl, ev := os.NewFile(3, "control"), os.NewFile(4, "events")
	unix.CloseOnExec(3)
	unix.CloseOnExec(4)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(ev, "E %d cannot become a subreaper: %v\n", unix.EPERM, err)
		return 1
	}
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	// os.StartProcess, not os/exec: this package imports nothing that Go
	// initialises late (see the package comment).
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{
		Env:   os.Environ(),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
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
	server := proc.Pid
	fmt.Fprintf(ev, "P %d\n", server)
	go func() {
		code, sig, err := WaitNoReap(server)
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

// Proc is what /proc/PID/stat says of a process.
type Proc struct {
	Pid, Ppid, Pgrp, Sid int
	State                byte
	Comm                 string
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
		for _, p := range Descendants(ReadProcs(), self) {
			if p.State == 'Z' || p.State == 'X' {
				continue
			}
			live++
			if unix.Kill(p.Pid, unix.SIGKILL) == nil && !killed[p.Pid] {
				killed[p.Pid] = true
				fmt.Fprintf(w, "K %d %d %d %s\n", p.Pid, p.Pgrp, p.Sid, oneLine(p.Comm))
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
	var info unix.Siginfo
	for {
		err = unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return -1, 0, err
	}
	status := SiginfoField(&info, 2)
	const cldExited = 1 // CLD_KILLED (2) and CLD_DUMPED (3) carry a signal
	if info.Code == cldExited {
		return status, 0, nil
	}
	return -1, syscall.Signal(status), nil
}

// SiginfoField returns the k-th int of a SIGCHLD siginfo's fields: 0 si_pid,
// 1 si_uid, 2 si_status. They follow the three ints of the header, aligned
// to a pointer.
func SiginfoField(info *unix.Siginfo, k int) int {
	raw := (*[unsafe.Sizeof(*info)]byte)(unsafe.Pointer(info))
	at := 3 * 4
	if unsafe.Sizeof(uintptr(0)) == 8 {
		at = 4 * 4
	}
	return int(int32(binary.NativeEndian.Uint32(raw[at+4*k:])))
}

// siginfoPid is the pid a waitid reported (0: none was waitable).
func siginfoPid(info *unix.Siginfo) int { return SiginfoField(info, 0) }
