package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"linesman/capture"
	"linesman/session"
	"linesman/session/eventlog"
	"linesman/session/report"
	"linesman/wire"
)

const checkHeader = `linesman check — a headless conformance run of an MCP stdio server

Usage:
  linesman check [flags] -- COMMAND [ARG...]
  linesman check [--json] --from FILE

It starts COMMAND, probes the protocol era and makes the handshake, lists the
tools, prompts and resources the server declares, pings it (in the legacy era,
which has ping), and runs the shutdown ladder: close stdin, SIGTERM, SIGKILL.
It calls no tools (tools can have side effects). Then it prints a report: what
the server is, its era and protocol version, the findings grouped by severity
with the frame each points at and a one-line fix, the stderr tail, and how the
process ended, and for each family of protocol rules whether it held, was
broken or was not observed. --json prints one JSON document instead (schema in
docs/report.md). --junit FILE and --sarif FILE also write the report for CI, as
JUnit XML and SARIF 2.1.0 (any combination with the text or JSON report).

--from FILE judges a conversation recorded earlier instead of running a
server, with the same rules: a linesman capture, a Claude Desktop MCP server
log (mcp-server-NAME.log), VS Code's MCP output channel saved to a file, an
mcpsnoop session log, JSON Lines of {"dir":"c2s"|"s2c","message":{...}}, or
a transcript of "> " (client) and "< " (server) lines (see
docs/capture.md, "Judging recorded conversations").

Exit status: 0 no finding at or above the --fail-on severity (error by
default; warning or note to be stricter), 1 at least one (or the run
failed: no handshake, no server), 2 usage error; stopped by a signal,
128+n: 130 SIGINT (^C), 143 SIGTERM, 129 SIGHUP (the server is still shut
down and the report printed).

--config FILE --all checks every stdio server of a host's config file, or
of a plain list (*.txt, *.list: one server a line, NAME then its command),
--parallel N at once, each bounded by --server-timeout, in one report, one
JUnit/SARIF document and one exit status. Policy: --expect-tool NAME,
--forbid-tool GLOB, --max-duration D, --max-latency D (each violation an
error finding of the policy family). --baseline FILE records the tools,
prompts and resources on the first run and reports drift against them on
later runs (tool-removed, tool-description-changed, ...; see linesman diff);
a run whose server listed nothing is neither compared nor recorded.

Examples:
  linesman check -- python3 server.py
  linesman check --json --timeout 10s -e API_KEY=test -- node build/index.js
  linesman check --era legacy -- ./my-server --stdio
  linesman check --junit junit.xml --sarif linesman.sarif -- node build/index.js
  linesman check --from ~/Library/Logs/Claude/mcp-server-weather.log
  linesman check --config .mcp.json --all --junit junit.xml --sarif linesman.sarif
  linesman check --expect-tool search --forbid-tool 'shell_*' --baseline mcp-baseline.json -- node build/index.js
`

// runCheck is "linesman check": spawn, handshake, list, ping, shut down,
// report.
func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var flags commonFlags
	fs := newFlagSet("check", checkHeader, stdout, stderr)
	flags.register(fs, true, false)
	flags.ci.register(fs)
	var all allFlags
	all.register(fs)
	from := fs.String("from", "", "judge the recorded conversation in `FILE` (a capture, a Claude Desktop MCP log, an mcpsnoop log, JSON Lines of {dir, message}, or a transcript of \"> \" and \"< \" lines) instead of running a server")
	if fromFlagGiven(args) {
		if status, ok := parseFlags(fs, args); !ok {
			return status
		}
		return checkFrom(*from, flags.jsonOut, splitCommand(fs), stdout, stderr)
	}
	if allGiven(args) {
		return runCheckAll(fs, &flags, &all, args, stdout, stderr)
	}
	command, status, ok := parseHeadless(fs, &flags, args, stderr)
	if !ok {
		return status
	}
	var err error
	if all.serverTimeout <= 0 {
		fmt.Fprintf(stderr, "linesman check: --server-timeout %s: want a positive duration such as 2m\n", all.serverTimeout)
		return exitUsage
	}
	if flags.ci.baseline, err = report.OpenBaseline(all.baseline); err != nil {
		fmt.Fprintf(stderr, "linesman check: --baseline: %s\n", inertText(err.Error()))
		return exitUsage
	}
	status = runHeadlessWithin("check", &flags, sessionConfig(&flags, command), stdout, stderr, checkSteps,
		headlessOpts{limit: all.serverTimeout, key: report.SingleBaselineKey})
	if err := flags.ci.baseline.Save(stderr); err != nil {
		fmt.Fprintf(stderr, "linesman check: %s\n", inertText(err.Error()))
		return exitFindings
	}
	return status
}

