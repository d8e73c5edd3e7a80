package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"linesman/session/eventlog"
	"linesman/session/hosts"
	"linesman/session/report"
)

// allFlags are the flags of `check --config FILE --all`: every server of a
// config file, checked by a bounded pool of workers.
type allFlags struct {
	all           bool
	config        string
	host          string
	workspace     string
	parallel      int
	serverTimeout time.Duration
	baseline      string
}

// register adds the flags of --all to check's flag set (--config, --host
// and --workspace are read by withConfig when a NAME is given; they are
// listed here so that --help shows them).
func (a *allFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&a.all, "all", false, "with --config FILE: check every stdio server of the file (a host's config, or a plain list: see docs/check.md), in one report and one exit status")
	fs.StringVar(&a.config, "config", "", "the host config `FILE` (Claude Desktop, Claude Code .mcp.json, VS Code, Cursor, Windsurf, Zed, Gemini CLI, opencode, Codex) whose server NAME to check, or every server with --all")
	fs.StringVar(&a.host, "host", "", "with --config: whose format the file is in (claude-desktop, claude-code, vscode, cursor, windsurf, zed, gemini-cli, opencode, codex), when its name does not say")
	fs.StringVar(&a.workspace, "workspace", "", "with --config: the workspace folder for ${workspaceFolder} (default: the file's project)")
	fs.IntVar(&a.parallel, "parallel", runtime.NumCPU(), "with --all: how many servers to check at once")
	fs.StringVar(&a.baseline, "baseline", "", "drift: record the tools, prompts and resources the server lists in `FILE` on the first run; report what changed against it later (tool-removed, tool-description-changed, ...)")
	durationVar(fs, &a.serverTimeout, "server-timeout", 2*time.Minute, "the longest one server's check may take: past it the server is shut down and its check fails (a hung server holds no other)")
}

// allGiven reports whether the flags (before "--") include --all.
func allGiven(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--all" || a == "-all" || a == "--all=true" || a == "-all=true" {
			return true
		}
	}
	return false
}

// serverEntry is one server of the config file, ready to start (or not,
// and why).
type serverEntry struct {
	name    string
	command []string
	env     []string // KEY=VALUE, put under the user's -e
	dir     string
	skip    string // why it is not started (a remote server, disabled)
	err     error  // why it cannot be started (the check fails)
	line    int    // the entry's line in the config file (0: not known)
}

// runCheckAll is `linesman check --config FILE --all`.
func runCheckAll(fs *flag.FlagSet, flags *commonFlags, all *allFlags, args []string, stdout, stderr io.Writer) int {
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	if err := validateAll(flags, all, fs.Args()); err != nil {
		fmt.Fprintf(stderr, "linesman check: %v\n", err)
		return exitUsage
	}
	entries, err := loadServers(all, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "linesman check: --config: %s\n", inertText(err.Error()))
		return exitUsage
	}
	if flags.ci.baseline, err = report.OpenBaseline(all.baseline); err != nil {
		fmt.Fprintf(stderr, "linesman check: --baseline: %s\n", inertText(err.Error()))
		return exitUsage
	}
	// A signal stops the servers not yet started; each running check
	// watches the signals too, shuts its server down and reports.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := watchSignals(stopSignals(), func(os.Signal) { cancel() })
	defer sigs.close()
	start := time.Now()
	results := make([]report.ServerResult, len(entries))
	logs := make([]bytes.Buffer, len(entries))
	runPool(len(entries), all.parallel, func(i int) {
		results[i] = checkEntry(ctx, entries[i], flags, all.serverTimeout, &logs[i])
	})
	for i, e := range entries {
		for _, line := range strings.SplitAfter(logs[i].String(), "\n") {
			if line != "" {
				fmt.Fprintf(stderr, "[%s] %s", inertText(e.name), line)
			}
		}
	}
	m := report.NewMulti(all.config, results)
	m.Seconds = time.Since(start).Seconds()
	status := writeMulti(&m, flags, stdout, stderr)
	if err := flags.ci.baseline.Save(stderr); err != nil {
		fmt.Fprintf(stderr, "linesman check: %s\n", inertText(err.Error()))
		status = exitFindings
	}
	if st, ok := sigs.status(); ok {
		return st // the policy of signals.go: 128+n
	}
	return status
}

// validateAll checks the flags of --all.
func validateAll(flags *commonFlags, all *allFlags, rest []string) error {
	for _, err := range []error{flags.validate(), flags.ci.validate(), validateWaits(flags)} {
		if err != nil {
			return err
		}
	}
	switch {
	case all.config == "":
		return fmt.Errorf("--all checks every server of a config: give --config FILE")
	case len(rest) > 0:
		return fmt.Errorf("--all checks every server of %s: give no NAME or command (%q)", all.config, rest[0])
	case flags.logFile != "":
		return fmt.Errorf("--log records one server: with --all, check the server by NAME to log it")
	case flags.capture != "":
		if st, err := os.Stat(flags.capture); err == nil && !st.IsDir() {
			return fmt.Errorf("--capture %s: with --all, a directory for one capture per server (DIR/NAME.jsonl), not a file", flags.capture)
		}
		if err := os.MkdirAll(flags.capture, 0o755); err != nil {
			return fmt.Errorf("--capture %s: with --all, a directory for one capture per server: %v", flags.capture, err)
		}
	case all.parallel < 1:
		return fmt.Errorf("--parallel %d: want at least 1", all.parallel)
	case all.serverTimeout <= 0:
		return fmt.Errorf("--server-timeout %s: want a positive duration such as 2m", all.serverTimeout)
	}
	return nil
}

