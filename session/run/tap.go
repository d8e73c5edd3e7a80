package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"linesman/session"
	"linesman/session/eventlog"
	"linesman/session/fault"
)

// TapOptions are what a tap adds to [Options]: its name and directory, and
// what its capture keeps.
type TapOptions struct {
	Name string // as 'linesman taps' lists it
	Dir  string // the tap directory ("": the default)
	Keep int    // ended captures of this name to keep
	// KeepSecrets writes secret-looking arguments into the capture as
	// they are (by default they are hosts.Redaction there).
	KeepSecrets bool
	// MaxCapture bounds the capture's size: a tap lives as long as its
	// host, and a runaway server must not fill the disk through it.
	MaxCapture int64
	Faults     []fault.Spec // --fault: injected into what the server writes
	// Intercept, when set (tap --intercept), lets the session hold frames
	// (session.Config.Intercept) and is called once it has started, with
	// the capture's path, to serve a controller beside it until stop.
	Intercept func(capturePath string, s *session.Session) (stop func(), err error)
}

// A tap lives as long as its host and a host starts many, so it keeps
// less than an inspector: its log holds tapRetention bytes of events (the
// capture holds them all; 'view --follow' reads the capture), and each
// direction's scribe may fall tapScribeBudget behind the wire. A smaller
// scribe budget also bounds the judging left when the server has gone:
// with 64 MiB, a tap under a flood took 0.3-0.6 s after the server's exit
// to finish judging; with 16 MiB, 70-85 ms. tapMemoryLimit is the soft
// memory limit that goes with them (as the other modes' in main): under a
// flood, the heap stays near 130 MB instead of 400 MB.
const (
	tapRetention    = 32 << 20
	tapScribeBudget = 16 << 20
	tapMemoryLimit  = tapRetention + 2*tapScribeBudget + 64<<20
)

// DefaultTapMaxCapture is --max-capture's default: a capture of a week of
// a chatty server's logging fits, a runaway flood stops well short of
// filling a disk (a tap under a server writing 250 MiB/s, left running,
// once wrote 78 GB in five minutes), and --keep of them stay bounded.
const DefaultTapMaxCapture = 256 << 20

// Tap is a tap's run, top to bottom: the server (opts.Session.Command)
// starts with the wire passed through — stdin to its stdin, its stdout
// and stderr to stdout and stderr, as they come — judged and recorded in
// the tap directory (opts.Tap) as it goes. A stop signal is passed to the
// server's group, not acted on; the tap ends when the server does, with
// its exit status as a shell reports it.
func Tap(opts *Options, stdin io.Reader, stdout, stderr io.Writer) int {
	// A host that closes its end of our stdout must not kill us with
	// SIGPIPE before the server has been told (Notify, not Ignore: an
	// ignored SIGPIPE would be inherited by the server).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	fwd := &forwarder{stdin: stdin}
	sigs := WatchSignals(StopSignals(), fwd.signal)
	defer sigs.Close()

	// Stdin and stdout are left as the host made them, blocking pipes
	// most often: a thread blocked in the kernel is woken by the pipe
	// itself, where a polled read went through the runtime's poller.
	// Polled, stdin cost each round trip 2-3x a bare proxy's added latency
	// and twice the CPU (BenchmarkTapLatency); a polled stdout cost a
	// park and an epoll wake-up per full pipe under a flood.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(tapMemoryLimit)
	}
	log := eventlog.NewLog(tapRetention)
	rec := startTapRecording(opts, log, stderr)
	defer rec.close()

	// With a fault to inject, the server's stdout goes through the
	// injector; without one, to the host as it comes.
	var tee io.Writer = stdout
	var inj *fault.Injector
	if len(opts.Tap.Faults) > 0 {
		inj = fault.New(opts.Tap.Faults, stdout)
		tee = inj
	}
	s, err := session.Start(tapConfig(opts, log, tee, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", opts.Name, err)
		return startFailureStatus(err)
	}
	fwd.start(s)
	if opts.Tap.Intercept != nil {
		defer startTapController(opts, rec, s, stderr)()
	}
	var observe func([]byte)
	if inj != nil {
		inj.SetTarget(s.FaultTarget())
		observe = inj.Host
	}
	go pumpStdin(stdin, s.Inlet(), observe)
	waitTapExit(s, rec)
	finishTap(s, sigs)
	rec.close()
	return tapExitStatus(s.Info())
}

// tapConfig is the session of a tap: observed, not driven (no handshake,
// nothing answered), the wire passed on to the host as it comes.
func tapConfig(opts *Options, log *eventlog.Log, stdout, stderr io.Writer) session.Config {
	return session.Config{
		Command:      opts.Session.Command,
		Log:          log,
		MaxFrame:     opts.Session.MaxFrame,
		Timeout:      opts.Session.Timeout,
		Observe:      true,
		NoHandshake:  true,
		Headless:     true,
		ScribeBudget: tapScribeBudget,
		StdoutTee:    stdout,
		StderrTee:    stderr,
		Intercept:    opts.Tap.Intercept != nil,
	}
}

// startTapController serves the tap's controller beside its capture, and
// returns what stops it; without one (no capture, no socket) the tap says
// so once and goes on uncontrolled.
func startTapController(opts *Options, rec *tapRecording, s *session.Session, stderr io.Writer) (stop func()) {
	if rec.path == "" {
		fmt.Fprintf(stderr, "%s: --intercept: no controller (there is no capture to put its socket beside)\n", opts.Name)
		return func() {}
	}
	stop, err := opts.Tap.Intercept(rec.path, s)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --intercept: no controller: %v\n", opts.Name, err)
		return func() {}
	}
	return stop
}

// A forwarder passes the stop signals a tap gets to its server's group; a
// signal that comes before the server has started is passed on once it has.
// Each says whether the host had closed the tap's stdin by then
// (hostHungUp), so that the order the host did the two in is the log's.
type forwarder struct {
	mu    sync.Mutex
	stdin io.Reader
	s     *session.Session
	early []syscall.Signal
}

func (f *forwarder) signal(sig os.Signal) {
	ss, ok := sig.(syscall.Signal)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.s == nil {
		f.early = append(f.early, ss)
		return
	}
	f.s.Signal(ss, hostHungUp(f.stdin))
}

func (f *forwarder) start(s *session.Session) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.s = s
	for _, sig := range f.early {
		s.Signal(sig, hostHungUp(f.stdin))
	}
	f.early = nil
}

// waitTapExit waits for the server's exit, saying once on the way if the
// recording failed.
func waitTapExit(s *session.Session, rec *tapRecording) {
	recCheck := time.NewTicker(time.Second)
	defer recCheck.Stop()
	for {
		select {
		case <-s.Exited():
			return
		case <-recCheck.C:
			rec.check()
		}
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
// a host that saw the exit would stop listening; a stop signal now kills
// them at once.
func finishTap(s *session.Session, sigs *Watch) {
	if WaitBounded(s.Done(), time.Second) {
		return
	}
	signalled := make(chan struct{})
	var once sync.Once
	sigs.SetAction(func(os.Signal) { once.Do(func() { close(signalled) }) })
	s.Shutdown()
	t := time.NewTimer(session.DefaultLadderWait + drainMargin)
	defer t.Stop()
	select {
	case <-s.Done():
	case <-t.C:
	case <-signalled:
		s.Kill()
		WaitBounded(s.Done(), drainMargin)
	}
}

// tapExitStatus is the server's exit status the way a shell reports it.
func tapExitStatus(info session.ProcessInfo) int {
	if info.Signal == "" {
		if info.ExitCode < 0 {
			return StatusFailed
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
	return StatusFailed
}
