package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"linesman/session"
	"linesman/session/eventlog"
	"linesman/wire"
)

const sendHeader = `linesman send — send hand-written frames to an MCP stdio server and report

Usage:
  linesman send [flags] -- COMMAND [ARG...]  < frames.jsonl
  linesman send [flags] --file frames.jsonl -- COMMAND [ARG...]

The server starts first. Frames are read one per line, and each goes to the
server as soon as it is read, so a slow producer paces the conversation (a
JSON value written over several lines, pretty-printed, is joined and sent as
one compact line once its last line is read). By default linesman makes the
handshake first (the era probe, then initialize or server/discover), then
sends each line, filling in ids: a line that is a JSON
object with a "method", without an "id", and whose method does not start with
"notifications/" is a request, and gets the next free id (one never used in
the session, past every integer id given by hand). In the modern era
(2026-07-28) a request without params._meta also gets the _meta that era
requires (protocol version, client capabilities and info), inserted at the
start of params; a _meta written by hand is left alone. A message without
"jsonrpc" (a request, a notification, an answer) gets "jsonrpc":"2.0". The
inspector's composer completes what it sends the same way. Blank lines are
skipped. Other lines are sent as they are, followed by "\n". The handshake used the
first ids: a hand-written id that repeats one is reported as a reused id.

--raw sends the input exactly as given, byte for byte, each frame as the
wire cuts it — no handshake, no ids, no line ends added or changed,
malformed frames included: that is how to show a server a broken frame on
purpose. linesman adds nothing of its own: the server's requests are not
answered unless --answer asks for it. --era still says which era's rules
judge the conversation. A request on a last line without a newline is not
waited for (a server reading lines sees it only at EOF).

When the input ends, linesman waits for the answers to every request sent
(each at most --timeout), closes the server's stdin, runs the shutdown ladder
and prints the report with every frame that crossed the wire, each whole
(--json: one JSON document, schema in docs/report.md; --max-text N cuts each
frame's text at N bytes and says so).

Exit status: 0 no finding at or above the --fail-on severity (error by
default), 1 at least one (or the run failed: no handshake, no server),
2 usage error; stopped by a signal, 128+n: 130 SIGINT (^C), 143 SIGTERM,
129 SIGHUP (the server is still shut down and the report printed).

Examples:
  echo '{"jsonrpc":"2.0","method":"tools/list"}' | linesman send -- python3 server.py
  printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n{"id":1,\n' |
      linesman send --raw --json -- ./server
`

// runSend is "linesman send".
func runSend(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var flags commonFlags
	fs := newFlagSet("send", sendHeader, stdout, stderr)
	flags.register(fs, true, false)
	flags.ci.register(fs)
	file := fs.String("file", "", "read the frames from this file instead of stdin")
	raw := fs.Bool("raw", false, "send the input byte for byte: no handshake, no ids filled in, nothing fixed, nothing added")
	answer := fs.Bool("answer", false, "with --raw: answer the server's requests as check does (ping, roots/list; sampling and elicitation declined)")
	fs.IntVar(&flags.maxText, "max-text", 0, "cut each frame's text in the report at this many bytes (0: every frame whole, however large)")
	command, status, ok := parseHeadless(fs, &flags, args, stderr)
	if !ok {
		return status
	}
	if *answer && !*raw {
		fmt.Fprintln(stderr, "linesman send: --answer applies to --raw (without it, linesman answers the server's requests anyway)")
		return exitUsage
	}
	input := stdin
	if *file != "" {
		f, err := os.Open(*file)
		if err != nil {
			fmt.Fprintf(stderr, "linesman send: reading the frames: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		input = f
	} else if inspectTerminal(stdin) {
		// Otherwise a person sees nothing happen: say what is awaited.
		fmt.Fprintln(stderr, "linesman send: reading frames from the terminal, one per line; end with ctrl+d (or give --file F)")
	}

	cfg := sessionConfig(&flags, command)
	next := wire.NewInputReader(input).Next
	if *raw {
		// The input opens the conversation; --era still says which era's
		// rules judge it. linesman adds no frame of its own unless asked.
		cfg.NoHandshake = true
		cfg.Observe = !*answer
		next = wire.NewRawInput(input, flags.maxFrame).Next
	}
	return runHeadless("send", &flags, cfg, stdout, stderr, sendSteps(next, !*raw))
}

// sendSteps makes the handshake (with --raw it only pins the era asked
// for), then sends each frame as next reads it — completed with an id and
// the era's _meta when complete is set — and, once the input ends, waits
// for the answers. A server that exits ends the run where it stands.
func sendSteps(next func() ([]byte, error), complete bool) headlessSteps {
	return func(ctx context.Context, s *session.Session, flags *commonFlags) error {
		if err := handshake(ctx, s, flags); err != nil {
			return err
		}
		frames := make(chan []byte)
		ended := make(chan error, 1)
		stop := make(chan struct{})
		defer close(stop)
		// The input is read on its own goroutine, so that a server that
		// exits or an interrupt ends the run while a read waits.
		go func() {
			for {
				f, err := next()
				if err != nil {
					ended <- err
					return
				}
				select {
				case frames <- f:
				case <-stop:
					return
				}
			}
		}()
		for {
			select {
			case f := <-frames:
				if complete {
					f = append(s.CompleteRequestOwned(f), '\n') // in place: the line is held once
				}
				if err := s.SendOwned(f); err != nil {
					return fmt.Errorf("send: %w", err)
				}
			case err := <-ended:
				if !errors.Is(err, io.EOF) {
					return fmt.Errorf("reading the frames: %w", err)
				}
				return waitForAnswers(ctx, s, flags.timeout)
			case <-s.Exited():
				return nil // the report tells how the server ended
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// unterminated reports whether the frame at seq ended without a line end
// (--raw input without a final newline): a server reading lines cannot see
// it until its stdin closes, so waiting for its answer first would only
// wait out the timeout.
func unterminated(log *eventlog.Log, seq uint64) bool {
	ev, ok := log.Get(seq)
	if !ok || ev.Frame == nil || len(ev.Frame.Lines) == 0 {
		return false
	}
	return ev.Frame.Lines[len(ev.Frame.Lines)-1].Term == wire.TermNone
}

// waitForAnswers waits until no request linesman sent is in flight (but
// one in an unterminated last frame), the server exits, or ctx ends. Each request is bounded by the tracker's
// timeout (it marks it timed-out); timeout plus a margin bounds the wait
// itself, whatever the tracker does.
func waitForAnswers(ctx context.Context, s *session.Session, timeout time.Duration) error {
	signal, cancel := s.Log().Subscribe()
	defer cancel()
	deadline := time.NewTimer(timeout + time.Second)
	defer deadline.Stop()
	for {
		open := 0
		for _, r := range s.Tracker().InFlight() {
			if r.Dir == wire.ClientToServer && !unterminated(s.Log(), r.Seq) {
				open++
			}
		}
		if open == 0 {
			return nil
		}
		select {
		case <-signal:
		case <-s.Exited():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return nil // the tracker's request-timeout findings tell the story
		}
	}
}
