// Package run owns the lifetime of one run of linesman: the signals that end
// it, the --log file, the server's session, its capture, the bounded
// shutdown ladder, the checks of a finished run (policy and drift) and the
// report. The inspector, check, send, tap and view all go through it,
// differing only in [Options]; it reads top to bottom as go-sdk's
// mcp/cmd.go closes a process, the waiting loops in small named helpers.
//
// Entry points, one per way a run ends:
//   - [Headless]: check and send — start, the [Steps] (check's
//     conversation, [CheckSteps]; send's frames, [SendSteps]), the
//     shutdown, the checks (policy, drift), the report and its exit status; [All] runs
//     many of them (check --all).
//   - [Inspect]: the inspector — start, the handshake in the background,
//     the UI (a function of the caller's), the shutdown.
//   - [Tap]: a host's stand-in — start with the wire passed through,
//     signals passed to the server's group, the server's exit status.
//   - [View]: a capture opened or followed, shown by the caller's UI or as
//     a transcript.
//
// The signal policy, the same in every mode that outlives a moment
// (see [Watch]):
//
//   - SIGINT, SIGTERM and SIGHUP from outside stop the run early; linesman
//     still shuts its server down (and reports, headless), then exits with
//     128+n ([report.SignalStatus]): 130, 143, 129, the status a shell
//     reports for a death by that signal. The first signal decides.
//   - A user who quits the inspector or view with q or ctrl+c (keys, read
//     in raw mode: no signal is sent) ends it normally: 0.
//   - A signal linesman was started with ignored (nohup, a background job)
//     stays ignored.
//   - tap is the server's stand-in: it passes the signal to the server's
//     group and exits with the server's status, a death by signal n being
//     128+n as well.
//   - The short modes (explain, export, taps, wrap) keep the default action:
//     a shell reports their death by signal n as 128+n too.
//
// It never draws on a terminal: what it says goes to the writers it is
// given, and the UI is the caller's.
package run

// Exit statuses of the headless modes (and of usage errors everywhere).
const (
	StatusOK     = 0 // no finding of severity error
	StatusFailed = 1 // at least one finding of severity error (or a runtime failure)
	StatusUsage  = 2 // the command line was wrong
)
