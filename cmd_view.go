package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/themes"
	"linesman/ui"
)

const viewHeader = `linesman view — open a capture written with --capture

Usage:
  linesman view [--follow] [--text] FILE|TAP

Opens the capture in the inspector, read-only: the same panes, filters and
findings as a live session, but no composer and no process control. Every
frame's findings are recomputed from the recorded bytes, so an old capture
benefits from newer checks. With --follow, keeps reading a capture that
another linesman is still writing, and shows new events as they arrive (it
waits for the file if that linesman has not created it yet).

When standard output is not a terminal (or with --text), view prints the
session as a text transcript instead, with everything the server wrote made
inert; with --follow it keeps printing until interrupted.

A torn last record (a recorder killed mid-write) is reported and skipped.

Exit status: 0 (q or ctrl+c in the inspector; the end of a transcript),
1 when the capture cannot be read, 2 usage error; stopped by a signal
(a --follow transcript is ended as tail -f is), 128+n: 130 SIGINT (^C),
143 SIGTERM, 129 SIGHUP.

Examples:
  linesman check --capture run.jsonl -- python3 server.py
  linesman view run.jsonl
  linesman view --follow run.jsonl     # while another linesman records it
`

// errWaitEnded: view --follow was interrupted while it waited for its file.
var errWaitEnded = errors.New("interrupted while waiting for the capture")

// openViewed opens the capture at path, or with follow waits for it to
// appear and follows it as it grows (fl is then its follower).
func openViewed(ctx context.Context, path string, follow bool, poll time.Duration, stderr io.Writer) (c *capture.Capture, fl *capture.Follower, err error) {
	if !follow {
		c, err = capture.Open(path)
		return c, nil, err
	}
	if werr := waitForFile(ctx, path, poll, stderr); werr != nil {
		return nil, nil, errWaitEnded
	}
	fl, err = capture.Follow(ctx, path, capture.FollowOptions{Poll: poll})
	if err != nil {
		return nil, nil, err
	}
	return fl.Capture(), fl, nil
}

// runView opens a capture read-only.
func runView(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("view", viewHeader, stdout, stderr)
	follow := fs.Bool("follow", false, "keep reading the capture as it grows (another linesman is writing it)")
	text := fs.Bool("text", false, "print a text transcript instead of opening the inspector")
	theme := fs.String("theme", "auto", "colour theme: auto, dark, light or high-contrast (NO_COLOR is honoured)")
	poll := fs.Duration("poll", capture.DefaultPoll, "with --follow: how often to look for new records")
	files, status, ok := parseFlagsAnywhere(fs, args)
	if !ok {
		return status
	}
	if len(files) != 1 {
		fmt.Fprintln(stderr, "linesman view: want exactly one capture FILE")
		fmt.Fprintf(stderr, "Run 'linesman view --help' for the flags and an example.\n")
		return exitUsage
	}
	if _, err := themes.Get(*theme, true); err != nil {
		fmt.Fprintf(stderr, "linesman view: --theme: %v\n", err)
		return exitUsage
	}
	path, err := viewTarget(files[0]) // a tap's name, or latest
	if err != nil {
		fmt.Fprintf(stderr, "linesman view: %v\n", err)
		return exitFindings
	}
	interactive := !*text && isTerminal(stdout)
	if !interactive {
		// A transcript is text like export's: it goes through the same
		// inert writer (a crafted capture's codes and signals included).
		iw := &inertWriter{w: stdout}
		defer iw.Flush()
		stdout = iw
	}
	return viewRun(path, interactive, *follow, *theme, *poll, stdout, stderr)
}

// viewRun shows the capture at path: in the inspector (interactive), or as
// a text transcript. SIGINT, SIGTERM and SIGHUP end it — a followed
// transcript (as tail -f), the wait for the file, the inspector — with the
// status of the signal (signals.go); ctrl+c and q inside the inspector are
// keys and end it with 0.
func viewRun(path string, interactive, follow bool, theme string, poll time.Duration, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := watchSignals(stopSignals(), func(os.Signal) { cancel() })
	defer sigs.close()
	c, fl, err := openViewed(ctx, path, follow, poll, stderr)
	if errors.Is(err, errWaitEnded) {
		status, _ := sigs.status() // only a signal ends the wait
		return status
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman view: %v\n", err)
		return exitFindings
	}

	switch {
	case interactive:
		c, fl, path, err = viewSwitching(ctx, c, fl, path, theme, poll)
	case fl != nil:
		capture.WriteTranscriptHeader(stdout, c.Log, c.Header)
		next := tailTranscript(stdout, c.Log, 1, fl.Done())
		err = fl.Stop()
		// Events the follower appended while it was stopping.
		tailTranscript(stdout, c.Log, next, closed)
	default:
		err = capture.WriteTranscript(stdout, c.Log, c.Header)
	}
	if fl != nil {
		if ferr := fl.Stop(); err == nil && ferr != nil {
			err = ferr
		}
	}
	if status, ok := sigs.status(); ok {
		return status // what ended it; an error on the way out is its echo
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman view: %v\n", err)
		return exitFindings
	}
	reportTorn(stderr, "linesman view", path, c)
	return exitOK
}

