package run

import (
	"fmt"
	"io"
	"os"

	"linesman/capture"
	"linesman/session"
	"linesman/session/eventlog"
	"linesman/session/hosts"
)

// tapRecording is the capture of a tap: it may be missing (the directory or
// the disk refused it), and then the tap says so once and goes on.
type tapRecording struct {
	path   string // the capture's ("" when it could not be made)
	rec    *capture.Recorder
	lock   *os.File
	stderr io.Writer
	prefix string // "linesman tap"
	said   bool
	closed bool
}

// startTapRecording starts the capture of a tap in the tap directory: its
// name's older captures pruned, the new one locked while it is written, the
// secrets in its command redacted unless asked to keep them.
func startTapRecording(opts *Options, log *eventlog.Log, stderr io.Writer) *tapRecording {
	tf, command := opts.Tap, opts.Session.Command
	r := &tapRecording{stderr: stderr, prefix: opts.Name}
	dir, err := capture.TapDir(tf.Dir)
	var path string
	if err == nil {
		path, err = capture.NewTapPath(dir, tf.Name, log.Start())
	}
	if err == nil {
		h := Header(&Options{Era: "auto", Session: session.Config{Command: command, MaxFrame: opts.Session.MaxFrame, Timeout: opts.Session.Timeout}})
		if !tf.KeepSecrets {
			h.Command, h.Secrets = hosts.RedactCommand(command), hosts.SecretValues(command)
		}
		r.rec, err = capture.CreateLimited(path, log, h, tf.MaxCapture)
	}
	if err != nil {
		r.fail(err)
		return r
	}
	r.path = path
	r.lock = capture.LockTap(path)
	capture.PruneTaps(dir, tf.Name, tf.Keep)
	return r
}

// check says once that recording failed, while the tap goes on.
func (r *tapRecording) check() {
	if r.rec != nil {
		if err := capture.RecorderErr(r.rec); err != nil {
			r.fail(err)
		}
	}
}

func (r *tapRecording) fail(err error) {
	if !r.said {
		r.said = true
		fmt.Fprintf(r.stderr, "%s: not recording (the server's traffic is passed on all the same): %v\n", r.prefix, err)
	}
}

func (r *tapRecording) close() {
	if r.closed {
		return
	}
	r.closed = true
	if r.rec != nil {
		if err := r.rec.Close(); err != nil {
			r.fail(err)
		}
	}
	if r.lock != nil {
		r.lock.Close()
	}
}
