package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"linesman/capture"
	"linesman/session/eventlog"
)

// ViewOptions say which capture [View] shows, and how.
type ViewOptions struct {
	Path   string        // the capture (a tap's, when it was named by its tap)
	Follow bool          // keep reading it as another linesman writes it
	Poll   time.Duration // with Follow: how often to look for new records
	// UI shows the capture in the inspector until the user quits
	// (returning nil), or asks for the next live tap ([ErrNextTap]); nil
	// means a text transcript on stdout instead.
	UI func(ctx context.Context, c *capture.Capture, fl *capture.Follower, path string) error
}

// ErrNextTap is what a [ViewOptions.UI] returns when the user asked for
// the next live tap (T): [View] follows that one instead.
var ErrNextTap = errors.New("switch to the next live tap")

// errWaitEnded: view --follow was interrupted while it waited for its file.
var errWaitEnded = errors.New("interrupted while waiting for the capture")

// View shows a capture: in opts.UI, or as a text transcript on stdout
// (followed, as tail -f, with opts.Follow). SIGINT, SIGTERM and SIGHUP end
// it — a followed transcript, the wait for the file, the inspector — with
// the status of the signal; ctrl+c and q inside the inspector are keys and
// end it with 0. A capture that cannot be read ends it with 1.
func View(opts ViewOptions, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := WatchSignals(StopSignals(), func(os.Signal) { cancel() })
	defer sigs.Close()
	path := opts.Path
	c, fl, err := openViewed(ctx, opts, stderr)
	if errors.Is(err, errWaitEnded) {
		status, _ := sigs.Status() // only a signal ends the wait
		return status
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman view: %v\n", err)
		return StatusFailed
	}

	switch {
	case opts.UI != nil:
		c, fl, path, err = viewSwitching(ctx, opts, c, fl)
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
	if status, ok := sigs.Status(); ok {
		return status // what ended it; an error on the way out is its echo
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman view: %v\n", err)
		return StatusFailed
	}
	c.Warn(stderr, "linesman view", path)
	return StatusOK
}

// openViewed opens the capture, or with opts.Follow waits for it to
// appear and follows it as it grows (fl is then its follower).
func openViewed(ctx context.Context, opts ViewOptions, stderr io.Writer) (c *capture.Capture, fl *capture.Follower, err error) {
	if !opts.Follow {
		c, err = capture.Open(opts.Path)
		return c, nil, err
	}
	if werr := waitForFile(ctx, opts.Path, opts.Poll, stderr); werr != nil {
		return nil, nil, errWaitEnded
	}
	fl, err = capture.Follow(ctx, opts.Path, capture.FollowOptions{Poll: opts.Poll})
	if err != nil {
		return nil, nil, err
	}
	return fl.Capture(), fl, nil
}

// viewSwitching runs the UI on a capture and, each time the user asks for
// the next live tap (T), follows that one instead.
func viewSwitching(ctx context.Context, opts ViewOptions, c *capture.Capture, fl *capture.Follower) (*capture.Capture, *capture.Follower, string, error) {
	path := opts.Path
	for {
		err := opts.UI(ctx, c, fl, path)
		if !errors.Is(err, ErrNextTap) {
			return c, fl, path, err
		}
		t, ok := capture.NextLiveTap(path)
		if !ok {
			continue // none (it ended meanwhile, or none started yet): stay on this one
		}
		nfl, err := capture.Follow(ctx, t.Path, capture.FollowOptions{Poll: opts.Poll})
		if err != nil {
			continue
		}
		fl.Stop()
		c, fl, path = nfl.Capture(), nfl, t.Path
	}
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
