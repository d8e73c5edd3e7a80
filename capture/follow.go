package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// DefaultPoll is how often a Follower looks for new records.
const DefaultPoll = 50 * time.Millisecond

// FollowOptions tune a Follower.
type FollowOptions struct {
	OpenOptions
	// Poll is the interval between looks at the file (0: DefaultPoll).
	Poll time.Duration
}

// Follower tails a capture that another linesman is still writing, appending
// each new complete record to its Capture's Log as it appears, so a UI
// subscribed to the log sees the session live. A partial last line waits for
// its end. It polls rather than watching the file: captures are written a
// record at a time, and polling works on every file system.
type Follower struct {
	c    *Capture
	file *os.File
	rd   *reader
	poll time.Duration

	stop chan struct{}
	done chan struct{}
	once sync.Once
	err  error // set before done is closed
}

// Follow opens the capture at path, waits (until ctx ends) for its header,
// reads every record already complete, and then keeps following the file on
// its own goroutine until Stop is called or ctx ends.
func Follow(ctx context.Context, path string, opts FollowOptions) (*Follower, error) {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	fl := &Follower{
		file: f,
		rd:   newReader(f, path, opts.OpenOptions),
		poll: opts.Poll,
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	tick := time.NewTicker(opts.Poll)
	defer tick.Stop()
	for {
		if err := fl.rd.poll(); err != nil {
			f.Close()
			return nil, err
		}
		if fl.rd.c != nil {
			break
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("capture: %s: no header yet: %w", path, ctx.Err())
		case <-tick.C:
		}
	}
	fl.c = fl.rd.c
	go fl.run(ctx)
	return fl, nil
}

// Capture returns what has been read so far; its Log keeps growing while the
// Follower runs. Header is fixed from the start.
func (fl *Follower) Capture() *Capture { return fl.c }

// Done is closed when the Follower has stopped (Stop, ctx, or an error).
func (fl *Follower) Done() <-chan struct{} { return fl.done }

// Stop stops following, and returns the error that ended it early, if any.
// A partial last line left at the end is reported in Capture().Torn.
func (fl *Follower) Stop() error {
	fl.once.Do(func() { close(fl.stop) })
	<-fl.done
	return fl.err
}

// ErrTruncated is returned (wrapped) by Follower.Stop when the followed file
// shrank: a new recording started over it.
var ErrTruncated = errors.New("the capture was truncated while being followed (a new recording started over it?)")

// truncated reports ErrTruncated when the file is shorter than what was
// already read from it: a capture only ever grows.
func (fl *Follower) truncated() error {
	fi, err := fl.file.Stat()
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if fi.Size() < fl.rd.offset {
		return fmt.Errorf("capture: %s: %w", fl.rd.path, ErrTruncated)
	}
	return nil
}

func (fl *Follower) run(ctx context.Context) {
	defer close(fl.done)
	defer fl.file.Close()
	tick := time.NewTicker(fl.poll)
	defer tick.Stop()
	for {
		select {
		case <-fl.stop:
		case <-ctx.Done():
		case <-tick.C:
			if err := fl.rd.poll(); err != nil {
				fl.err = err
				return
			}
			if err := fl.truncated(); err != nil {
				fl.err = err
				return
			}
			continue
		}
		// Take what was written up to the moment we were stopped.
		fl.err = fl.rd.poll()
		if fl.err == nil {
			fl.err = fl.rd.end()
		}
		return
	}
}
