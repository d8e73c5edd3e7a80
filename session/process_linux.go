package session

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"0linesman/reaper"
)

// sysProcAttr starts the child in a session of its own, which is also a
// process group of its own: terminal signals aimed at linesman never reach
// it, shutdown can signal the whole group, and it has no controlling
// terminal, so it cannot open /dev/tty to draw over the UI, set the title or
// read the user's keys. The kernel SIGKILLs it if linesman dies, so no server
// is orphaned.
//
// The parent-death signal fires when the thread that forked the child exits,
// not only the process: Go ends a thread only when a goroutine locked to it
// (runtime.LockOSThread) returns without unlocking, which linesman never
// does around Start.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// groupMembers returns the pids of the live (non-zombie) processes of the
// group pgid, read from /proc. It names the processes that keep a pipe open
// after the server exited.
func groupMembers(pgid int) []int {
	if pgid <= 0 {
		return nil
	}
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, pg, ok := procStat(pid)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat reads the state and process group of pid from /proc/pid/stat.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses,
	// so parse from the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}

// closeInheritedOnExec marks every descriptor above stderr close-on-exec in
// our own process. Go opens its files close-on-exec, but descriptors
// linesman inherited from whoever started it (a shell's, a terminal
// multiplexer's) are not, and exec would hand them to the server.
func closeInheritedOnExec() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Before Linux 5.11: one by one.
	dir, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range dir {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

// pipeSize is what we ask the kernel to buffer in the server's stdout and
// stderr pipes (the default is 64 KiB; unprivileged processes may ask up to
// /proc/sys/fs/pipe-max-size, 1 MiB by default). A larger buffer lets a
// server write a burst without blocking while we classify and log, and
// halves-and-more the wakeups per megabyte.
const pipeSize = 1 << 20

// growPipe enlarges a pipe's buffer, best effort.
func growPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
	})
}

// pipeBuffered returns how many bytes wait in the pipe whose read end is f
// (0 when unknown or closed).
func pipeBuffered(f *os.File) int64 {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int
	rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil { // TIOCINQ is FIONREAD
			n = v
		}
	})
	return int64(n)
}

// pipeHolders returns the pids of the processes, other than linesman, that
// have one of the pipes of files open: /proc/PID/fd links name a pipe by its
// inode. It finds the descendants that keep a pipe open after the server
// exited even when they left its process group (setsid, a daemon).
func pipeHolders(files ...*os.File) []int {
	links := map[string]bool{}
	for _, f := range files {
		fi, err := f.Stat()
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			links["pipe:["+strconv.FormatUint(st.Ino, 10)+"]"] = true
		}
	}
	if len(links) == 0 {
		return nil
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := "/proc/" + e.Name() + "/fd/"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue // gone, or not ours to look at
		}
		for _, fd := range fds {
			if l, err := os.Readlink(dir + fd.Name()); err == nil && links[l] && writeEnd(pid, fd.Name()) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// writeEnd reports whether descriptor fd of pid is open for writing: both
// ends of a pipe name the same inode, and only a writer keeps the reader
// from EOF.
func writeEnd(pid int, fd string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + fd)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&syscall.O_ACCMODE != syscall.O_RDONLY
		}
	}
	return false
}

// waitNoReap observes the exit of the child pid without reaping it (see
// [reaper.WaitNoReap]).
func waitNoReap(pid int) (code int, sig syscall.Signal, err error) { return reaper.WaitNoReap(pid) }

// waitExit observes the exit of cmd's process without reaping it (see
// waitNoReap); reap collects the zombie later.
func waitExit(cmd *exec.Cmd) (code int, sig syscall.Signal, err error) {
	code, sig, err = waitNoReap(cmd.Process.Pid)
	if err != nil {
		// Not ours to wait for (cannot happen for our own child): reap it
		// the ordinary way.
		return waitReap(cmd)
	}
	return code, sig, nil
}

// reap collects the zombie that waitExit left, once nothing will signal the
// group any more.
func reap(cmd *exec.Cmd) { cmd.Wait() }

// exitedNow reports whether the process pid has exited, as the kernel sees
// it now: a zombie (its parent has not reaped it yet) or gone. It tells
// the ladder that an exit came first even before wait has recorded it.
func exitedNow(pid int) bool {
	p, ok := reaper.ReadProc(pid)
	return !ok || p.State == 'Z' || p.State == 'X'
}

// procName is the command name of pid ("" when unknown).
func procName(pid int) string {
	p, _ := reaper.ReadProc(pid)
	return p.Comm
}
