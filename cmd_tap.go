package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"linesman/capture"
	"linesman/session"
	"linesman/session/eventlog"
	"linesman/session/fault"
	"linesman/session/hosts"
)

const tapHeader = `linesman tap — watch the traffic of a real host

Usage:
  linesman tap [--name N] [flags] -- COMMAND [ARG...]

A host (Claude Desktop, VS Code, Cursor, ...) runs this in place of the
server. tap starts COMMAND through linesman's isolated transport and passes
the bytes on unchanged both ways: its stdin to the server's stdin, the
server's stdout to its stdout, the server's stderr to its stderr, each as it
arrives. It never writes a byte of its own to stdout. Meanwhile it judges the
traffic as check does and records it as a capture (mode 0600) in the tap
directory, where 'linesman taps' lists it and 'linesman view --follow NAME'
opens it live.

It ends as the host expects: end of file on its stdin is passed on (the
server's stdin is closed, nothing more); SIGTERM, SIGINT and SIGHUP are passed
to the server's process group — every process in it, so a server started
through a launcher that does not pass signals on (npx, uvx) ends sooner than
when the host starts it directly and only the launcher is signalled; its exit status is the server's (a server
killed by a signal gives 128+n, as a shell reports it; 127 when the command
is not found, 126 when it cannot be executed). If the capture cannot be
written, the bytes are still passed on and one line says so on stderr.

The capture holds no environment value, and each argument that looks like a
secret (--api-key VALUE, --token=..., a URL with a password or a key, the
shapes of well-known keys) as <redacted>, in the command and wherever a
record's text repeats it; --keep-secrets keeps them. The traffic itself is
recorded as it crossed.

Tap directory: --dir, else $LINESMAN_TAP_DIR, else $XDG_STATE_HOME/linesman/taps,
else ~/.local/state/linesman/taps. The newest --keep ended captures of each
name are kept; older ones are removed when a tap of that name starts.

'linesman wrap' rewrites a host's config to run its servers through tap.

Examples:
  linesman tap --name weather -- python3 weather.py
  linesman tap -- npx -y @modelcontextprotocol/server-everything
`

// tapFlags are tap's own flags.
type tapFlags struct {
	name     string
	dir      string
	maxFrame int
	timeout  time.Duration
	keep     int
	// keepSecrets writes secret-looking arguments into the capture as
	// they are (by default they are hosts.Redaction there).
	keepSecrets bool
	// maxCapture bounds the capture's size: a tap lives as long as its
	// host, and a runaway server must not fill the disk through it.
	maxCapture int64
	faults     faultFlag
}

// runTap is "linesman tap": forward, record, judge, and exit as the server did.
func runTap(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var tf tapFlags
	fs := newFlagSet("tap", tapHeader, stdout, stderr)
	fs.StringVar(&tf.name, "name", "", "name of the tap, as 'linesman taps' lists it (default: the command's base name)")
	fs.StringVar(&tf.dir, "dir", "", "directory of the tap captures (default: see above)")
	fs.IntVar(&tf.maxFrame, "max-frame", 16<<20, "largest frame the judge keeps whole, in bytes (forwarding is never limited)")
	durationVar(fs, &tf.timeout, "timeout", eventlog.DefaultTimeout, "a request of the host unanswered this long is flagged request-timeout")
	fs.BoolVar(&tf.keepSecrets, "keep-secrets", false, "write secret-looking arguments (--api-key VALUE, --token=..., a URL with a password or key, sk-..., ghp_...) into the capture as they are, not as <redacted>")
	fs.IntVar(&tf.keep, "keep", 20, "ended captures of this tap's name to keep; older ones are removed when it starts")
	sizeVar(fs, &tf.maxCapture, "max-capture", defaultTapMaxCapture, "largest capture file; past it, recording stops with a note and the traffic is still passed on (0: no limit)")
	registerFaults(fs, &tf.faults)
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	command := splitCommand(fs)
	if len(command) == 0 {
		fmt.Fprintln(stderr, "linesman tap: no server command; usage: linesman tap [--name N] -- COMMAND [ARG...]")
		return exitUsage
	}
	if tf.maxFrame < 1024 || tf.timeout <= 0 {
		fmt.Fprintln(stderr, "linesman tap: --max-frame wants at least 1024 and --timeout a positive duration")
		return exitUsage
	}
	if tf.name == "" {
		tf.name = filepath.Base(command[0])
	}
	return tapRun(&tf, command, stdin, stdout, stderr)
}

// tapRun is the run lifetime of a tap, top to bottom.
func tapRun(tf *tapFlags, command []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A host that closes its end of our stdout must not kill us with
	// SIGPIPE before the server has been told (Notify, not Ignore: an
	// ignored SIGPIPE would be inherited by the server).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	sigs := make(chan os.Signal, 4)
	if watched := stopSignals(); len(watched) > 0 {
		signal.Notify(sigs, watched...)
		defer signal.Stop(sigs)
	}

	stdin, restore := pollableStdin(stdin)
	defer restore()

	limitTapMemory()
	log := eventlog.NewLog(tapRetention)
	rec := startTapRecording(tf, command, log, stderr)
	defer rec.close()

	// With a fault to inject, the server's stdout goes through the
	// injector; without one, to the host as it comes.
	var tee io.Writer = stdout
	var inj *fault.Injector
	if len(tf.faults) > 0 {
		inj = fault.New(tf.faults, stdout)
		tee = inj
	}
	s, err := session.Start(session.Config{
		Command:     command,
		Log:         log,
		MaxFrame:    tf.maxFrame,
		Timeout:     tf.timeout,
		Observe:     true,
		NoHandshake: true,
		Headless:    true,
		JudgeBudget: tapJudgeBudget,
		StdoutTee:   tee,
		StderrTee:   stderr,
	})
	if err != nil {
		fmt.Fprintf(stderr, "linesman tap: %v\n", err)
		return startFailureStatus(err)
	}
	var observe func([]byte)
	if inj != nil {
		inj.SetTarget(faultTarget(s))
		observe = inj.Host
	}
	go pumpStdin(stdin, s.Inlet(), observe)

	recCheck := time.NewTicker(time.Second)
	defer recCheck.Stop()
	for running := true; running; {
		select {
		case <-s.Exited():
			running = false
		case sig := <-sigs:
			if ss, ok := sig.(syscall.Signal); ok {
				s.Signal(ss)
			}
		case <-recCheck.C:
			rec.check()
		}
	}
	finishTap(s, sigs)
	rec.close()
	return tapExitStatus(s.Info())
}

