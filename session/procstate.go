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
