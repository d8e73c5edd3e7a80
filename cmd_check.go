package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"linesman/capture"
	"linesman/session/hosts"
	"linesman/session/report"
	"linesman/session/run"
	"linesman/wire"
)

var cmdCheck = &command{
	name:        "check",
	usageLine:   "linesman check [flags] -- COMMAND [ARG...]",
	configNames: true,
	run:         runCheck,
	long:        helpText("check"),
}

// allFlags are check's flags beyond a server's: --all (every server of
// --config's file, by a bounded pool of workers), --from, the baseline.
type allFlags struct {
	all           bool
	parallel      int
	serverTimeout time.Duration
	baseline      string
	from          string
}

// register adds check's own flags to fs.
func (a *allFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&a.all, "all", false, "with --config FILE: check every stdio server of the file (a host's config, or a plain list: see docs/check.md), in one report and one exit status")
	fs.IntVar(&a.parallel, "parallel", runtime.NumCPU(), "with --all: how many servers to check at once")
	fs.StringVar(&a.baseline, "baseline", "", "drift: record the tools, prompts and resources the server lists in `FILE` on the first run; report what changed against it later (tool-removed, tool-description-changed, ...)")
	durationVar(fs, &a.serverTimeout, "server-timeout", 2*time.Minute, "the longest one server's check may take: past it the server is shut down and its check fails (a hung server holds no other)")
	fs.StringVar(&a.from, "from", "", "judge the recorded conversation in `FILE` (a capture, a Claude Desktop MCP log, an mcpsnoop log, JSON Lines of {dir, message}, or a transcript of \"> \" and \"< \" lines) instead of running a server")
}

// runCheck is "linesman check": spawn, handshake, list, ping, shut down,
// report; or every server of a config (--all), or a recording (--from).
func runCheck(cmd *command, args []string, io stdio) int {
	var f serverFlags
	var a allFlags
	fs := cmd.newFlagSet(io)
	f.register(fs, true, false, "check, or every server with --all")
	f.registerCI(fs)
	a.register(fs)
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	if given(fs, "from") {
		return checkFrom(a.from, f.opts.JSON, fs.Args(), io)
	}
	if a.all {
		return checkAll(cmd, &f, &a, fs.Args(), io)
	}
	if status, ok := f.settle(cmd, fs, args, io.err); !ok {
		return status
	}
	if a.serverTimeout <= 0 {
		fmt.Fprintf(io.err, "linesman check: --server-timeout %s: want a positive duration such as 2m\n", a.serverTimeout)
		return exitUsage
	}
	var err error
	if f.opts.Baseline, err = report.OpenBaseline(a.baseline); err != nil {
		fmt.Fprintf(io.err, "linesman check: --baseline: %s\n", inertText(err.Error()))
		return exitUsage
	}
	f.opts.Limit, f.opts.BaselineKey = a.serverTimeout, report.SingleBaselineKey
	run.PaceForHeadless()
	status := run.Headless(&f.opts, run.CheckSteps(f.opts.Session), io.out, io.err)
	if err := f.opts.Baseline.Save(io.err); err != nil {
		fmt.Fprintf(io.err, "linesman check: %s\n", inertText(err.Error()))
		return exitFindings
	}
	return status
}

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// checkFrom is "linesman check --from FILE": the recorded conversation is
// read into a log through the same fold as a live session (capture.Open),
// and reported as a check run would be.
func checkFrom(path string, jsonOut bool, command []string, io stdio) int {
	if path == "" || len(command) > 0 {
		fmt.Fprintln(io.err, "linesman check: --from FILE judges a recorded conversation; give it a file and no server command")
		return exitUsage
	}
	run.PaceForReading()
	// Only the JSON report lists every frame (see report.Meta.FindingFrames).
	rep, err := capture.ReportOf(path, report.Meta{Mode: "check", HostSection: true, FindingFrames: !jsonOut}, io.err)
	if err != nil {
		fmt.Fprintf(io.err, "linesman check: %s\n", wire.VisibleString(err.Error(), wire.Pictures))
		return exitFindings
	}
	if jsonOut {
		err = rep.WriteJSON(io.out)
	} else {
		err = rep.WriteText(io.out)
	}
	if err != nil {
		fmt.Fprintf(io.err, "linesman check: writing the report: %v\n", err)
		return exitFindings
	}
	return rep.ExitStatus()
}

// checkAll is `linesman check --config FILE --all`.
func checkAll(cmd *command, f *serverFlags, a *allFlags, rest []string, io stdio) int {
	if err := validateAll(f, a, rest); err != nil {
		fmt.Fprintf(io.err, "linesman check: %v\n", err)
		return exitUsage
	}
	var h hosts.Host
	var err error
	if f.host != "" {
		h, err = hosts.ParseHost(f.host)
	}
	var entries []run.Entry
	if err == nil {
		var file *hosts.File
		entries, file, err = run.LoadEntries(f.config, h, hosts.LocalEnv(f.workspace))
		if file != nil {
			sayHowRead(io.err, "linesman check", file)
		}
	}
	if err != nil {
		fmt.Fprintf(io.err, "linesman check: --config: %s\n", inertText(err.Error()))
		return exitUsage
	}
	if f.opts.Baseline, err = report.OpenBaseline(a.baseline); err != nil {
		fmt.Fprintf(io.err, "linesman check: --baseline: %s\n", inertText(err.Error()))
		return exitUsage
	}
	f.opts.Name, f.opts.Mode, f.opts.Limit = cmd.prefix(), cmd.name, a.serverTimeout
	f.opts.Signals = run.Signals{Stop: run.StopSignals()}
	return run.All(&f.opts, f.config, entries, a.parallel, io.out, io.err)
}

// validateAll checks the flags of --all.
func validateAll(f *serverFlags, a *allFlags, rest []string) error {
	if err := f.opts.Validate(); err != nil {
		return err
	}
	o := &f.opts
	switch {
	case f.config == "":
		return fmt.Errorf("--all checks every server of a config: give --config FILE")
	case len(rest) > 0:
		return fmt.Errorf("--all checks every server of %s: give no NAME or command (%q)", f.config, rest[0])
	case o.LogFile != "":
		return fmt.Errorf("--log records one server: with --all, check the server by NAME to log it")
	case o.Capture != "":
		if st, err := os.Stat(o.Capture); err == nil && !st.IsDir() {
			return fmt.Errorf("--capture %s: with --all, a directory for one capture per server (DIR/NAME.jsonl), not a file", o.Capture)
		}
		if err := os.MkdirAll(o.Capture, 0o755); err != nil {
			return fmt.Errorf("--capture %s: with --all, a directory for one capture per server: %v", o.Capture, err)
		}
	case a.parallel < 1:
		return fmt.Errorf("--parallel %d: want at least 1", a.parallel)
	case a.serverTimeout <= 0:
		return fmt.Errorf("--server-timeout %s: want a positive duration such as 2m", a.serverTimeout)
	}
	return nil
}
