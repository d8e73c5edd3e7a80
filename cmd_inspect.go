package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"linesman/session/eventlog"
	"linesman/session/report"
	"linesman/themes"
	"linesman/ui"
)

const inspectHeader = `linesman — inspect an MCP stdio server interactively

Usage:
  linesman [flags] [-- COMMAND [ARG...]]

It starts COMMAND (default: the built-in demo server) through an isolated
transport, makes the handshake in the background, and shows every frame on
the wire, the server's stderr, the requests in flight and the process, with
findings flagged as they happen. Press ? in the UI for every key.

Exit status: 0 when you quit (q, or ctrl+c: a key, not a signal), 1 when
the run failed (the server could not start, the capture could not be
written), 2 usage error; stopped by a signal from outside, 128+n: 130
SIGINT, 143 SIGTERM (the server is shut down through the ladder first),
129 SIGHUP (the terminal went away: its process group is killed at once).

Examples:
  linesman                              # the demo server
  linesman -- python3 server.py
  linesman --era legacy -e API_KEY=test -- node build/index.js

Other modes:
  linesman check [flags] -- COMMAND [ARG...]  headless conformance run; report; exit status
  linesman send  [flags] -- COMMAND [ARG...]  headless: send hand-written frames (stdin or --file)
  linesman check [--json] --from FILE         judge a recorded conversation
  linesman view  [--follow] FILE              open a capture or a recorded conversation
  linesman export FILE --format F             export a capture (replay, findings, transcript)
  linesman explain [CODE|FAMILY]              the rule families; what a finding means, how to fix it
  linesman demo-server [--isolate=false]      the demo server itself
  linesman help                               this overview
`

// inspectTerminal reports whether f is a terminal the UI can use. It asks
// the terminal driver (isatty), not the file mode: /dev/null is a character
// device too, and `linesman send < /dev/null` or `view F > /dev/null` must
// not be taken for a person at a terminal.
func inspectTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}

// runInspect is the default mode: the interactive inspector.
func runInspect(args []string, stdout, stderr io.Writer) int {
	var flags commonFlags
	fs := newFlagSet("linesman", inspectHeader, stdout, stderr)
	flags.register(fs, false, true)
	demoUnsafe := fs.Bool("demo-unsafe", false, "run the built-in demo server without its stdio isolation (--isolate=false), to see the difference")
	noHandshake := fs.Bool("no-handshake", false, "do not make the handshake: leave it to the composer")
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	for _, check := range []func() error{flags.validate, func() error { return validateWaits(&flags) },
		func() error { return checkCaptureTarget(flags.capture) }, func() error { return checkTheme(flags.theme) }} {
		if err := check(); err != nil {
			fmt.Fprintf(stderr, "linesman: %v\n", err)
			return exitUsage
		}
	}
	command, title, status := inspectCommand(splitCommand(fs), *demoUnsafe, stderr)
	if command == nil {
		return status
	}
	if !inspectTerminal(stdout) || !inspectTerminal(os.Stdin) {
		fmt.Fprintln(stderr, "linesman: the inspector needs a terminal (stdin and stdout); in scripts use 'linesman check' or 'linesman send'")
		return exitUsage
	}

	// Nothing may print to the terminal while the UI runs: diagnostics go
	// to --log FILE, or nowhere.
	cfg := sessionConfig(&flags, command)
	cfg.Headless = false // a person answers sampling and elicitation
	// The run, not Bubble Tea, owns the stop signals, from before the
	// server starts until linesman exits (signals.go): SIGINT and SIGTERM
	// leave the UI and run the shutdown ladder; a hangup (the terminal
	// closed) kills the whole group at once (the parent-death signal only
	// reaches the server itself: its children would be orphaned). Then the
	// exit status is the signal's.
	r, status, _ := startServerRun("linesman", &flags, cfg, stderr,
		runSignals{sigs: stopSignals(), kill: []os.Signal{syscall.SIGHUP}})
	if r == nil {
		return status
	}
	defer r.close()
	handshakeDone := make(chan struct{})
	go func() {
		defer close(handshakeDone)
		if !*noHandshake {
			inspectHandshake(r)
		}
	}()

	uiCtx, uiCancel := context.WithCancel(r.ctx)
	defer uiCancel()
	runErr := ui.Run(inspectOptions(uiCtx, r, command, title, !*noHandshake))
	uiCancel()

	// The UI ran the ladder on quit (or killed on a second quit); make sure
	// the server is gone whatever happened, and wait for it, bounded.
	r.cancel() // a handshake still waiting stops here, not as a failure when the ladder ends the server
	r.shutdown()
	waitBounded(handshakeDone, drainMargin)
	captureErr := r.stopCapture()

	if status, ok := r.signalStatus(); ok {
		return status
	}
	if errors.Is(runErr, ui.ErrInterrupted) {
		return report.SignalStatus(syscall.SIGINT)
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "linesman: %v\n", runErr)
		return exitFindings
	}
	if captureErr != nil {
		fmt.Fprintf(stderr, "linesman: capture: %v\n", captureErr)
		return exitFindings
	}
	return exitOK
}

