package run

import (
	"fmt"
	"os"
	"slices"
	"time"

	"linesman/session"
	"linesman/session/eventlog"
	"linesman/session/report"
)

// Options are what a run of a server is told: the server and how to start
// it, where to log and record, which signals end it. The headless modes'
// fields say what to judge and report.
type Options struct {
	Name       string         // "linesman check": the prefix of messages and log lines
	Mode       string         // the report's mode: "check", "send"
	Session    session.Config // the server, as the user's flags describe it
	Era        string         // --era as given: auto, legacy or modern (the capture's header)
	LogFile    string         // --log: linesman's own diagnostics ("" none)
	Capture    string         // --capture: the file to record to ("" none)
	CaptureEnv bool           // --capture-env: environment values in the capture
	Signals    Signals

	// Headless modes (check, send).
	Limit       time.Duration    // --server-timeout: the steps are cut short after it (0: never)
	JSON        bool             // --json: the JSON report, not the text one
	MaxText     int              // send --max-text: cap on each frame's text in the report (0: whole)
	CI          CI               // --junit, --sarif, --fail-on
	Policy      report.Policy    // --expect-tool, --forbid-tool, --max-duration, --max-latency
	Baseline    *report.Baseline // --baseline (nil: none)
	BaselineKey string           // the server's key in the baseline file

	Tap *TapOptions // a tap's name, directory and capture ([Tap])

	// A server of a config entry (check --all): its environment goes
	// under the user's -e, its directory is used without --cwd; the
	// capture's header still describes the user's flags.
	entryEnv []string
	entryDir string
}

// Signals are the signals that end a run early (those linesman was
// started with ignored excepted: see [WatchSignals]). Each ends the run's
// context; those in Kill also kill the server's process group at once (the
// inspector's hangup: the terminal is gone, nobody will quit the UI).
type Signals struct {
	Stop []os.Signal
	Kill []os.Signal
}

// kills reports whether sig is one of sig.Kill.
func (rs Signals) kills(sig os.Signal) bool {
	for _, k := range rs.Kill {
		if k == sig {
			return true
		}
	}
	return false
}

// sessionConfig is the configuration the session starts with: the user's,
// with a config entry's environment and directory under it.
func (o *Options) sessionConfig() session.Config {
	cfg := o.Session
	if o.entryEnv != nil {
		cfg.Env = append(append([]string{}, o.entryEnv...), o.Session.Env...) // the user's -e win
	}
	if cfg.Dir == "" {
		cfg.Dir = o.entryDir
	}
	return cfg
}

// Validate checks the values flag parsing cannot (the flags' names are
// in its errors), and completes the session's configuration from them:
// its era, its probe's timeout (at most a request's), headless.
func (o *Options) Validate() error {
	switch o.Era {
	case "auto":
	case "legacy":
		o.Session.Era = eventlog.EraLegacy
	case "modern":
		o.Session.Era = eventlog.EraModern
	default:
		return fmt.Errorf("--era %q: want auto, legacy or modern", o.Era)
	}
	if o.Session.Timeout <= 0 {
		return fmt.Errorf("--timeout %s: want a positive duration such as 30s", o.Session.Timeout)
	}
	if o.Session.MaxFrame < 1024 {
		return fmt.Errorf("--max-frame %d: want at least 1024 bytes", o.Session.MaxFrame)
	}
	if o.CI.FailOn != "" && !slices.Contains(report.FailOnLevels, o.CI.FailOn) {
		return fmt.Errorf("--fail-on %q: want error, warning or note", o.CI.FailOn)
	}
	if err := o.Policy.Validate(); err != nil {
		return err
	}
	// The session would quietly take 0 for its default (2s), and a wait
	// of nothing would flag every server as ignoring stdin EOF or SIGTERM.
	for _, w := range []struct {
		name string
		d    time.Duration
	}{{"--stdin-wait", o.Session.StdinCloseWait}, {"--sigterm-wait", o.Session.SIGTERMWait}} {
		if w.d <= 0 {
			return fmt.Errorf("%s %s: want a positive duration such as 500ms (the server needs a moment to exit)", w.name, w.d)
		}
	}
	o.Session.ProbeTimeout = min(o.Session.Timeout, o.Session.ProbeTimeout)
	o.Session.Headless = true
	return nil
}
