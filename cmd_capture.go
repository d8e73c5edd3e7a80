package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"linesman/capture"
	"linesman/session"
	"linesman/session/eventlog"
)

// startCapture starts recording log to the file named by flags.capture (when
// set) and returns a function that stops recording and reports any error.
// Modes that start a server call it right after the session starts; stop
// writes every event logged until then, so call it after the session is done.
func startCapture(flags *commonFlags, log *eventlog.Log, command []string) (stop func() error, err error) {
	if flags.capture == "" {
		return func() error { return nil }, nil
	}
	r, err := capture.Create(flags.capture, log, captureHeader(flags, command))
	if err != nil {
		return nil, err
	}
	return r.Close, nil
}

// checkCaptureTarget refuses, before any server starts, to overwrite a file
// that is not a linesman capture: --capture truncates its file, and a typo
// (--capture server.py) must not destroy something else. An older capture,
// an empty file, a new name or a non-regular file (a pipe) are fine.
func checkCaptureTarget(path string) error {
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

// captureHeader describes the session for the capture's header: the server's
// command, its working directory, and its environment as the child got it
// (ours, or only the few of --clean-env, then the -e overrides) — names
// only unless --capture-env.
func captureHeader(flags *commonFlags, command []string) capture.Header {
	cwd, err := filepath.Abs(flags.cwd) // "" is ours
	if err != nil {
		cwd = flags.cwd
	}
	env := map[string]string{}
	for _, kv := range session.ChildEnv(flags.cleanEnv, flags.env) {
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
		if flags.captureEnv {
			v := env[k]
			vars[i].Value = &v
		}
	}
	return capture.Header{
		Command:   append([]string(nil), command...),
		Cwd:       cwd,
		Env:       vars,
		MaxFrame:  flags.maxFrame,
		TimeoutNs: int64(flags.timeout),
		Era:       flags.era,
	}
}