// fromFlagGiven reports whether the flags (before "--") include --from.
func fromFlagGiven(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--from" || a == "-from" || strings.HasPrefix(a, "--from=") || strings.HasPrefix(a, "-from=") {
			return true
		}
	}
	return false
}

// checkFrom is "linesman check --from FILE": the recorded conversation is
// read into a log through the same fold as a live session (capture.Open),
// and reported as a check run would be.
func checkFrom(path string, jsonOut bool, command []string, stdout, stderr io.Writer) int {
	if path == "" || len(command) > 0 {
		fmt.Fprintln(stderr, "linesman check: --from FILE judges a recorded conversation; give it a file and no server command")
		return exitUsage
	}
	c, err := capture.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "linesman check: %s\n", wire.VisibleString(err.Error(), wire.Pictures))
		return exitFindings
	}
	reportTorn(stderr, "linesman check", path, c)
	rep := report.FromLog(c.Log, c.Tracker, report.Meta{Mode: "check", Command: c.Header.Command, HostSection: true})
	noteUnread(&rep, path, c)
	if jsonOut {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman check: writing the report: %v\n", err)
		return exitFindings
	}
	return rep.ExitStatus()
}

// noteUnread adds to a report read from a recorded conversation what of
// the file could not be read (see capture.Capture.Unread).
func noteUnread(rep *report.Report, path string, c *capture.Capture) {
	if u := c.Unread(); u != "" {
		rep.Notes = append(rep.Notes, report.Note{Text: report.UnreadPrefix + path + ": " + u})
	}
}

// parseHeadless parses the flags of check and send and returns the server
// command; ok is false when the caller should return status.
func parseHeadless(fs *flag.FlagSet, flags *commonFlags, args []string, stderr io.Writer) (command []string, status int, ok bool) {
	if status, ok := parseFlags(fs, args); !ok {
		return nil, status, false
	}
	if err := flags.validate(); err != nil {
		fmt.Fprintf(stderr, "linesman %s: %v\n", fs.Name(), err)
		return nil, exitUsage, false
	}
	if err := flags.ci.validate(); err != nil {
		fmt.Fprintf(stderr, "linesman %s: %v\n", fs.Name(), err)
		return nil, exitUsage, false
	}
	if err := validateWaits(flags); err != nil {
		fmt.Fprintf(stderr, "linesman %s: %v\n", fs.Name(), err)
		return nil, exitUsage, false
	}
	if err := checkCaptureTarget(flags.capture); err != nil {
		fmt.Fprintf(stderr, "linesman %s: %v\n", fs.Name(), err)
		return nil, exitUsage, false
	}
	command = splitCommand(fs)
	if len(command) == 0 {
		fmt.Fprintf(stderr, "linesman %s: no server command; usage: linesman %s [flags] -- COMMAND [ARG...]\n", fs.Name(), fs.Name())
		return nil, exitUsage, false
	}
	return command, 0, true
}

// validateWaits refuses ladder waits that are not positive: the session
// would quietly take 0 for its default (2s), and a wait of nothing would
// flag every server as ignoring stdin EOF or SIGTERM.
func validateWaits(flags *commonFlags) error {
	for _, w := range []struct {
		name string
		d    time.Duration
	}{{"--stdin-wait", flags.stdinWait}, {"--sigterm-wait", flags.sigtermWait}} {
		if w.d <= 0 {
			return fmt.Errorf("%s %s: want a positive duration such as 500ms (the server needs a moment to exit)", w.name, w.d)
		}
	}
	return nil
}

