package main

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"linesman/capture"
	"linesman/session/run"
	"linesman/session/tapctl"
	"linesman/themes"
	"linesman/ui"
	"linesman/wire"
)

var cmdView = &command{
	name:      "view",
	usageLine: "linesman view [--follow] [--text] FILE|TAP",
	// The inspector draws on stdout itself; a transcript goes through an
	// wire.InertWriter of runView's.
	output: draws,
	run:    runView,
	long:   helpText("view"),
}

// runView opens a capture read-only.
func runView(cmd *command, args []string, io stdio) int {
	fs := cmd.newFlagSet(io)
	follow := fs.Bool("follow", false, "keep reading the capture as it grows (another linesman is writing it)")
	text := fs.Bool("text", false, "print a text transcript instead of opening the inspector")
	theme := fs.String("theme", "auto", "colour theme: auto, dark, light or high-contrast (NO_COLOR is honoured)")
	poll := fs.Duration("poll", capture.DefaultPoll, "with --follow: how often to look for new records")
	files, status, ok := parseFlagsAnywhere(fs, args)
	if !ok {
		return status
	}
	if len(files) != 1 {
		fmt.Fprintln(io.err, "linesman view: want exactly one capture FILE")
		fmt.Fprintf(io.err, "Run 'linesman view --help' for the flags and an example.\n")
		return exitUsage
	}
	if _, err := themes.Get(*theme, true); err != nil {
		fmt.Fprintf(io.err, "linesman view: --theme: %v\n", err)
		return exitUsage
	}
	path, err := capture.ViewTarget(files[0]) // a tap's name, or latest
	if err != nil {
		fmt.Fprintf(io.err, "linesman view: %v\n", err)
		return exitFindings
	}
	opts := run.ViewOptions{Path: path, Follow: *follow, Poll: *poll}
	if !*text && inspectTerminal(io.out) {
		opts.UI = func(ctx context.Context, c *capture.Capture, fl *capture.Follower, path string) error {
			return viewUI(ctx, c, fl, path, *theme)
		}
	} else {
		// A transcript is text like export's: it goes through the same
		// inert writer (a crafted capture's codes and signals included).
		iw := wire.NewInertWriter(io.out)
		defer iw.Flush()
		io.out = iw
	}
	return run.View(opts, io.out, io.err)
}

// viewUI runs the inspector over the capture's log, read-only.
func viewUI(ctx context.Context, c *capture.Capture, fl *capture.Follower, path, theme string) error {
	opts := ui.CaptureOptions(c, fl, path, theme)
	if fl != nil && opts.ReadOnly != "" {
		// A tap started with --intercept accepts a controller.
		if ctl, err := tapctl.Dial(path); err == nil {
			defer ctl.Close()
			opts.Controller = ctl
			opts.ReadOnly += " (i intercepts: the tap accepts a controller)"
		}
	}
	// The stop signals are run.View's (see inspectOptions).
	opts.ProgramOptions = []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if err := ui.Run(opts); !errors.Is(err, ui.ErrSwitch) {
		return err
	}
	return run.ErrNextTap
}
