package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
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
	failOn string      // --fail-on: the least severity that fails the run
	policy policyFlags // --expect-tool, --forbid-tool, --max-duration, --max-latency
	// baseline is check's --baseline file, loaded (nil without one).
	baseline *baseline
}

// register adds the CI flags to fs.
func (c *ciFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.junit, "junit", "", "also write a JUnit XML report to `FILE`: a test suite for the server, a test case per rule family (it fails when its findings fail the run under --fail-on; not observed and not applicable are skipped)")
	fs.StringVar(&c.failOn, "fail-on", "error", "the least severity of finding that fails the run (exit status 1): error, warning or note")
	fs.StringVar(&c.origin, "config-origin", "", "the host config `FILE` the server came from (set by --config; SARIF results point at it)")
	fs.StringVar(&c.sarif, "sarif", "", "also write a SARIF 2.1.0 log to `FILE`: a rule per finding code (title, why and fix, clause), a result per finding")
	c.policy.register(fs)
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
		if err := writeFileAtomic(out.path, buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory and a rename.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// validate checks the CI flags' values.
func (c *ciFlags) validate() error {
	if !slices.Contains(report.FailOnLevels, c.failOn) {
		return fmt.Errorf("--fail-on %q: want error, warning or note", c.failOn)
	}
	return c.policy.validate()
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
