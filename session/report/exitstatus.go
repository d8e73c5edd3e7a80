package report

import "syscall"

// ExitInterrupted is the exit status of a run interrupted by SIGINT (^C),
// and of an interrupted run whose signal is not known.
const ExitInterrupted = 130

// SignalStatus is linesman's exit status, in every mode, when a signal
// stopped its run early: 128+n, the status a shell reports for a process
// that died of signal n (SIGHUP 129, SIGINT 130, SIGTERM 143), so that a
// shell, a supervisor or a host reads it as it would read the default
// action. 0 (unknown) is treated as SIGINT.
func SignalStatus(sig syscall.Signal) int {
	if sig <= 0 {
		return ExitInterrupted
	}
	return 128 + int(sig)
}

// stopSignalNames name the signals that stop a run, as reports write them.
var stopSignalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM",
}

// interruptStatus is the exit status of an interrupted report, from the
// signal its InterruptedBy names.
func (r *Report) interruptStatus() int {
	for sig, name := range stopSignalNames {
		if name == r.InterruptedBy {
			return SignalStatus(sig)
		}
	}
	return ExitInterrupted
}
