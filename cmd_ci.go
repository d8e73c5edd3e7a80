package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"slices"

	"linesman/capture"
	"linesman/session/report"
)

// ciFlags are the flags of check and send for CI: report files beside the
// text or JSON report.
type ciFlags struct {
	junit string
	sarif string
	// origin is the host config file the server came from (--config),
	// passed on by configServer as --config-origin.
	origin string
	failOn string        // --fail-on: the least severity that fails the run
	policy report.Policy // --expect-tool, --forbid-tool, --max-duration, --max-latency
	// baseline is check's --baseline file, loaded (nil without one).
	baseline *report.Baseline
}

// register adds the CI flags to fs.
func (c *ciFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.junit, "junit", "", "also write a JUnit XML report to `FILE`: a test suite for the server, a test case per rule family (it fails when its findings fail the run under --fail-on; not observed and not applicable are skipped)")
	fs.StringVar(&c.failOn, "fail-on", "error", "the least severity of finding that fails the run (exit status 1): error, warning or note")
	fs.StringVar(&c.origin, "config-origin", "", "the host config `FILE` the server came from (set by --config; SARIF results point at it)")
	fs.StringVar(&c.sarif, "sarif", "", "also write a SARIF 2.1.0 log to `FILE`: a rule per finding code (title, why and fix, clause), a result per finding")
	p := &c.policy
	fs.Var((*listFlag)(&p.ExpectTools), "expect-tool", "policy: the server must list a tool named `NAME` (repeatable); missing is an expected-tool-missing error")
	fs.Var((*listFlag)(&p.ForbidTools), "forbid-tool", "policy: no listed tool may match `GLOB` (path.Match syntax: *, ?, [a-z]; repeatable); a match is a forbidden-tool-present error")
	durationVar(fs, &p.MaxDuration, "max-duration", 0, "policy: the whole run (start to exit) must take at most this long, else run-over-max-duration (0: no limit)")
	durationVar(fs, &p.MaxLatency, "max-latency", 0, "policy: each request must be answered within this, else request-over-max-latency (0: no limit)")
}

// write writes the report files asked for. Each is written whole to a
// temporary file beside it and renamed, so a reader never sees half.
// recording is the capture the run was recorded to ("" for none): SARIF
// results point at the lines of their frames in it, when no config
// entry is theirs.
func (c *ciFlags) write(rep *report.Report, recording string) error {
	opt := report.CIOptions{ConfigFile: c.origin, Seconds: rep.Seconds, FailOn: c.failOn}
	if c.sarif != "" && c.origin == "" && recording != "" {
		lines, err := capture.FrameLines(recording)
		if err != nil {
			return fmt.Errorf("%s: reading the capture's lines: %w", c.sarif, err)
		}
		opt.Recording, opt.FrameLines = recording, lines
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer, report.CIOptions) error
	}{{c.junit, rep.WriteJUnit}, {c.sarif, rep.WriteSARIF}} {
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

// validate checks the CI flags' values.
func (c *ciFlags) validate() error {
	if !slices.Contains(report.FailOnLevels, c.failOn) {
		return fmt.Errorf("--fail-on %q: want error, warning or note", c.failOn)
	}
	return c.policy.Validate()
}

// exitStatus is the report's exit status under --fail-on.
func (c *ciFlags) exitStatus(rep *report.Report) int {
	status, _ := rep.ExitStatusAt(c.failOn)
	return status
}

// hiddenFlags are flags linesman passes to itself (configServer adds
// --config-origin): accepted, never listed by --help.
var hiddenFlags = map[string]bool{"config-origin": true}

// printVisibleDefaults is fs.PrintDefaults without the hidden flags.
func printVisibleDefaults(fs *flag.FlagSet) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(fs.Output())
	fs.VisitAll(func(f *flag.Flag) {
		if hiddenFlags[f.Name] {
			return
		}
		shown.Var(f.Value, f.Name, f.Usage)
		shown.Lookup(f.Name).DefValue = f.DefValue
	})
	shown.PrintDefaults()
}