// runPool calls work(i) for i in [0, n) on at most parallel goroutines at
// once, and returns when every call has.
func runPool(n, parallel int, work func(i int)) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(parallel, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				work(i)
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

// checkEntry checks one server of the config, isolated as a single check
// is, its messages to stderr kept in log.
func checkEntry(ctx context.Context, e serverEntry, flags *commonFlags, limit time.Duration, log io.Writer) report.ServerResult {
	res := report.ServerResult{Name: e.name, Line: e.line}
	switch {
	case e.skip != "":
		res.Status, res.Skipped = "skipped", e.skip
		return res
	case ctx.Err() != nil:
		res.Status, res.Skipped = "interrupted", "interrupted before it started"
		return res
	case e.err != nil:
		rep := report.FromLog(eventlog.NewLog(0), nil, report.Meta{Mode: "check", Command: e.command, Error: e.err.Error()})
		res.Status, res.Report, res.ExitStatus = "failed", &rep, exitFindings
		return res
	}
	if flags.capture != "" { // --all's --capture DIR: one capture per server
		one := *flags
		one.capture = filepath.Join(flags.capture, captureFileName(e.name))
		if err := checkCaptureTarget(one.capture); err != nil {
			rep := report.FromLog(eventlog.NewLog(0), nil, report.Meta{Mode: "check", Command: e.command, Error: err.Error()})
			res.Status, res.Report, res.ExitStatus = "failed", &rep, exitFindings
			return res
		}
		flags = &one
	}
	cfg := sessionConfig(flags, e.command)
	cfg.Env = append(append([]string{}, e.env...), flags.env...) // the user's -e win
	if flags.cwd == "" {
		cfg.Dir = e.dir
	}
	rep, status := headlessRun("check", flags, cfg, log, checkSteps, headlessOpts{limit: limit, key: e.name})
	res.Report, res.ExitStatus = rep, status
	switch {
	case rep != nil && rep.Interrupted:
		res.Status = "interrupted"
	case status == 0 && rep != nil:
		res.Status = "passed"
	default:
		res.Status = "failed"
	}
	return res
}

// unsafeInName are the characters of an entry's name a capture's file
// name does not keep.
var unsafeInName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// captureFileName is the file of a server's capture under --all's
// --capture DIR: its name, each character other than a letter, digit,
// '.', '_' or '-' made '_', and ".jsonl".
func captureFileName(name string) string {
	return strings.TrimLeft(unsafeInName.ReplaceAllString(name, "_"), ".") + ".jsonl"
}

// loadServers reads the servers of all.config: a host's config file, or a
// plain list (a file named *.txt or *.list).
func loadServers(all *allFlags, stderr io.Writer) ([]serverEntry, error) {
	if hosts.IsPlainList(all.config) {
		list, err := hosts.ReadPlainList(all.config)
		out := make([]serverEntry, len(list))
		for i, p := range list {
			out[i] = serverEntry{name: p.Name, command: p.Command, env: p.Env, line: p.Line}
		}
		return out, err
	}
	var h hosts.Host
	if all.host != "" {
		var err error
		if h, err = hosts.ParseHost(all.host); err != nil {
			return nil, err
		}
	}
	f, err := hosts.Read(all.config, h)
	if err != nil {
		return nil, err
	}
	sayHowRead(stderr, "linesman check", f)
	var out []serverEntry
	for _, e := range f.Entries {
		se := serverEntry{name: e.Name, line: e.Line}
		if e.Scope != "" {
			se.name = e.Scope + ":" + e.Name
		}
		switch {
		case e.Disabled:
			se.skip = "disabled in the config"
		case e.Transport != "stdio" || e.ProvidedByExtension():
			se.skip = e.Note
		default:
			srv, err := f.Resolve(e, hostEnv(all.workspace))
			se.command, se.env, se.dir, se.err = srv.Command, srv.Env, srv.Dir, err
		}
		out = append(out, se)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no server", all.config)
	}
	return out, nil
}

// writeMulti prints the report of --all (text or --json), writes the CI
// files asked for, and returns the exit status: 1 when a server failed or
// none was checked, else 0 (a signal's status is the caller's).
func writeMulti(m *report.Multi, flags *commonFlags, stdout, stderr io.Writer) int {
	var err error
	if flags.jsonOut {
		err = m.WriteJSON(stdout)
	} else {
		err = m.WriteText(stdout)
	}
	opt := report.CIOptions{FailOn: flags.ci.failOn}
	for _, out := range []struct {
		path  string
		write func(io.Writer, report.CIOptions) error
	}{{flags.ci.junit, m.WriteJUnit}, {flags.ci.sarif, m.WriteSARIF}} {
		if out.path == "" || err != nil {
			continue
		}
		var buf bytes.Buffer
		if err = out.write(&buf, opt); err == nil {
			err = report.WriteFileAtomic(out.path, buf.Bytes())
		}
	}
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "linesman check: writing the report: %v\n", err)
		return exitFindings
	case m.Summary.Failed > 0:
		return exitFindings
	case m.Summary.Passed == 0:
		fmt.Fprintf(stderr, "linesman check: no stdio server of %s was checked\n", inertText(m.Config))
		return exitFindings
	}
	return exitOK
}