// viewUI runs the inspector over the capture's log, read-only. A followed
// tap says why it is read-only and offers the next live tap (T).
func viewUI(ctx context.Context, c *capture.Capture, fl *capture.Follower, path, theme string) error {
	readOnly, next := tapUIOptions(path, fl != nil)
	title := "capture " + filepath.Base(path)
	if t, ok := tapTitle(path); ok {
		title = t
	}
	now := c.Log.Since // following: the writer's clock, live
	if fl == nil {
		// A closed capture: time stands still at its last event, so ages
		// and uptimes read as they did when it was recorded.
		var end time.Duration
		if _, next := c.Log.Bounds(); next > 1 {
			if ev, ok := c.Log.Get(next - 1); ok {
				end = ev.At
			}
		}
		now = func() time.Duration { return end }
	} else {
		title += " (following)"
	}
	if c.Torn > 0 {
		title += " — torn last record skipped"
	}
	if c.SkippedCount > 0 {
		title += fmt.Sprintf(" — %d bad record(s) skipped (listed on exit)", c.SkippedCount)
	}
	env := make([]string, len(c.Header.Env))
	for i, v := range c.Header.Env {
		env[i] = v.Name
		if v.Value != nil {
			env[i] += "=" + *v.Value
		}
	}
	return ui.Run(ui.Options{
		// The stop signals are viewRun's (see inspectOptions).
		ProgramOptions: []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()},
		Log:            c.Log,
		Tracker:        c.Tracker,
		Session:        nil, // read-only: no composer, no process control
		ReadOnly:       readOnly,
		NextSource:     next,
		Header:         c.Header, // exports (X) describe the recorded session
		Theme:          theme,
		Title:          title,
		Now:            now,
		ProcessInfo: func() ([]string, []string, string, int64) {
			return c.Header.Command, env, c.Header.Cwd, 0
		},
	})
}

// waitForFile waits until path exists, so that `view --follow` can be
// started before the linesman that records to it (as tail -F can). It says
// once that it waits; it returns ctx's error when interrupted.
func waitForFile(ctx context.Context, path string, poll time.Duration, stderr io.Writer) error {
	for said := false; ; said = true {
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			return nil // there, or another error that opening it will report
		}
		if !said {
			fmt.Fprintf(stderr, "linesman view: waiting for %s to be created (ctrl+c to stop)\n", path)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// isTerminal reports whether w is a terminal the inspector can draw on
// (isatty: /dev/null is a character device, not a terminal).
func isTerminal(w io.Writer) bool { return inspectTerminal(w) }

// closed is a channel that is always ready.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// tailTranscript prints the log's events from Seq next on as they are
// appended, until done is closed and what was appended up to that moment is
// printed; it returns the Seq of the next event to print.
func tailTranscript(w io.Writer, log *eventlog.Log, next uint64, done <-chan struct{}) uint64 {
	signal, cancel := log.Subscribe()
	defer cancel()
	for {
		stop := false
		select {
		case <-done:
			stop = true
		default:
		}
		_, end := log.Bounds()
		for _, ev := range log.Range(next, end) {
			capture.WriteTranscriptEvent(w, &ev)
			next = ev.Seq + 1
		}
		if stop {
			return next
		}
		select {
		case <-signal:
		case <-done:
		}
	}
}

// reportTorn says, on stderr, that a torn last record was skipped and that
// events were dropped.
func reportTorn(stderr io.Writer, prefix, path string, c *capture.Capture) {
	if c.Torn > 0 {
		fmt.Fprintf(stderr, "%s: %s: the last record was cut short (%d bytes, a recorder stopped mid-write) and was skipped\n", prefix, path, c.Torn)
	}
	if c.Dropped > 0 {
		fmt.Fprintf(stderr, "%s: %s: the recorder lost %d events to the live log's retention limit\n", prefix, path, c.Dropped)
	}
	// Bad records were skipped, not fatal: say which, with line numbers.
	for _, sk := range c.Skipped {
		fmt.Fprintf(stderr, "%s: %s:%d: skipped a bad record (%d bytes): %s\n", prefix, path, sk.Line, sk.Bytes, sk.Reason)
	}
	if more := c.SkippedCount - len(c.Skipped); more > 0 {
		fmt.Fprintf(stderr, "%s: %s: and %d more bad records skipped\n", prefix, path, more)
	}
}

// parseFlagsAnywhere parses flags before, between and after the positional
// arguments ("view FILE --follow", "explain CODE --json"), which the flag
// package alone stops at; "--" ends the flags. It returns the positional
// arguments; ok is false when the caller should return status.
func parseFlagsAnywhere(fs *flag.FlagSet, args []string) (positional []string, status int, ok bool) {
	for {
		if status, ok := parseFlags(fs, args); !ok {
			return nil, status, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, true
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			// Everything after "--" is positional.
			return append(positional, rest...), 0, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
