package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"linesman/session/eventlog"
)

// The tap directory holds the captures of `linesman tap`, one file per tap
// run, named NAME@START-PID.jsonl (START in UTC, to the millisecond). A tap
// that is still running holds an exclusive flock(2) on its file, so a lister
// tells live from ended without trusting pids, and the lock goes with the
// process however it ends.

// TapDirEnv overrides the default tap directory.
const TapDirEnv = "LINESMAN_TAP_DIR"

// tapTimeLayout is START in a tap file's name.
const tapTimeLayout = "20060102T150405.000Z"

// TapDirPath returns the tap directory: dir when set, else $LINESMAN_TAP_DIR,
// else $XDG_STATE_HOME/linesman/taps, else ~/.local/state/linesman/taps.
// A relative XDG_STATE_HOME is ignored, as the XDG spec says.
func TapDirPath(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	dirs, err := TapDirs("")
	if err != nil {
		return "", err
	}
	return dirs[0], nil
}

// TapDirs returns the directories a tap may have written to, the one
// TapDirPath names first: dir alone when set, else each of
// $LINESMAN_TAP_DIR, $XDG_STATE_HOME/linesman/taps and
// ~/.local/state/linesman/taps that can be named, once each. A tap a host
// started with an environment of its own (the SDKs' stdio clients pass
// only HOME, LOGNAME, PATH, SHELL, TERM and USER) writes to the last one
// unless its entry pins --dir, as wrap does: listing all of them finds it
// either way.
func TapDirs(dir string) ([]string, error) {
	if dir != "" {
		return []string{dir}, nil
	}
	var dirs []string
	add := func(d string) {
		if d = filepath.Clean(d); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	if d := os.Getenv(TapDirEnv); d != "" {
		add(d)
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		add(filepath.Join(d, "linesman", "taps"))
	}
	home, err := os.UserHomeDir()
	if err == nil {
		add(DefaultTapDir(home))
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("tap directory: %w (set %s)", err, TapDirEnv)
	}
	return dirs, nil
}

// DefaultTapDir is the tap directory of a user whose home is home and who
// set neither $LINESMAN_TAP_DIR nor $XDG_STATE_HOME.
func DefaultTapDir(home string) string {
	return filepath.Join(home, ".local", "state", "linesman", "taps")
}

// TapDir returns the tap directory (see TapDirPath), created private (0700)
// when missing.
func TapDir(dir string) (string, error) {
	d, err := TapDirPath(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("tap directory: %w", err)
	}
	return d, nil
}

// TapName makes a tap's name safe for a file name, whole and one to one:
// letters, digits and "._-" are kept, any other byte (a Cline-style
// name's "/", "@", "%", a space) is written %XX, as is a leading "."; so
// two names never share a file name, and [ListTaps] gives the name back
// as it was. A name too long for a file name is cut and given a hash of
// the whole.
func TapName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0
		if ok {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	s := b.String()
	if s == "" {
		return "tap"
	}
	if len(s) > maxTapName {
		sum := sha256.Sum256([]byte(name))
		cut := strings.TrimRight(s[:maxTapName-12], "%0123456789ABCDEF") // no %XX cut in two
		s = cut + "~" + hex.EncodeToString(sum[:])[:8]
	}
	return s
}

// maxTapName bounds TapName's length: NAME@START-PID.jsonl must fit in
// the 255 bytes of a file name.
const maxTapName = 180

// untapName is the name TapName escaped (a cut name stays cut).
func untapName(s string) string {
	if n, err := url.PathUnescape(s); err == nil {
		return n
	}
	return s
}

// NewTapPath returns the path of a new tap capture in dir.
func NewTapPath(dir, name string, start time.Time) (string, error) {
	base := fmt.Sprintf("%s@%s-%d.jsonl", TapName(name), start.UTC().Format(tapTimeLayout), os.Getpid())
	return filepath.Join(dir, base), nil
}

// LockTap marks the tap capture at path as live for as long as the returned
// file stays open (nil if the lock could not be taken: the tap then lists
// as ended, which is all that is lost).
func LockTap(path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil
	}
	return f
}

// tapLive reports whether a tap still holds the lock on path.
func tapLive(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}

