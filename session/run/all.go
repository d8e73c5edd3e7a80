package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"linesman/session/eventlog"
	"linesman/session/hosts"
	"linesman/session/report"
)

// An Entry is one server of a config file for [All], ready to start (or
// not, and why).
type Entry struct {
	Name    string
	Command []string
	Env     []string // KEY=VALUE, put under the user's -e
	Dir     string
	Skip    string // why it is not started (a remote server, disabled)
	Err     error  // why it cannot be started (the check fails)
	Line    int    // the entry's line in the config file (0: not known)
}

// LoadEntries reads the servers of config: a plain list (a file named
// *.txt or *.list, see [hosts.ReadPlainList]) or a host's config file,
// each entry resolved as its host would in env. f is the host's file
// read (nil for a plain list), for the caller to say how it was read.
func LoadEntries(config string, host hosts.Host, env hosts.Env) (entries []Entry, f *hosts.File, err error) {
	if hosts.IsPlainList(config) {
		list, err := hosts.ReadPlainList(config)
		for _, p := range list {
			entries = append(entries, Entry{Name: p.Name, Command: p.Command, Env: p.Env, Line: p.Line})
		}
		return entries, nil, err
	}
	if f, err = hosts.Read(config, host); err != nil {
		return nil, nil, err
	}
	for _, e := range f.Entries {
		se := Entry{Name: e.Name, Line: e.Line}
		if e.Scope != "" {
			se.Name = e.Scope + ":" + e.Name
		}
		switch {
		case e.Disabled:
			se.Skip = "disabled in the config"
		case e.Transport != "stdio" || e.ProvidedByExtension():
			se.Skip = e.Note
		default:
			srv, err := f.Resolve(e, env)
			se.Command, se.Env, se.Dir, se.Err = srv.Command, srv.Env, srv.Dir, err
		}
		entries = append(entries, se)
	}
	if len(entries) == 0 {
		return nil, f, fmt.Errorf("%s lists no server", config)
	}
	return entries, f, nil
}

// All checks every entry of config as check does, parallel at once, each
// isolated as a single check is and bounded by opts.Limit, and prints one
// report of them all (text or opts.JSON, and the CI files); opts.Capture
// is a directory for one capture per server. It returns the exit status:
// 1 when a server failed or none was checked, 128+n after a stop signal.
func All(opts *Options, config string, entries []Entry, parallel int, stdout, stderr io.Writer) int {
	// A signal stops the servers not yet started; each running check
	// watches the signals too, shuts its server down and reports.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := WatchSignals(StopSignals(), func(os.Signal) { cancel() })
	defer sigs.Close()
	start := time.Now()
	results := make([]report.ServerResult, len(entries))
	logs := make([]bytes.Buffer, len(entries))
	runPool(len(entries), parallel, func(i int) {
		results[i] = checkEntry(ctx, entries[i], *opts, &logs[i])
	})
	for i, e := range entries {
		for _, line := range strings.SplitAfter(logs[i].String(), "\n") {
			if line != "" {
				fmt.Fprintf(stderr, "[%s] %s", inertLines(e.Name), line)
			}
		}
	}
	m := report.NewMulti(config, results)
	m.Seconds = time.Since(start).Seconds()
	status := writeMulti(&m, opts, stdout, stderr)
	if err := opts.Baseline.Save(stderr); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", opts.Name, inertLines(err.Error()))
		status = StatusFailed
	}
	if st, ok := sigs.Status(); ok {
		return st // the signal policy: 128+n
	}
	return status
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
// is, its messages to stderr kept in log; opts is a copy of its own.
func checkEntry(ctx context.Context, e Entry, opts Options, log io.Writer) report.ServerResult {
	res := report.ServerResult{Name: e.Name, Line: e.Line}
	failed := func(err error) report.ServerResult {
		rep := report.FromLog(eventlog.NewLog(0), nil, report.Meta{Mode: "check", Command: e.Command, Error: err.Error()})
		res.Status, res.Report, res.ExitStatus = "failed", &rep, StatusFailed
		return res
	}
	switch {
	case e.Skip != "":
		res.Status, res.Skipped = "skipped", e.Skip
		return res
	case ctx.Err() != nil:
		res.Status, res.Skipped = "interrupted", "interrupted before it started"
		return res
	case e.Err != nil:
		return failed(e.Err)
	}
	if opts.Capture != "" { // --all's --capture DIR: one capture per server
		opts.Capture = filepath.Join(opts.Capture, captureFileName(e.Name))
		if err := CheckCaptureTarget(opts.Capture); err != nil {
			return failed(err)
		}
	}
	opts.Session.Command = e.Command
	opts.entryEnv, opts.entryDir = append([]string{}, e.Env...), e.Dir
	opts.BaselineKey = e.Name
	rep, status := headless(&opts, CheckSteps(opts.Session), log)
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

// writeMulti prints the report of --all (text or --json), writes the CI
// files asked for, and returns the exit status: 1 when a server failed or
// none was checked, else 0 (a signal's status is the caller's).
func writeMulti(m *report.Multi, opts *Options, stdout, stderr io.Writer) int {
	var err error
	if opts.JSON {
		err = m.WriteJSON(stdout)
	} else {
		err = m.WriteText(stdout)
	}
	opt := report.CIOptions{FailOn: opts.CI.FailOn}
	for _, out := range []struct {
		path  string
		write func(io.Writer, report.CIOptions) error
	}{{opts.CI.JUnit, m.WriteJUnit}, {opts.CI.SARIF, m.WriteSARIF}} {
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
		fmt.Fprintf(stderr, "%s: writing the report: %v\n", opts.Name, err)
		return StatusFailed
	case m.Summary.Failed > 0:
		return StatusFailed
	case m.Summary.Passed == 0:
		fmt.Fprintf(stderr, "%s: no stdio server of %s was checked\n", opts.Name, inertLines(m.Config))
		return StatusFailed
	}
	return StatusOK
}
