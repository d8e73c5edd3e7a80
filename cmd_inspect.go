package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"linesman/session/report"
	"linesman/session/run"
	"linesman/themes"
	"linesman/ui"
)

var cmdInspect = &command{
	name:        "",
	usageLine:   "linesman [flags] [-- COMMAND [ARG...]]",
	configNames: true,
	output:      draws,
	run:         runInspect,
	long:        helpText("inspect"),
}

// runInspect is the default mode: the interactive inspector.
func runInspect(cmd *command, args []string, io stdio) int {
	var f serverFlags
	fs := cmd.newFlagSet(io)
	f.register(fs, false, true, "inspect")
	demoUnsafe := fs.Bool("demo-unsafe", false, "run the built-in demo server without its stdio isolation (--isolate=false), to see the difference")
	noHandshake := fs.Bool("no-handshake", false, "do not make the handshake: leave it to the composer")
	if status, ok := f.parse(cmd, fs, args, io.err); !ok {
		return status
	}
	if _, err := themes.Get(f.theme, true); err != nil {
		fmt.Fprintf(io.err, "linesman: --theme: %v\n", err)
		return exitUsage
	}
	title, status := inspectCommand(&f.opts, *demoUnsafe, io)
	if title == "" {
		return status
	}
	if !inspectTerminal(io.out) || !inspectTerminal(os.Stdin) {
		fmt.Fprintln(io.err, "linesman: the inspector needs a terminal (stdin and stdout); in scripts use 'linesman check' or 'linesman send'")
		return exitUsage
	}
	// Nothing may print to the terminal while the UI runs: diagnostics go
	// to --log FILE, or nowhere. The run, not Bubble Tea, owns the stop
	// signals, from before the server starts until linesman exits: SIGINT
	// and SIGTERM leave the UI and run the shutdown ladder; a hangup (the
	// terminal closed) kills the whole group at once (the parent-death
	// signal only reaches the server itself: its children would be
	// orphaned). Then the exit status is the signal's.
	f.opts.Name = "linesman"
	f.opts.Session.Headless = false // a person answers sampling and elicitation
	f.opts.Signals = run.Signals{Stop: run.StopSignals(), Kill: []os.Signal{syscall.SIGHUP}}
	return run.Inspect(&f.opts, !*noHandshake, func(ctx context.Context, r *run.Run) error {
		err := ui.Run(inspectOptions(ctx, r, f.theme, title, !*noHandshake))
		if errors.Is(err, ui.ErrInterrupted) {
			return run.ErrInterrupted
		}
		return err
	}, io.err)
}

// inspectTerminal reports whether f is a terminal the UI can use. It asks
// the terminal driver (isatty), not the file mode: /dev/null is a character
// device too, and `linesman send < /dev/null` or `view F > /dev/null` must
// not be taken for a person at a terminal.
func inspectTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}

// inspectOptions are the UI's options for a live server.
func inspectOptions(ctx context.Context, r *run.Run, theme, title string, handshake bool) ui.Options {
	s := r.Session()
	return ui.Options{
		// The run watches the signals (see runInspect): Bubble Tea's own
		// handler would make SIGTERM a plain quit (status 0) and leave a
		// signal before or after the UI to its default action.
		ProgramOptions: []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()},
		Log:            s.Log(),
		Tracker:        s.Tracker(),
		Session:        s,
		// Exports (X) describe the session as a capture's header would.
		Header: run.Header(r.Options()),
		Theme:  theme,
		Title:  title,
		// After R, make the handshake again as at the start.
		HandshakeAfterRestart: handshake,
		ProcessInfo: func() (cmd, env []string, dir string, pending int64) {
			i := s.Info()
			return i.Command, i.Env, i.Dir, i.PendingWrite
		},
	}
}

// inspectCommand sets the server the inspector starts — the command given,
// or the built-in demo server (--demo-unsafe: without its isolation) — and
// returns the window title; "" means the caller returns status.
func inspectCommand(o *run.Options, demoUnsafe bool, io stdio) (title string, status int) {
	if command := o.Session.Command; len(command) > 0 {
		if demoUnsafe {
			fmt.Fprintln(io.err, "linesman: --demo-unsafe applies to the built-in demo server only (no COMMAND)")
			return "", exitUsage
		}
		return report.ShellJoin(command), 0
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(io.err, "linesman: cannot find my own binary to run the demo server: %v\n", err)
		return "", exitFindings
	}
	if demoUnsafe {
		o.Session.Command = []string{exe, "demo-server", "--isolate=false"}
		return "demo server (unisolated)", 0
	}
	o.Session.Command = []string{exe, "demo-server"}
	return "demo server", 0
}