// checkSteps is the conversation of check: everything a host does at
// start-up, nothing with side effects.
func checkSteps(ctx context.Context, s *session.Session, flags *commonFlags) error {
	if err := handshake(ctx, s, flags); err != nil {
		return err
	}
	for _, l := range []struct{ capability, method string }{
		{"tools", "tools/list"},
		{"prompts", "prompts/list"},
		{"resources", "resources/list"},
	} {
		if hs := s.Tracker().Handshake(); !hs.ServerDeclares(l.capability) {
			continue
		}
		if err := listAll(ctx, s, l.method, flags.timeout); err != nil {
			return err
		}
	}
	if s.Era() != eventlog.EraModern { // ping was removed in 2026-07-28
		if _, err := call(ctx, s, flags.timeout, "ping", nil); err != nil {
			return fmt.Errorf("ping: %w", err)
		}
	}
	return nil
}

// callMargin is how long past the per-request timeout a call waits: the
// tracker flags request-timeout at the timeout, and the margin lets that
// finding be logged before the call gives up (and cancels the request).
const callMargin = time.Second

// call is s.Call bounded by the per-request timeout.
func call(ctx context.Context, s *session.Session, timeout time.Duration, method string, params any) (*wire.Frame, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout+callMargin)
	defer cancel()
	return s.Call(ctx, method, params)
}

// handshake is s.Handshake bounded by the probe's and one request's timeout.
func handshake(ctx context.Context, s *session.Session, flags *commonFlags) error {
	cfg := sessionConfig(flags, nil)
	ctx, cancel := context.WithTimeout(ctx, cfg.ProbeTimeout+2*(flags.timeout+callMargin))
	defer cancel()
	if err := s.Handshake(ctx); err != nil {
		if errors.Is(err, session.ErrHandshake) {
			return err // it says "handshake failed: ..." already
		}
		return fmt.Errorf("handshake: %w", err)
	}
	return nil
}

// maxPages bounds the pagination of one list, against a server whose
// nextCursor never ends.
const maxPages = 20

