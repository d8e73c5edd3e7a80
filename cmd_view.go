package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"linesman/capture"
	"linesman/session"
)

const viewHeader = `Usage: linesman view [--follow] FILE

Opens a capture written with --capture. Every frame's findings are
recomputed from the recorded bytes, so an old capture benefits from newer
checks. With --follow, keeps reading a capture that another linesman is still
writing and shows new events as they arrive (stop with Ctrl-C).

For now view prints the session as a text transcript (the interactive,
read-only inspector takes over when the UI lands); everything the server
wrote is made inert. A torn last record (a recorder killed mid-write) is
reported and skipped.

Example:
  linesman check --capture run.jsonl -- python3 server.py
  linesman view run.jsonl
`

// runView opens a capture read-only.
func runView(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("view", viewHeader, stderr)
	follow := fs.Bool("follow", false, "keep reading the capture as it grows (another linesman is writing it)")
	poll := fs.Duration("poll", capture.DefaultPoll, "with --follow: how often to look for new records")
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "linesman view: want exactly one capture FILE")
		fs.Usage()
		return exitUsage
	}
	path := fs.Arg(0)
	if !*follow {
		c, err := capture.Open(path)
		if err != nil {
			fmt.Fprintf(stderr, "linesman view: %v\n", err)
			return exitFindings
		}
		if err := capture.WriteTranscript(stdout, c.Log, c.Header); err != nil {
			fmt.Fprintf(stderr, "linesman view: %v\n", err)
			return exitFindings
		}
		reportTorn(stderr, "linesman view", path, c)
		return exitOK
	}

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	fl, err := capture.Follow(ctx, path, capture.FollowOptions{Poll: *poll})
	if err != nil {
		fmt.Fprintf(stderr, "linesman view: %v\n", err)
		return exitFindings
	}
	c := fl.Capture()
	capture.WriteTranscriptHeader(stdout, c.Log, c.Header)
	err = tailTranscript(stdout, c.Log, fl.Done())
	if ferr := fl.Stop(); err == nil {
		err = ferr
	}
	// Events the follower appended while stopping.
	if terr := tailTranscript(stdout, c.Log, closed); err == nil {
		err = terr
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "linesman view: %v\n", err)
		return exitFindings
	}
	reportTorn(stderr, "linesman view", path, c)
	return exitOK
}

// closed is a channel that is always ready.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// tailTranscript prints the log's events as they are appended, until done
// is closed, and then what was appended up to that moment.
func tailTranscript(w io.Writer, log *session.Log, done <-chan struct{}) error {
	signal, cancel := log.Subscribe()
	defer cancel()
	next, _ := log.Bounds()
	for {
		_, end := log.Bounds()
		for _, ev := range log.Range(next, end) {
			capture.WriteTranscriptEvent(w, &ev)
			next = ev.Seq + 1
		}
		select {
		case <-signal:
		case <-done:
			_, end := log.Bounds()
			for _, ev := range log.Range(next, end) {
				capture.WriteTranscriptEvent(w, &ev)
			}
			return nil
		}
	}
}

// reportTorn says, on stderr, that a torn last record was skipped and that events were dropped.
func reportTorn(stderr io.Writer, prefix, path string, c *capture.Capture) {
	if c.Torn > 0 {
		fmt.Fprintf(stderr, "%s: %s: the last record was cut short (%d bytes, a recorder stopped mid-write) and was skipped\n", prefix, path, c.Torn)
	}
	if c.Dropped > 0 {
		fmt.Fprintf(stderr, "%s: %s: the recorder lost %d events to the live log's retention limit\n", prefix, path, c.Dropped)
	}
}
