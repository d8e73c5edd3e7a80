package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"linesman/capture"
	"linesman/session"
	"linesman/session/eventlog"
	"linesman/session/report"
	"linesman/wire"
)

// CI says which report files a headless run writes beside its text or JSON
// report, and which findings fail it.
type CI struct {
	JUnit  string // --junit FILE
	SARIF  string // --sarif FILE
	Origin string // the host config file the server came from (SARIF results point at it)
	FailOn string // --fail-on: the least severity that fails the run
}

// write writes the report files asked for. Each is written whole to a
// temporary file beside it and renamed, so a reader never sees half.
// recording is the capture the run was recorded to ("" for none): SARIF
// results point at the lines of their frames in it, when no config
// entry is theirs.
func (c *CI) write(rep *report.Report, recording string) error {
	opt := report.CIOptions{ConfigFile: c.Origin, Seconds: rep.Seconds, FailOn: c.FailOn}
	if c.SARIF != "" && c.Origin == "" && recording != "" {
		lines, err := capture.FrameLines(recording)
		if err != nil {
			return fmt.Errorf("%s: reading the capture's lines: %w", c.SARIF, err)
		}
		opt.Recording, opt.FrameLines = recording, lines
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer, report.CIOptions) error
	}{{c.JUnit, rep.WriteJUnit}, {c.SARIF, rep.WriteSARIF}} {
		if out.path == "" {
			continue
		}
		var buf bytes.Buffer
		if err := out.write(&buf, opt); err != nil {
			return fmt.Errorf("%s: %w", out.path, err)
		}
		if err := report.WriteFileAtomic(out.path, buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// Steps is what a headless run does with a running session before the
// shutdown ladder.
type Steps func(ctx context.Context, s *session.Session) error

// Headless starts the server, runs steps, shuts the server down, prints
// the report on stdout (and the CI files), and returns the exit status.
// Every wait is bounded: steps by the per-request timeout (and by
// opts.Limit), the end by the ladder's waits plus a margin, after which
// the group is killed; a stop signal skips to the shutdown and the report.
func Headless(opts *Options, steps Steps, stdout, stderr io.Writer) int {
	rep, status := headless(opts, steps, stderr)
	if rep == nil {
		return status
	}
	var err error
	switch {
	case opts.JSON:
		err = rep.WriteJSON(stdout)
	case rep.Process.Pid != 0 || rep.Error == "":
		err = rep.WriteText(stdout) // a server that never started has said why on stderr
	}
	if err == nil {
		err = opts.CI.write(rep, opts.Capture)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: writing the report: %v\n", opts.Name, err)
		return StatusFailed
	}
	return status
}

// headless starts the server, runs steps (cut short after opts.Limit,
// when positive), shuts the server down, judges the policy and the drift
// from the baseline, and returns the report and the run's exit status.
// rep is nil only when there is nothing to report (a usage error such as
// an unwritable --log file); a server that could not be started gets a
// report that says why.
func headless(opts *Options, steps Steps, stderr io.Writer) (rep *report.Report, status int) {
	start := time.Now()
	r, status, startErr := Start(opts, stderr)
	if r == nil {
		if startErr == nil {
			return nil, status
		}
		// A script and CI still get a report to read: no process, and why.
		rp := report.FromLog(eventlog.NewLog(0), nil, report.Meta{Mode: opts.Mode, Command: opts.Session.Command, Error: startErr.Error()})
		rp.Seconds = time.Since(start).Seconds()
		return &rp, status
	}
	defer r.Close()
	ctx := r.ctx
	if opts.Limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Limit)
		defer cancel()
	}
	stepErr := steps(ctx, r.s)
	// Judge now, before the ladder ends the process: did the steps fail
	// because the server was gone, or for a reason of their own?
	ownFailure := stepErr != nil && !serverGone(r.s, stepErr)
	cutShort := stepErr != nil && opts.Limit > 0 && ctx.Err() != nil && r.ctx.Err() == nil
	_, interrupted := r.sigs.First()
	r.Logf("steps done (error: %v, interrupted: %v); shutdown ladder", stepErr, interrupted)
	r.Shutdown()
	opts.Policy.Enforce(r.s.Log(), r.s.Tracker(), time.Since(start))
	drift := opts.Baseline.Compare(opts.BaselineKey, r.s.Log(), r.s.Tracker())
	captureErr := r.stopCapture()

	meta := r.meta(drift)
	switch {
	case meta.Interrupted:
		meta.Error = "interrupted"
	case cutShort:
		meta.Error = fmt.Sprintf("no verdict within --server-timeout %s: the check was cut short and the server shut down", opts.Limit)
	case ownFailure:
		meta.Error = stepErr.Error()
	case captureErr != nil:
		// The run fails (exit 1): the report must say so, not "exit status 0".
		meta.Error = captureErr.Error()
	}
	rp := report.FromLog(r.s.Log(), r.s.Tracker(), meta)
	rp.Seconds = time.Since(start).Seconds()
	if captureErr != nil {
		fmt.Fprintf(stderr, "%s: %v\n", opts.Name, captureErr)
		return &rp, StatusFailed
	}
	if meta.Interrupted {
		return &rp, report.SignalStatus(meta.InterruptSignal) // the policy: see the package doc
	}
	status, _ = rp.ExitStatusAt(opts.CI.FailOn)
	return &rp, status
}

// meta describes a finished headless run to its report; drift says whether
// it was judged against a baseline.
func (r *Run) meta(drift bool) report.Meta {
	opts := r.opts
	meta := report.Meta{Command: r.s.Info().Command}
	meta.Mode = opts.Mode
	meta.FrameText = opts.Mode == "send"
	meta.FrameTextLimit = opts.MaxText
	// Only the JSON report and send's text list every frame.
	meta.FindingFrames = !opts.JSON && !meta.FrameText
	meta.InterruptSignal, meta.Interrupted = r.sigs.First()
	if opts.Policy.Active() {
		meta.Applied = append(meta.Applied, wire.FamilyPolicy)
	}
	if drift {
		meta.Applied = append(meta.Applied, wire.FamilyDrift)
	}
	return meta
}

// serverGone reports whether err only says that the server exited: the
// findings (exit-at-start, exited-during-request) already tell that story,
// so it is not also linesman's own failure.
func serverGone(s *session.Session, err error) bool {
	var ee *session.ExitedError
	if errors.As(err, &ee) || errors.Is(err, session.ErrNoAnswer) {
		return true
	}
	select {
	case <-s.Exited():
		return true
	default:
		return false
	}
}
