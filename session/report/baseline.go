package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"

	"linesman/session/eventlog"
	"linesman/session/hosts"
	"linesman/wire"
)

// SingleBaselineKey is the key of a single check's server in a baseline
// file; check --all keys each server by its entry's name.
const SingleBaselineKey = "default"

// baselineFile is what check --baseline FILE keeps: the definitions (tools,
// prompts, resources) each server listed when it was recorded, by key.
type baselineFile struct {
	Linesman string                  `json:"linesman"`
	Servers  map[string]*Definitions `json:"servers"`
}

// A Baseline is a baseline file loaded for a run: the drift judge. Servers
// it does not hold yet are recorded (and the file written by
// [Baseline.Save] at the end of the run); the others are compared with it
// by [Baseline.Compare], each difference a drift finding. A nil *Baseline
// judges nothing and saves nothing. Its methods are safe for concurrent
// use (check --all).
type Baseline struct {
	path string

	mu       sync.Mutex
	file     baselineFile
	recorded []string // keys recorded during this run
	unlisted []string // keys whose run listed nothing: neither compared nor recorded
}

// maxBaselineFile bounds a baseline file: every server's definitions.
const maxBaselineFile = 64 << 20

// OpenBaseline reads the baseline file at path, or starts an empty one when
// it does not exist yet; nil for path "".
func OpenBaseline(path string) (*Baseline, error) {
	if path == "" {
		return nil, nil
	}
	b := &Baseline{path: path, file: baselineFile{Linesman: eventlog.Version, Servers: map[string]*Definitions{}}}
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

// Compare compares the definitions a finished session listed with those
// recorded under key, logging a drift finding for each change (a finding
// about a listing points at its answer); a key not recorded yet is
// recorded instead. Drift is only what was seen: a session whose server
// answered no listing (it crashed, never answered the handshake, or timed
// out) is neither compared nor recorded — its tools are unknown, not gone
// — and a note in its log says so. compared says whether the session was
// judged against the baseline.
func (b *Baseline) Compare(key string, log *eventlog.Log, tr *eventlog.Tracker) (compared bool) {
	if b == nil {
		return false
	}
	defs := DefinitionsOf(tr)
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
	for _, c := range CompareDefinitions(old, defs) {
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

// Save writes the file when this run recorded a server, and says so on w,
// as it says which servers listed nothing (and were left out).
func (b *Baseline) Save(w io.Writer) error {
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
			inertLines(b.path), key, what)
	}
	if len(b.recorded) == 0 {
		return nil
	}
	data, err := MarshalIndented(b.file)
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(b.path, data); err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	sort.Strings(b.recorded)
	for _, key := range b.recorded {
		d := b.file.Servers[key]
		fmt.Fprintf(w, "linesman check: --baseline %s: recorded %q: %d tools, %d prompts, %d resources (later runs report drift against them)\n",
			inertLines(b.path), key, len(d.Tools), len(d.Prompts), len(d.Resources))
	}
	return nil
}

// inertLines makes text that came from a file safe for the terminal, line
// breaks kept.
func inertLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = inert(l)
	}
	return strings.Join(lines, "\n")
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so that a reader never sees half a report.
func WriteFileAtomic(path string, data []byte) error {
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