// listAll calls a list method page by page, following nextCursor.
func listAll(ctx context.Context, s *session.Session, method string, timeout time.Duration) error {
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		f, err := call(ctx, s, timeout, method, params)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if f.Msg.Kind != wire.KindResult {
			return nil // an error answer: the report shows it
		}
		var page struct {
			Result struct {
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if json.Unmarshal(f.Raw(), &page) != nil || page.Result.NextCursor == "" || page.Result.NextCursor == cursor {
			return nil
		}
		cursor = page.Result.NextCursor
	}
	return nil
}

// headlessSteps is what a headless mode does with a running session before
// the shutdown ladder.
type headlessSteps func(ctx context.Context, s *session.Session, flags *commonFlags) error

// runHeadless starts the server, runs steps, shuts the server down, prints
// the report and returns the exit status. Every wait is bounded: steps by the
// per-request timeout, the end by the ladder's waits plus a margin, after
// which the group is killed; interrupting linesman (^C) skips to the
// shutdown and the report.
func runHeadless(mode string, flags *commonFlags, cfg session.Config, stdout, stderr io.Writer, steps headlessSteps) int {
	return runHeadlessWithin(mode, flags, cfg, stdout, stderr, steps, headlessOpts{})
}

// headlessOpts are what check adds to a headless run.
type headlessOpts struct {
	limit time.Duration // --server-timeout: the steps are cut short after it (0: never)
	key   string        // the server's key in the --baseline file
}

// runHeadlessWithin is runHeadless with check's options.
func runHeadlessWithin(mode string, flags *commonFlags, cfg session.Config, stdout, stderr io.Writer, steps headlessSteps, opts headlessOpts) int {
	rep, status := headlessRun(mode, flags, cfg, stderr, steps, opts)
	if rep == nil {
		return status
	}
	var err error
	switch {
	case flags.jsonOut:
		err = rep.WriteJSON(stdout)
	case rep.Process.Pid != 0 || rep.Error == "":
		err = rep.WriteText(stdout) // a server that never started has said why on stderr
	}
	if err == nil {
		err = flags.ci.write(rep, flags.capture)
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman %s: writing the report: %v\n", mode, err)
		return exitFindings
	}
	return status
}

// headlessRun starts the server, runs steps (cut short after opts.limit,
// when positive), shuts the server down, judges the policy and the drift
// from the --baseline (opts.key), and returns the
// report and the run's exit status. rep is nil only when there is nothing
// to report (a usage error such as an unwritable --log file); a server
// that could not be started gets a report that says why.
func headlessRun(mode string, flags *commonFlags, cfg session.Config, stderr io.Writer, steps headlessSteps, opts headlessOpts) (rep *report.Report, status int) {
	limit := opts.limit
	start := time.Now()
	// SIGHUP too: when the terminal goes away, the server's process group
	// must not outlive linesman (the parent-death signal reaches only the
	// server itself, not its children).
	r, status, startErr := startServerRun("linesman "+mode, flags, cfg, stderr, runSignals{sigs: stopSignals()})
	if r == nil {
		if startErr == nil {
			return nil, status
		}
		// A script and CI still get a report to read: no process, and why.
		rp := report.FromLog(eventlog.NewLog(0), nil, report.Meta{Mode: mode, Command: cfg.Command, Error: startErr.Error()})
		rp.Seconds = time.Since(start).Seconds()
		return &rp, status
	}
	defer r.close()
	ctx := r.ctx
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	stepErr := steps(ctx, r.s, flags)
	// Judge now, before the ladder ends the process: did the steps fail
	// because the server was gone, or for a reason of their own?
	ownFailure := stepErr != nil && !serverGone(r.s, stepErr)
	cutShort := stepErr != nil && limit > 0 && ctx.Err() != nil && r.ctx.Err() == nil
	_, interrupted := r.sigs.first()
	r.logf("steps done (error: %v, interrupted: %v); shutdown ladder", stepErr, interrupted)
	r.shutdown()
	flags.ci.policy.Judge(r.s.Log(), r.s.Tracker(), time.Since(start))
	drift := flags.ci.baseline.Judge(opts.key, r.s.Log(), r.s.Tracker())
	captureErr := r.stopCapture()

	meta := report.Meta{Command: r.s.Info().Command}
	meta.Mode = mode
	meta.FrameText = mode == "send"
	meta.FrameTextLimit = flags.maxText
	meta.InterruptSignal, meta.Interrupted = r.sigs.first()
	if flags.ci.policy.Active() {
		meta.Applied = append(meta.Applied, wire.FamilyPolicy)
	}
	if drift {
		meta.Applied = append(meta.Applied, wire.FamilyDrift)
	}
	switch {
	case meta.Interrupted:
		meta.Error = "interrupted"
	case cutShort:
		meta.Error = fmt.Sprintf("no verdict within --server-timeout %s: the check was cut short and the server shut down", limit)
	case ownFailure:
		meta.Error = stepErr.Error()
	case captureErr != nil:
		// The run fails (exit 1): the report must say so, not "exit status 0".
		meta.Error = captureErr.Error()
	}
	rp := report.FromLog(r.s.Log(), r.s.Tracker(), meta)
	rp.Seconds = time.Since(start).Seconds()
	if captureErr != nil {
		fmt.Fprintf(stderr, "linesman %s: %v\n", mode, captureErr)
		return &rp, exitFindings
	}
	if meta.Interrupted {
		return &rp, report.SignalStatus(meta.InterruptSignal) // the policy: signals.go
	}
	return &rp, flags.ci.exitStatus(&rp)
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

// sessionConfig turns the common flags into a session configuration.
func sessionConfig(flags *commonFlags, command []string) session.Config {
	era := eventlog.EraUnknown
	switch flags.era {
	case "legacy":
		era = eventlog.EraLegacy
	case "modern":
		era = eventlog.EraModern
	}
	return session.Config{
		Command:        command,
		Env:            flags.env,
		CleanEnv:       flags.cleanEnv,
		Dir:            flags.cwd,
		MaxFrame:       flags.maxFrame,
		StdinCloseWait: flags.stdinWait,
		SIGTERMWait:    flags.sigtermWait,
		Era:            era,
		Timeout:        flags.timeout,
		ProbeTimeout:   min(flags.timeout, flags.probeTimeout),
		Headless:       true,
	}
}
