package run

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"linesman/wire"
)

// diagLog is linesman's own diagnostics file (--log FILE). It is created
// 0600, like a capture: what it says quotes the server (its errors, its
// command line). Every line is made inert before it is written, so that
// `cat` of the log cannot set the title or the clipboard of the terminal
// showing it.
type diagLog struct {
	w      io.Writer
	f      *os.File
	prefix string
	stderr io.Writer // where a failed write is said, once
	failed atomic.Bool
}

// openDiagLog opens path for appending (creating it 0600; an existing
// regular file readable by others is made private), or returns a log that
// writes nowhere when path is empty. prefix names the mode in each line
// ("linesman check"); a write that fails is said on stderr, once.
func openDiagLog(path, prefix string, stderr io.Writer) (*diagLog, error) {
	d := &diagLog{w: io.Discard, prefix: prefix, stderr: stderr}
	if path == "" {
		return d, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
		// An existing file keeps its mode through O_CREATE: what the log
		// quotes (the server's errors, its command line) must not stay
		// readable by others.
		if err := f.Chmod(fi.Mode().Perm() &^ 0o077); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s is readable by others and cannot be made private: %w", path, err)
		}
	}
	d.w, d.f = f, f
	return d, nil
}

// logf writes one line: time, prefix, and the message made inert.
func (d *diagLog) logf(format string, a ...any) {
	msg := wire.VisibleString(fmt.Sprintf(format, a...), wire.Pictures)
	_, err := fmt.Fprintf(d.w, "%s %s: %s\n", time.Now().Format(time.RFC3339Nano), d.prefix, msg)
	d.said(err)
}

// said tells stderr of the first error writing the log (a full disk), so
// that a log that stops short is not taken for the whole story.
func (d *diagLog) said(err error) {
	if err == nil || d.f == nil || d.failed.Swap(true) {
		return
	}
	fmt.Fprintf(d.stderr, "%s: --log %s: %s: what follows is not in the log\n", d.prefix, d.f.Name(), inertErr(err))
}

// Close closes the file, if there is one.
func (d *diagLog) Close() error {
	if d.f == nil {
		return nil
	}
	err := d.f.Close()
	d.said(err)
	return err
}

// inertErr renders an error for a terminal: file names and server text in
// it are made inert.
func inertErr(err error) string { return wire.VisibleString(err.Error(), wire.Pictures) }

// inertLines makes text that came from a file safe for the terminal, line
// breaks kept.
func inertLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = wire.VisibleString(l, wire.Pictures)
	}
	return strings.Join(lines, "\n")
}
