package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"linesman/session"
	"linesman/wire"
)

const sendHeader = `linesman send — send hand-written frames to an MCP stdio server and report

Usage:
  linesman send [flags] -- COMMAND [ARG...]  < frames.jsonl
  linesman send [flags] --file frames.jsonl -- COMMAND [ARG...]

Frames are read one per line, all of them, before the server starts (a
JSON value written over several lines, pretty-printed, is joined and sent
as one compact line). By
default linesman makes the handshake first (the era probe, then initialize or
server/discover), then sends each line, filling in ids: a line that is a JSON
object with a "method", without an "id", and whose method does not start with
"notifications/" is a request, and gets the next free id (one never used in
the session, past every integer id given by hand). In the modern era
(2026-07-28) a request without params._meta also gets the _meta that era
requires (protocol version, client capabilities and info), inserted at the
start of params; a _meta written by hand is left alone. Blank lines are skipped.
Other lines are sent as they are, followed by "\n". The handshake used the
first ids: a hand-written id that repeats one is reported as a reused id.

--raw sends the input exactly as given, byte for byte — no handshake, no ids,
no line ends added or changed, malformed frames included: that is how to show
a server a broken frame on purpose. A request on a last line without a
newline is not waited for (a server reading lines sees it only at EOF).

linesman then waits for the answers to every request sent (each at most
--timeout), closes the server's stdin, runs the shutdown ladder and prints
the report with every frame that crossed the wire, each whole (--json: one
JSON document, schema in README.md; --max-text N cuts each frame's text at N
bytes and says so).

Exit status: 0 no finding of severity error, 1 at least one (or the run
failed: no handshake, no server), 2 usage error, 130 interrupted (^C,
SIGTERM, SIGHUP: the server is still shut down and the report printed).

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
	file := fs.String("file", "", "read the frames from this file instead of stdin")
	raw := fs.Bool("raw", false, "send the input byte for byte: no handshake, no ids filled in, nothing fixed")
	fs.IntVar(&flags.maxText, "max-text", 0, "cut each frame's text in the report at this many bytes (0: every frame whole, however large)")
	command, status, ok := parseHeadless(fs, &flags, args, stderr)
	if !ok {
		return status
	}

	var input []byte
	var err error
	if *file != "" {
		input, err = os.ReadFile(*file)
	} else {
		if inspectTerminal(stdin) {
			// Otherwise a person sees nothing happen: say what is awaited.
			fmt.Fprintln(stderr, "linesman send: reading frames from the terminal, one per line; end with ctrl+d (or give --file F)")
		}
		input, err = io.ReadAll(stdin)
	}
	if err != nil {
		fmt.Fprintf(stderr, "linesman send: reading the frames: %v\n", err)
		return exitUsage
	}

	return runHeadless("send", &flags, command, stdout, stderr,
		func(ctx context.Context, s *session.Session, flags *commonFlags) error {
			if *raw {
				if len(input) > 0 {
					if err := s.Send(input); err != nil {
						return fmt.Errorf("send: %w", err)
					}
				}
				return waitForAnswers(ctx, s, flags.timeout)
			}
			if err := handshake(ctx, s, flags); err != nil {
				return err
			}
			for _, line := range inputFrames(input) {
				line = s.CompleteRequest(line)
				if err := s.Send(append(line, '\n')); err != nil {
					return fmt.Errorf("send: %w", err)
				}
			}
			return waitForAnswers(ctx, s, flags.timeout)
		})
}

// maxJoinedBytes bounds the JSON value inputFrames joins from several lines.
const maxJoinedBytes = 16 << 20

// inputFrames splits send's input into the frames to send: one per line,
// blank lines skipped, a "\r" before the "\n" dropped. A JSON value typed
// over several lines (a pretty-printed request.json) is joined and sent as
// one compact line: sent line by line it would only show the server a
// broken frame, which is what --raw is for. Lines that do not complete a
// value are sent as they are.
func inputFrames(input []byte) [][]byte {
	var out [][]byte
	for pos := 0; pos < len(input); {
		end, next := len(input), len(input)
		if i := bytes.IndexByte(input[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		line := bytes.TrimSuffix(input[pos:end], []byte("\r"))
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			pos = next
			continue
		}
		if !json.Valid(trimmed) && (trimmed[0] == '{' || trimmed[0] == '[') {
			if value, after, ok := multiLineValue(input, pos); ok {
				out = append(out, value)
				pos = after
				continue
			}
		}
		out = append(out, line)
		pos = next
	}
	return out
}

// multiLineValue reads the JSON value that starts on the line at pos and
// runs over later lines, ending its own line. It returns the value compact
// and the position of the line after it.
func multiLineValue(input []byte, pos int) (value []byte, after int, ok bool) {
	dec := json.NewDecoder(io.LimitReader(bytes.NewReader(input[pos:]), maxJoinedBytes))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return nil, 0, false
	}
	vend := pos + int(dec.InputOffset())
	tail, after := input[vend:], len(input)
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail, after = tail[:i], vend+i+1
	}
	if len(bytes.TrimSpace(tail)) != 0 {
		return nil, 0, false // something else follows on its last line
	}
	var c bytes.Buffer
	if json.Compact(&c, v) != nil {
		return nil, 0, false
	}
	return c.Bytes(), after, true
}

// unterminated reports whether the frame at seq ended without a line end
// (--raw input without a final newline): a server reading lines cannot see
// it until its stdin closes, so waiting for its answer first would only
// wait out the timeout.
func unterminated(log *session.Log, seq uint64) bool {
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