// inspectOptions are the UI's options for a live server.
func inspectOptions(ctx context.Context, r *serverRun, command []string, title string, handshake bool) ui.Options {
	s := r.s
	return ui.Options{
		// The run watches the signals (see runInspect): Bubble Tea's own
		// handler would make SIGTERM a plain quit (status 0) and leave a
		// signal before or after the UI to its default action.
		ProgramOptions: []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()},
		Log:            s.Log(),
		Tracker:        s.Tracker(),
		Session:        s,
		// Exports (X) describe the session as a capture's header would.
		Header: captureHeader(r.flags, command),
		Theme:  r.flags.theme,
		Title:  title,
		// After R, make the handshake again as at the start.
		HandshakeAfterRestart: handshake,
		ProcessInfo: func() (cmd, env []string, dir string, pending int64) {
			i := s.Info()
			return i.Command, i.Env, i.Dir, i.PendingWrite
		},
	}
}

// checkTheme refuses an unknown --theme.
func checkTheme(name string) error {
	if _, err := themes.Get(name, true); err != nil {
		return fmt.Errorf("--theme: %w", err)
	}
	return nil
}

// inspectCommand is the server the inspector starts and the window title:
// the command given, or the built-in demo server (--demo-unsafe: without
// its isolation). A nil command means the caller returns status.
func inspectCommand(command []string, demoUnsafe bool, stderr io.Writer) (cmd []string, title string, status int) {
	if len(command) > 0 {
		if demoUnsafe {
			fmt.Fprintln(stderr, "linesman: --demo-unsafe applies to the built-in demo server only (no COMMAND)")
			return nil, "", exitUsage
		}
		return command, report.ShellJoin(command), 0
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "linesman: cannot find my own binary to run the demo server: %v\n", err)
		return nil, "", exitFindings
	}
	if demoUnsafe {
		return []string{exe, "demo-server", "--isolate=false"}, "demo server (unisolated)", 0
	}
	return []string{exe, "demo-server"}, "demo server", 0
}

// inspectHandshake makes the handshake in the background, as a host would,
// and lists the tools the server declares (the composer's tools/call
// templates are built from the answer). A failure is said where the user
// looks: the stderr & events pane.
func inspectHandshake(r *serverRun) {
	s, ctx := r.s, r.ctx
	if err := s.Handshake(ctx); err != nil {
		r.logf("handshake: %v", err)
		if ctx.Err() == nil { // not because the user quit
			s.Log().Append(eventlog.Event{Type: eventlog.EventNote,
				Note: err.Error() + "; open the conversation by hand (c), or restart the server (R)"})
		}
		return
	}
	r.logf("handshake: %s era, protocol %s", s.Era(), s.ProtocolVersion())
	if hs := s.Tracker().Handshake(); hs.ServerDeclares("tools") {
		if _, err := call(ctx, s, r.flags.timeout, "tools/list", nil); err != nil {
			r.logf("tools/list: %v", err)
		}
	}
}
