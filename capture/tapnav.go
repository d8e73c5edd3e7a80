package capture

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Finding one's way among the taps: what 'linesman view' opens for a
// tap's name, the inspector's title and read-only reason for a capture in
// the tap directory, and the next live tap the T key switches to.

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
	dirs, err := TapDirs("")
	if err != nil {
		return "", "", false
	}
	t, err := ResolveTap(dirs, arg)
	if errors.Is(err, ErrNoTap) || err != nil {
		return "", "", false
	}
	state := "ended"
	if t.Live {
		state = "live"
	}
	return t.Path, fmt.Sprintf("tap %s (%s, started %s)", t.Name, state, t.Start.Local().Format(time.TimeOnly)), true
}

// ViewTarget is the capture 'linesman view' opens for arg: arg itself,
// or the capture of the tap it names ("latest": the newest live one).
func ViewTarget(arg string) (string, error) {
	if p, _, ok := tapCapturePath(arg); ok {
		return p, nil
	}
	if arg == "latest" {
		if _, err := os.Stat(arg); err != nil {
			dirs, _ := TapDirs("")
			return "", fmt.Errorf("no tap in %s yet ('linesman wrap' routes a host's servers through the tap)", strings.Join(dirs, ", "))
		}
	}
	return arg, nil
}

// TapTitle is the inspector's title for a capture in the tap directory.
func TapTitle(path string) (string, bool) {
	dirs, err := TapDirs("")
	if err != nil || !slices.Contains(dirs, filepath.Dir(path)) {
		return "", false
	}
	taps, _ := ListTaps(filepath.Dir(path))
	for _, t := range taps {
		if t.Path == path {
			return "tap " + t.Name + " — the host drives it: read-only here", true
		}
	}
	return "", false
}

// TapUIOptions returns, for a capture in the tap directory, why the
// inspector is read-only there and (when following) what the T key
// switches to: the next live tap by name, or, when there is none yet, the
// next to start — T looks again when pressed (see run.View), since
// hosts start their servers whenever they like.
func TapUIOptions(path string, following bool) (readOnly, next string) {
	if _, ok := TapTitle(path); !ok {
		return "", ""
	}
	readOnly = "a tap is read-only: its host drives the server, linesman only watches"
	if !following {
		return readOnly, ""
	}
	next = "the next live tap (none yet)"
	if t, ok := NextLiveTap(path); ok {
		next = t.Name
	}
	return readOnly, next
}

// NextLiveTap returns the live tap after the one at path in the list
// (newest first, wrapping around), other than that one.
func NextLiveTap(path string) (Tap, bool) {
	dirs, err := TapDirs("")
	if err != nil {
		return Tap{}, false
	}
	taps, _ := ListTaps(dirs...)
	var live []Tap
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
		return Tap{}, false
	}
	return live[(at+1)%len(live)], true
}

// PinnedTapDir is the tap directory wrap writes into the entries: the
// one this environment names, when it is not the default a tap started
// without LINESMAN_TAP_DIR and XDG_STATE_HOME would use ("" then).
func PinnedTapDir() string {
	d, err := TapDirPath("")
	home, herr := os.UserHomeDir()
	if err != nil || herr == nil && filepath.Clean(d) == DefaultTapDir(home) {
		return ""
	}
	if abs, err := filepath.Abs(d); err == nil {
		d = abs
	}
	return d
}
