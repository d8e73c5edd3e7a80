package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"sync"

	"linesman/session/eventlog"
	"linesman/session/hosts"
	"linesman/session/report"
	"linesman/wire"
)

// singleBaselineKey is the key of a single check's server in a baseline
// file; check --all keys each server by its entry's name.
const singleBaselineKey = "default"

// baselineFile is what check --baseline FILE keeps: the definitions (tools,
// prompts, resources) each server listed when it was recorded, by key.
type baselineFile struct {
	Linesman string                         `json:"linesman"`
	Servers  map[string]*report.Definitions `json:"servers"`
}

// A baseline is a baseline file loaded for a run. Servers it does not hold
// yet are recorded (and the file written at the end of the run); the
// others are compared with it, each difference a drift finding. Its
// methods are safe for concurrent use (check --all).
type baseline struct {
	path string

	mu       sync.Mutex
	file     baselineFile
	recorded []string // keys recorded during this run
	unlisted []string // keys whose run listed nothing: neither compared nor recorded
}

// openBaseline is loadBaseline of --baseline's value; nil for none.
func openBaseline(path string) (*baseline, error) {
	if path == "" {
		return nil, nil
	}
	return loadBaseline(path)
}

// maxBaselineFile bounds a baseline file: every server's definitions.
const maxBaselineFile = 64 << 20

// loadBaseline reads path, or starts an empty baseline when it does not
// exist yet.
func loadBaseline(path string) (*baseline, error) {
	b := &baseline{path: path, file: baselineFile{Linesman: eventlog.Version, Servers: map[string]*report.Definitions{}}}
	data, err := hosts.ReadFileLimited(path, "a baseline", maxBaselineFile)
	if errors.Is(err, fs.ErrNotExist) {
		return b, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &b.file); err != nil || b.file.Servers == nil {
		return nil, fmt.Errorf("%s is not a baseline of linesman check --baseline (%v): move it away to record a new one", path, err)
	}
	return b, nil
}

// judge compares the definitions a finished session listed with those
// recorded under key, logging a drift finding for each change (a finding
// about a listing points at its answer); a key not recorded yet is
// recorded instead. Drift is only what was seen: a session whose server
// answered no listing (it crashed, never answered the handshake, or timed
// out) is neither compared nor recorded — its tools are unknown, not gone
// — and a note in its log says so. compared says whether the session was
// judged against the baseline.
func (b *baseline) judge(key string, log *eventlog.Log, tr *eventlog.Tracker) (compared bool) {
	if b == nil {
		return false
	}
	defs := report.DefinitionsOf(tr)
	b.mu.Lock()
	old, ok := b.file.Servers[key]
	if len(defs.Listed) == 0 {
		b.unlisted = append(b.unlisted, key)
		b.mu.Unlock()
		log.Append(eventlog.Event{Type: eventlog.EventNote, Note: unlistedNote(ok)})
		return false
	}
	if !ok {
		b.file.Servers[key] = defs
		b.recorded = append(b.recorded, key)
	}
	b.mu.Unlock()
	if !ok {
		return false
	}
	for _, c := range report.CompareDefinitions(old, defs) {
		lf := eventlog.LoggedFinding{Finding: wire.NewFinding(c.Code, c.Message()), FrameSeq: c.Seq()}
		if c.Seq() != 0 {
			lf.Dir = wire.ServerToClient
		}
		log.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &lf})
	}
	return true
}

// unlistedNote is the report's note on a session that listed nothing;
// held says whether the baseline has an entry for its server.
func unlistedNote(held bool) string {
	entry := "nothing was recorded for it"
	if held {
		entry = "nothing was compared with its entry, which is left as it was"
	}
	return "--baseline: the server answered no tools/list, prompts/list or resources/list in this run, so " + entry + " (drift is judged only from listings seen)"
}

// save writes the file when this run recorded a server, and says so on w,
// as it says which servers listed nothing (and were left out).
func (b *baseline) save(w io.Writer) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	sort.Strings(b.unlisted)
	for _, key := range b.unlisted {
		what := "not recorded"
		if _, ok := b.file.Servers[key]; ok {
			what = "not compared, its entry left as it was"
		}
		fmt.Fprintf(w, "linesman check: --baseline %s: %q listed nothing in this run (no tools/list, prompts/list or resources/list answered): %s\n",
			inertText(b.path), key, what)
	}
	if len(b.recorded) == 0 {
		return nil
	}
	data, err := report.MarshalIndented(b.file)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(b.path, data); err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	sort.Strings(b.recorded)
	for _, key := range b.recorded {
		d := b.file.Servers[key]
		fmt.Fprintf(w, "linesman check: --baseline %s: recorded %q: %d tools, %d prompts, %d resources (later runs report drift against them)\n",
			inertText(b.path), key, len(d.Tools), len(d.Prompts), len(d.Resources))
	}
	return nil
}
