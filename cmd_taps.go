package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"linesman/capture"
	"linesman/session/hosts"
	"linesman/session/report"
	"linesman/ui"
	"linesman/wire"
)

const tapsHeader = `linesman taps — list live and recent taps

Usage:
  linesman taps [--dir DIR] [--all]

Lists the taps in the tap directories (the one 'linesman tap --help'
names, and the default one a host that passes its servers an environment
of its own makes a tap write to), newest first: name, state (running, or how the server ended), when it started,
how many findings the judge has so far, and the server's command. Open one
with 'linesman view --follow NAME' (or 'latest').
`

// runTaps is "linesman taps".
func runTaps(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("taps", tapsHeader, stdout, stderr)
	dir := fs.String("dir", "", "the tap directory (default: see 'linesman tap --help')")
	all := fs.Bool("all", false, "list every tap, not only the 20 newest")
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "linesman taps: takes no arguments; usage: linesman taps [--dir DIR] [--all]")
		return exitUsage
	}
	dirs, err := capture.TapDirs(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "linesman taps: %v\n", err)
		return exitFindings
	}
	taps, err := capture.ListTaps(dirs...)
	if err != nil {
		fmt.Fprintf(stderr, "linesman taps: %v\n", err)
		return exitFindings
	}
	d := strings.Join(dirs, ", ")
	if len(taps) == 0 {
		fmt.Fprintf(stdout, "no taps in %s yet; 'linesman wrap' routes a host's servers through the tap\n", d)
		return exitOK
	}
	if !*all && len(taps) > 20 {
		taps = taps[:20]
	}
	fmt.Fprintf(stdout, "%-20s %-22s %-19s %8s  %s\n", "NAME", "STATE", "STARTED", "FINDINGS", "COMMAND")
	for i := range taps {
		t := &taps[i]
		t.Describe()
		state, findings, cmd := t.State, fmt.Sprint(t.Findings), report.ShellJoin(hosts.RedactCommand(t.Command))
		if t.Err != nil {
			state, findings, cmd = "unreadable", "-", t.Err.Error()
		}
		if t.Live {
			state = "live, " + state
		}
		fmt.Fprintf(stdout, "%-20s %-22s %-19s %8s  %s\n", wire.VisibleString(t.Name, wire.Pictures), state,
			t.Start.Local().Format("2006-01-02 15:04:05"), findings, wire.VisibleString(cmd, wire.Pictures))
	}
	fmt.Fprintf(stdout, "(%s)\n", d)
	return exitOK
}

// tapCapturePath turns the argument of 'view --follow' into a capture path:
// a file that exists (or a .jsonl path) is itself; otherwise "latest" or a
// tap's name — the config's own, "/" and all — is looked up in the tap
// directories. ok is false when arg is not a tap.
func tapCapturePath(arg string) (path, title string, ok bool) {
	if strings.HasSuffix(arg, ".jsonl") {
		return "", "", false
	}
	if _, err := os.Stat(arg); err == nil {
		return "", "", false
	}
	dirs, err := capture.TapDirs("")
	if err != nil {
		return "", "", false
	}
	t, err := capture.ResolveTap(dirs, arg)
	if errors.Is(err, capture.ErrNoTap) || err != nil {
		return "", "", false
	}
	state := "ended"
	if t.Live {
		state = "live"
	}
	return t.Path, fmt.Sprintf("tap %s (%s, started %s)", t.Name, state, t.Start.Local().Format(time.TimeOnly)), true
}

// viewTarget is the capture 'linesman view' opens for arg: arg itself,
// or the capture of the tap it names ("latest": the newest live one).
func viewTarget(arg string) (string, error) {
	if p, _, ok := tapCapturePath(arg); ok {
		return p, nil
	}
	if arg == "latest" {
		if _, err := os.Stat(arg); err != nil {
			dirs, _ := capture.TapDirs("")
			return "", fmt.Errorf("no tap in %s yet ('linesman wrap' routes a host's servers through the tap)", strings.Join(dirs, ", "))
		}
	}
	return arg, nil
}

// tapTitle is the inspector's title for a capture in the tap directory.
func tapTitle(path string) (string, bool) {
	dirs, err := capture.TapDirs("")
	if err != nil || !slices.Contains(dirs, filepath.Dir(path)) {
		return "", false
	}
	taps, _ := capture.ListTaps(filepath.Dir(path))
	for _, t := range taps {
		if t.Path == path {
			return "tap " + t.Name + " — the host drives it: read-only here", true
		}
	}
	return "", false
}

// tapUIOptions returns, for a capture in the tap directory, why the
// inspector is read-only there and (when following) what the T key
// switches to: the next live tap by name, or, when there is none yet, the
// next to start — T looks again when pressed (see viewSwitching), since
// hosts start their servers whenever they like.
func tapUIOptions(path string, following bool) (readOnly, next string) {
	if _, ok := tapTitle(path); !ok {
		return "", ""
	}
	readOnly = "a tap is read-only: its host drives the server, linesman only watches"
	if !following {
		return readOnly, ""
	}
	next = "the next live tap (none yet)"
	if t, ok := nextLiveTap(path); ok {
		next = t.Name
	}
	return readOnly, next
}

// nextLiveTap returns the live tap after the one at path in the list
// (newest first, wrapping around), other than that one.
func nextLiveTap(path string) (capture.Tap, bool) {
	dirs, err := capture.TapDirs("")
	if err != nil {
		return capture.Tap{}, false
	}
	taps, _ := capture.ListTaps(dirs...)
	var live []capture.Tap
	at := -1
	for _, t := range taps {
		if t.Path == path {
			at = len(live)
			live = append(live, t)
		} else if t.Live {
			live = append(live, t)
		}
	}
	if len(live) < 2 {
		return capture.Tap{}, false
	}
	return live[(at+1)%len(live)], true
}

// viewSwitching runs the inspector on a capture and, each time the user
// asks for the next live tap (T), follows that one instead.
func viewSwitching(ctx context.Context, c *capture.Capture, fl *capture.Follower, path, theme string, poll time.Duration) (*capture.Capture, *capture.Follower, string, error) {
	for {
		err := viewUI(ctx, c, fl, path, theme)
		if !errors.Is(err, ui.ErrSwitch) {
			return c, fl, path, err
		}
		t, ok := nextLiveTap(path)
		if !ok {
			continue // none (it ended meanwhile, or none started yet): stay on this one
		}
		nfl, err := capture.Follow(ctx, t.Path, capture.FollowOptions{Poll: poll})
		if err != nil {
			continue
		}
		fl.Stop()
		c, fl, path = nfl.Capture(), nfl, t.Path
	}
}
