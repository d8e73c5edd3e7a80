// Package mock plays a recording back as a stdio MCP server: `linesman
// mock CAPTURE`.
//
// Any recording capture.Open reads is a valid input. [Build] arranges it
// into a [Script]: what the server wrote unasked at the start, what it did
// after each message its client sent (its answer, its own requests and
// notifications, stderr lines), what it did once its stdin closed, and how
// it ended. [Serve] reads the live client's messages and plays the part
// each one matches: a request by the same method and params, else the same
// params but for _meta, else the same stable members (a tool's name and
// arguments, a prompt's name, a resource's uri; the method alone for
// methods that have none); the answer's id and a progress notification's
// token are rewritten to the live request's. A request with no match gets a
// JSON-RPC error and a stderr line naming the closest recorded request.
//
// This package writes only what the recorded server wrote (and the
// unmatched-request errors and hints); it never touches a terminal.
package mock

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/session/fault"
	"linesman/wire"
)

// Timing says whether the mock keeps the recorded delays.
type Timing uint8

const (
	TimingRecorded Timing = iota // each thing after what it followed, as recorded
	TimingFast                   // everything at once, in order
)

// ParseTiming reads --timing's value.
func ParseTiming(s string) (Timing, error) {
	switch s {
	case "recorded", "":
		return TimingRecorded, nil
	case "fast":
		return TimingFast, nil
	}
	return 0, fmt.Errorf("--timing %q: want recorded or fast", s)
}

// Options configure [Serve].
type Options struct {
	Timing Timing
	Stdin  io.Reader
	Stdout io.Writer // closed by a close-stdout fault when it is an [io.Closer]
	Stderr io.Writer
	// Faults are injected into what the mock answers, as tap --fault
	// injects them into a server's answers (see [fault.Spec]); each one
	// is said on Stderr as it is injected.
	Faults []fault.Spec
}

// Exit is how the mock ends: a code, or a signal (Signal names it; the
// caller raises it, [Raise]).
type Exit struct {
	Code   int
	Signal string
}

// Serve opens the recording at path and plays it as a server on the
// options' stdio until it ends as the recorded server did. It returns an
// error only when the recording cannot be opened.
func Serve(path string, opts Options) (Exit, error) {
	c, err := capture.Open(path)
	if err != nil {
		return Exit{}, err
	}
	return Play(Build(c), c.Tracker.Era(), opts), nil
}

// server is one playing of a script.
type server struct {
	s      *Script
	era    eventlog.Era
	opts   Options
	start  time.Time
	outMu  sync.Mutex
	exit   chan Exit
	onceEx sync.Once
	// pending counts the plays under way on their own goroutines, so the
	// end of stdin lets them finish first.
	pending sync.WaitGroup
	// killed: an injected kill ended the mock; a killed server writes
	// nothing more, also while Play's caller is raising the signal.
	killed atomic.Bool
}

// Play plays s on the options' stdio and returns how it ended.
func Play(s *Script, era eventlog.Era, opts Options) Exit {
	srv := &server{s: s, era: era, opts: opts, start: time.Now(), exit: make(chan Exit, 1)}
	if len(opts.Faults) > 0 {
		srv.injectFaults()
	}
	srv.play(s.Prelude, live{}, srv.start)
	go srv.read()
	return <-srv.exit
}

// live is what an item's rewriting takes from the live message it answers.
type live struct {
	id, token []byte
}

// play does items after base, each at its delay (at once under
// TimingFast, on the caller's goroutine then; on its own otherwise).
func (srv *server) play(items []item, lv live, base time.Time) {
	if len(items) == 0 {
		return
	}
	if srv.opts.Timing == TimingFast {
		srv.do(items, lv, base)
		return
	}
	srv.pending.Add(1)
	go func() {
		defer srv.pending.Done()
		srv.do(items, lv, base)
	}()
}

func (srv *server) do(items []item, lv live, base time.Time) {
	for _, it := range items {
		if srv.opts.Timing == TimingRecorded {
			time.Sleep(time.Until(base.Add(it.Delay)))
		}
		switch it.Kind {
		case itemStdout:
			raw := it.Raw
			if it.Answer {
				raw = rewrite(raw, lv.id, "id")
			}
			if it.Progress {
				raw = rewrite(raw, lv.token, "params", "progressToken")
			}
			srv.write(srv.opts.Stdout, raw)
		case itemStderr:
			srv.write(srv.opts.Stderr, it.Raw)
		case itemExit:
			srv.end(Exit{Code: it.Exit.Code, Signal: it.Exit.Signal})
			return
		}
	}
}

func (srv *server) write(w io.Writer, b []byte) {
	srv.outMu.Lock()
	defer srv.outMu.Unlock()
	if srv.killed.Load() {
		return
	}
	w.Write(b)
}

func (srv *server) end(e Exit) {
	srv.onceEx.Do(func() { srv.exit <- e })
}

// read takes the client's messages one line at a time until EOF.
func (srv *server) read() {
	br := bufio.NewReaderSize(srv.opts.Stdin, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			srv.message(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				srv.end(Exit{Code: 1})
			}
			srv.eof()
			return
		}
	}
}

// eof plays what the server did once its stdin closed, then ends as it
// did: its recorded exit, holding on until a signal, or 0 for a
// recording without an exit.
func (srv *server) eof() {
	srv.play(srv.s.AfterEOF, live{}, time.Now())
	if srv.s.Hold {
		holdOn(srv.s.HoldSignal)
		return
	}
	for _, it := range srv.s.AfterEOF {
		if it.Kind == itemExit {
			return
		}
	}
	srv.pending.Wait() // what the client's last messages set off comes first
	srv.end(Exit{})
}

// message plays the part of the recording that line matches.
func (srv *server) message(line []byte) {
	m, _ := wire.Classify(trimEOL(line))
	now := time.Now()
	switch m.Kind {
	case wire.KindRequest:
		r := parseRequest(trimEOL(line))
		c, _ := srv.s.match(r)
		if c == nil {
			srv.unmatched(r)
			return
		}
		srv.play(c.Items, live{id: r.ID, token: r.ProgressToken}, now)
	case wire.KindNotification:
		if c := srv.s.matchNotification(parseRequest(trimEOL(line))); c != nil {
			srv.play(c.Items, live{}, now)
		}
	case wire.KindResult, wire.KindError:
		if c := srv.s.matchResponse(m.ID); c != nil {
			srv.play(c.Items, live{}, now)
		}
	}
}

// unmatched answers a request the recording has no match for: ping, in a
// recording that never saw one and is not of the modern era (which has no
// ping), gets the empty result every legacy server owes it; anything else
// a JSON-RPC error and a stderr line naming the closest recorded request.
func (srv *server) unmatched(r request) {
	if r.Method == "ping" && srv.era != eventlog.EraModern && !srv.s.recorded("ping") {
		srv.write(srv.opts.Stdout, []byte(`{"jsonrpc":"2.0","id":`+string(r.ID)+`,"result":{}}`+"\n"))
		return
	}
	hint := srv.s.closest(r)
	srv.write(srv.opts.Stdout, srv.s.unmatchedError(r, hint))
	msg := "linesman mock: no recorded answer to " + r.Method + " " + clipped(r.NoMeta)
	if hint != "" {
		msg += "; closest recorded: " + hint
	}
	srv.write(srv.opts.Stderr, []byte(msg+"\n"))
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