// A tap lives as long as its host and a host starts many, so it keeps
// less than an inspector: its log holds tapRetention bytes of events (the
// capture holds them all; 'view --follow' reads the capture), and each
// direction's judge may fall tapJudgeBudget behind the wire. A smaller
// judge budget also bounds the judging left when the server has gone:
// with 64 MiB, a tap under a flood took 0.3-0.6 s after the server's exit
// to finish judging; with 16 MiB, 70-85 ms. tapMemoryLimit is the soft
// memory limit that goes with them (as limitMemory's for the other
// modes): under a flood, the heap stays near 130 MB instead of 400 MB.
const (
	tapRetention   = 32 << 20
	tapJudgeBudget = 16 << 20
	tapMemoryLimit = tapRetention + 2*tapJudgeBudget + 64<<20
)

// defaultTapMaxCapture is --max-capture's default: a capture of a week of
// a chatty server's logging fits, a runaway flood stops well short of
// filling a disk (a tap under a server writing 250 MiB/s, left running,
// once wrote 78 GB in five minutes), and --keep of them stay bounded.
const defaultTapMaxCapture = 256 << 20

// limitTapMemory replaces limitMemory's limit with the tap's, unless
// GOMEMLIMIT is set.
func limitTapMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(tapMemoryLimit)
	}
}

// pumpStdin copies the host's stdin to the server as it comes, and passes
// its end on. A server that exited takes no more: the rest is not read.
func pumpStdin(stdin io.Reader, in *session.Inlet, observe func([]byte)) {
	buf := make([]byte, 64<<10)
	for {
		n, err := stdin.Read(buf)
		if n > 0 {
			// The injector sees a request before the server does: an
			// answer can never come out ahead of what its fault asks
			// (a kill on a method lands before the server reads it).
			if observe != nil {
				observe(buf[:n])
			}
			if _, werr := in.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			in.Close()
			return
		}
	}
}

// finishTap waits, after the server's exit, for what it wrote to be passed
// on. Output still held open by what the server left behind is waited for
// a moment, then the leftovers are killed (the shutdown after an exit), as
// a host that saw the exit would stop listening.
func finishTap(s *session.Session, sigs <-chan os.Signal) {
	if waitBounded(s.Done(), time.Second) {
		return
	}
	s.Shutdown()
	t := time.NewTimer(session.DefaultLadderWait + drainMargin)
	defer t.Stop()
	select {
	case <-s.Done():
	case <-t.C:
	case <-sigs:
		s.Kill()
		waitBounded(s.Done(), drainMargin)
	}
}

// tapExitStatus is the server's exit status the way a shell reports it.
func tapExitStatus(info session.ProcessInfo) int {
	if info.Signal == "" {
		if info.ExitCode < 0 {
			return exitFindings
		}
		return info.ExitCode
	}
	if n := unix.SignalNum(info.Signal); n != 0 {
		return 128 + int(n)
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(info.Signal, "signal ")); err == nil {
		return 128 + n
	}
	return 128 + int(syscall.SIGKILL)
}

// startFailureStatus is a shell's status for a command that did not start.
func startFailureStatus(err error) int {
	var se *session.StartError
	if errors.As(err, &se) {
		switch se.Reason {
		case session.StartNotFound:
			return 127
		case session.StartNotExecutable:
			return 126
		}
	}
	return exitFindings
}

// tapRecording is the capture of a tap: it may be missing (the directory or
// the disk refused it), and then the tap says so once and goes on.
type tapRecording struct {
	rec    *capture.Recorder
	lock   *os.File
	stderr io.Writer
	said   bool
	closed bool
}

func startTapRecording(tf *tapFlags, command []string, log *eventlog.Log, stderr io.Writer) *tapRecording {
	r := &tapRecording{stderr: stderr}
	dir, err := capture.TapDir(tf.dir)
	var path string
	if err == nil {
		path, err = capture.NewTapPath(dir, tf.name, log.Start())
	}
	if err == nil {
		flags := commonFlags{timeout: tf.timeout, maxFrame: tf.maxFrame, era: "auto"}
		h := captureHeader(&flags, command)
		if !tf.keepSecrets {
			h.Command, h.Secrets = hosts.RedactCommand(command), hosts.SecretValues(command)
		}
		r.rec, err = capture.CreateLimited(path, log, h, tf.maxCapture)
	}
	if err != nil {
		r.fail(err)
		return r
	}
	r.lock = capture.LockTap(path)
	capture.PruneTaps(dir, tf.name, tf.keep)
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
		fmt.Fprintf(r.stderr, "linesman tap: not recording (the server's traffic is passed on all the same): %v\n", err)
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
