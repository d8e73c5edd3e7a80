package session

import (
	"bytes"
	"os"
	"strconv"
)

// runState words what a process that has not exited is doing, for the
// findings that say it outlived a step of the ladder: "stopped (SIGSTOP)"
// when the kernel has it stopped (state T in /proc/PID/stat: a stopped
// process cannot read its EOF or act on SIGTERM, which stays pending until
// SIGCONT), "stopped by a tracer" for t, and "still running" otherwise or
// where /proc is missing.
func runState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "still running"
	}
	// pid (comm) state ...: comm may hold spaces and parentheses, so the
	// state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return "still running"
	}
	switch b[i+2] {
	case 'T':
		return "stopped (SIGSTOP)"
	case 't':
		return "stopped by a tracer"
	default:
		return "still running"
	}
}

// pfExiting is PF_EXITING in the flags of /proc/PID/stat: set as the
// process enters exit, before it closes its files.
const pfExiting = 0x4

// exitingOrGone reports whether the kernel has pid on its way out: gone
// from /proc, a zombie, or with PF_EXITING set (it closes its files, and
// so its stdout, before it becomes a zombie; on a loaded machine that
// window can outlast any grace period). Where /proc is missing it reports
// false, and the callers' timers decide alone.
func exitingOrGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		_, serr := os.Stat("/proc/self/stat")
		return serr == nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 7 || len(f[0]) != 1 {
		return false
	}
	if f[0][0] == 'Z' || f[0][0] == 'X' || f[0][0] == 'x' {
		return true
	}
	flags, err := strconv.ParseUint(string(f[6]), 10, 64)
	return err == nil && flags&pfExiting != 0
}
