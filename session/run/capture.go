package run

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"linesman/capture"
	"linesman/session"
	"linesman/session/eventlog"
	"linesman/session/hosts"
)

// startCapture starts recording log to opts.Capture (when set) and returns
// a function that stops recording and reports any error. Stop writes every
// event logged until then, so call it after the session is done.
func startCapture(opts *Options, log *eventlog.Log) (stop func() error, err error) {
	if opts.Capture == "" {
		return func() error { return nil }, nil
	}
	r, err := capture.Create(opts.Capture, log, Header(opts))
	if err != nil {
		return nil, err
	}
	return r.Close, nil
}

// CheckCaptureTarget refuses, before any server starts, to overwrite a file
// that is not a linesman capture: --capture truncates its file, and a typo
// (--capture server.py) must not destroy something else. An older capture,
// an empty file, a new name or a non-regular file (a pipe) are fine.
func CheckCaptureTarget(path string) error {
	if path == "" {
		return nil
	}
	if err := capture.CheckNotBusy(path); err != nil {
		return fmt.Errorf("--capture %s: another linesman is recording to it; choose another name, or wait until it ends", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // does not exist (or cannot be read): Create will say
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return nil
	}
	if isCapture, err := capture.StartsWithHeader(f); err != nil || isCapture {
		return nil
	}
	return fmt.Errorf("--capture %s: the file exists and is not a linesman capture; not overwriting it (remove it, or choose another name)", path)
}

// Header describes the session opts starts for a capture's header: the
// server's command, its working directory, and its environment as the
// child gets it (ours, or only the few of --clean-env, then the -e
// overrides) — names only unless opts.CaptureEnv.
func Header(opts *Options) capture.Header {
	cfg := &opts.Session
	cwd, err := filepath.Abs(cfg.Dir) // "" is ours
	if err != nil {
		cwd = cfg.Dir
	}
	env := map[string]string{}
	for _, kv := range session.ChildEnv(cfg.CleanEnv, cfg.Env) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	vars := make([]capture.EnvVar, len(names))
	for i, k := range names {
		vars[i].Name = k
		if opts.CaptureEnv {
			v := env[k]
			if hosts.HoldsFileValue(v) {
				v = hosts.Redaction
			}
			vars[i].Value = &v
		}
	}
	return capture.Header{
		// What a config read from a file is a secret; the rest of the
		// command line is the user's own, kept for a replay.
		Command:   hosts.RedactFileValues(cfg.Command),
		Secrets:   hosts.FileValueSecrets(cfg.Command),
		Cwd:       cwd,
		Env:       vars,
		MaxFrame:  cfg.MaxFrame,
		TimeoutNs: int64(cfg.Timeout),
		Era:       opts.Era,
	}
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
