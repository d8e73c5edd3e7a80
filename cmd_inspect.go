package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"linesman/session"
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

Examples:
  linesman                              # the demo server
  linesman -- python3 server.py
  linesman --era legacy -e API_KEY=test -- node build/index.js

Other modes:
  linesman check [flags] -- COMMAND [ARG...]  headless conformance run; report; exit status
  linesman send  [flags] -- COMMAND [ARG...]  headless: send hand-written frames (stdin or --file)
  linesman view  [--follow] FILE              open a capture
  linesman export FILE --format F             export a capture (replay, findings, transcript)
  linesman explain [CODE]                     what a finding means and how to fix it
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
	if err := flags.validate(); err != nil {
		fmt.Fprintf(stderr, "linesman: %v\n", err)
		return exitUsage
	}
	if err := validateWaits(&flags); err != nil {
		fmt.Fprintf(stderr, "linesman: %v\n", err)
		return exitUsage
	}
	if err := checkCaptureTarget(flags.capture); err != nil {
		fmt.Fprintf(stderr, "linesman: %v\n", err)
		return exitUsage
	}
	if _, err := themes.Get(flags.theme, true); err != nil {
		fmt.Fprintf(stderr, "linesman: --theme: %v\n", err)
		return exitUsage
	}
	command := splitCommand(fs)
	title := report.ShellJoin(command)
	if len(command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "linesman: cannot find my own binary to run the demo server: %v\n", err)
			return exitFindings
		}
		command = []string{exe, "demo-server"}
		title = "demo server"
		if *demoUnsafe {
			command = append(command, "--isolate=false")
			title += " (unisolated)"
		}
	} else if *demoUnsafe {
		fmt.Fprintln(stderr, "linesman: --demo-unsafe applies to the built-in demo server only (no COMMAND)")
		return exitUsage
	}

	if !inspectTerminal(stdout) || !inspectTerminal(os.Stdin) {
		fmt.Fprintln(stderr, "linesman: the inspector needs a terminal (stdin and stdout); in scripts use 'linesman check' or 'linesman send'")
		return exitUsage
	}

	// Nothing may print to the terminal while the UI runs: diagnostics go
	// to --log FILE, or nowhere.
	diag, err := openDiagLog(flags.logFile, "linesman")
	if err != nil {
		fmt.Fprintf(stderr, "linesman: --log: %s\n", inertErr(err))
		return exitUsage
	}
	defer diag.Close()
	logf := diag.logf

	cfg := sessionConfig(&flags, command)
	cfg.Headless = false // a person answers sampling and elicitation
	s, err := session.Start(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "linesman: %v\n", err)
		return exitFindings
	}
	logf("started %q", command)
	stopCapture, err := startCapture(&flags, s.Log(), command)
	if err != nil {
		fmt.Fprintf(stderr, "linesman: %v\n", err)
		s.Kill()
		waitBounded(s.Done(), drainMargin)
		return exitFindings
	}

	ctx, cancel := context.WithCancel(context.Background())
	handshakeDone := make(chan struct{})
	go func() {
		defer close(handshakeDone)
		if *noHandshake {
			return
		}
		if err := s.Handshake(ctx); err != nil {
			logf("handshake: %v", err)
			if ctx.Err() == nil { // not because the user quit
				// Say it where the user looks: the stderr & events pane.
				s.Log().Append(session.Event{Type: session.EventNote,
					Note: err.Error() + "; open the conversation by hand (c), or restart the server (R)"})
			}
			return
		}
		logf("handshake: %s era, protocol %s", s.Era(), s.ProtocolVersion())
		// Like a host, list the tools the server declares: the composer's
		// tools/call templates are built from the answer.
		if declares(s.ServerCapabilities(), "tools") {
			if _, err := call(ctx, s, flags.timeout, "tools/list", nil); err != nil {
				logf("tools/list: %v", err)
			}
		}
	}()

	// A hangup (the terminal closed) would end linesman at once, and the
	// parent-death signal only reaches the server itself: its children
	// would be orphaned. Kill the whole group instead, then leave the UI.
	hup := make(chan os.Signal, 1)
	if !signal.Ignored(syscall.SIGHUP) { // under nohup, leave it ignored
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
	}
	uiCtx, uiCancel := context.WithCancel(context.Background())
	defer uiCancel()
	var hungUp atomic.Bool
	go func() {
		select {
		case <-hup:
			hungUp.Store(true)
			s.Kill()
			uiCancel()
		case <-uiCtx.Done():
		}
	}()

	runErr := ui.Run(ui.Options{
		ProgramOptions: []tea.ProgramOption{tea.WithContext(uiCtx)},
		Log:            s.Log(),
		Tracker:        s.Tracker(),
		Session:        s,
		// Exports (X) describe the session as a capture's header would.
		Header: captureHeader(&flags, command),
		Theme:  flags.theme,
		Title:  title,
		// After R, make the handshake again as at the start.
		HandshakeAfterRestart: !*noHandshake,
		ProcessInfo: func() (cmd, env []string, dir string, pending int64) {
			i := s.Info()
			return i.Command, i.Env, i.Dir, i.PendingWrite
		},
	})
	cancel()
	uiCancel()

	// The UI ran the ladder on quit (or killed on a second quit); make sure
	// the server is gone whatever happened, and wait for it, bounded.
	s.Shutdown()
	if !waitBounded(s.Done(), flags.stdinWait+flags.sigtermWait+drainMargin) {
		logf("the server outlived the shutdown ladder; killing its process group")
		s.Kill()
		waitBounded(s.Done(), drainMargin)
	}
	waitBounded(handshakeDone, drainMargin)
	captureErr := stopCapture()
	info := s.Info()
	logf("server ended: state %s, exit code %d, signal %q, ended by %s", info.State, info.ExitCode, info.Signal, info.EndedBy)

	if hungUp.Load() || errors.Is(runErr, ui.ErrInterrupted) {
		return exitSignal
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