// RecorderErr returns the error that stopped r, if one did: recording stops
// at the first failed write, and a tap says so while it runs.
func RecorderErr(r *Recorder) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Tap is one tap run found in the tap directory.
type Tap struct {
	Name  string // whole, as the tap was given it
	stem  string // Name as its file names it (TapName)
	Path  string
	Start time.Time
	Pid   int
	Live  bool

	// Filled in by Describe.
	Command  []string
	State    string // "running", or how the server ended ("exit 0", "killed by SIGTERM", ...)
	Findings int    // findings so far (frames' and the session's)
	Err      error  // the capture could not be read
}

// parseTapFile reads NAME@START-PID.jsonl; ok is false for other files.
func parseTapFile(base string) (t Tap, ok bool) {
	stem, isCapture := strings.CutSuffix(base, ".jsonl")
	at := strings.LastIndexByte(stem, '@')
	if !isCapture || at <= 0 {
		return Tap{}, false
	}
	rest := stem[at+1:]
	dash := strings.LastIndexByte(rest, '-')
	if dash < 0 {
		return Tap{}, false
	}
	start, err := time.Parse(tapTimeLayout, rest[:dash])
	pid, perr := strconv.Atoi(rest[dash+1:])
	if err != nil || perr != nil {
		return Tap{}, false
	}
	return Tap{Name: untapName(stem[:at]), stem: stem[:at], Start: start, Pid: pid}, true
}

// ListTaps returns the taps in dirs, newest first. A missing directory has
// no taps.
func ListTaps(dirs ...string) ([]Tap, error) {
	var taps []Tap
	for _, dir := range dirs {
		in, err := listTapsIn(dir)
		if err != nil {
			return nil, err
		}
		taps = append(taps, in...)
	}
	sort.SliceStable(taps, func(i, j int) bool { return taps[i].Start.After(taps[j].Start) })
	return taps, nil
}

func listTapsIn(dir string) ([]Tap, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var taps []Tap
	for _, e := range ents {
		t, ok := parseTapFile(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		t.Path = filepath.Join(dir, e.Name())
		t.Live = tapLive(t.Path)
		taps = append(taps, t)
	}
	return taps, nil
}

// Describe reads the tap's capture for its command, state and findings.
func (t *Tap) Describe() {
	c, err := Open(t.Path)
	if err != nil {
		t.Err = err
		return
	}
	t.Command = c.Header.Command
	t.State = "starting"
	first, next := c.Log.Bounds()
	for _, ev := range c.Log.Range(first, next) {
		switch ev.Type {
		case eventlog.EventFinding:
			t.Findings++
		case eventlog.EventFrame:
			t.Findings += len(ev.Frame.Findings)
		case eventlog.EventProcess:
			t.State = processState(ev.Process)
		}
	}
	if !t.Live && (t.State == "running" || t.State == "starting") {
		t.State = "ended (no exit recorded)"
	}
}

func processState(p *eventlog.ProcessEvent) string {
	switch {
	case p.State != eventlog.StateExited:
		return p.State.String()
	case p.Signal != "":
		return "killed by " + p.Signal
	default:
		return fmt.Sprintf("exit %d", p.ExitCode)
	}
}

// ErrNoTap is returned (wrapped) by ResolveTap when no tap matches.
var ErrNoTap = errors.New("no such tap")

// ResolveTap finds the tap arg names in dirs: "latest" is the newest live
// tap (the newest of all when none is live); a name is the newest tap of
// that name, a live one first.
func ResolveTap(dirs []string, arg string) (Tap, error) {
	taps, err := ListTaps(dirs...)
	if err != nil {
		return Tap{}, err
	}
	var match []Tap
	for _, t := range taps {
		if arg == "latest" || t.Name == arg || t.stem == TapName(arg) {
			match = append(match, t)
		}
	}
	if len(match) == 0 {
		return Tap{}, fmt.Errorf("%w %q in %s", ErrNoTap, arg, strings.Join(dirs, ", "))
	}
	for _, t := range match {
		if t.Live {
			return t, nil
		}
	}
	return match[0], nil
}

// PruneTaps removes the oldest ended captures of the tap named name in dir,
// keeping the newest keep of them (live taps are never touched, nor other
// names). It returns how many it removed; errors are left unsaid, as a tap
// must stay invisible.
func PruneTaps(dir, name string, keep int) int {
	taps, err := ListTaps(dir)
	if err != nil || keep < 0 {
		return 0
	}
	removed, kept := 0, 0
	for _, t := range taps { // newest first
		if t.stem != TapName(name) || t.Live {
			continue
		}
		if kept < keep {
			kept++
			continue
		}
		if os.Remove(t.Path) == nil {
			removed++
		}
	}
	return removed
}
