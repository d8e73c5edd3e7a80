package capture

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Foreign formats: conversations recorded by other tools, which Open reads
// when a file is not a linesman capture. Each message becomes a frame event
// of the direction the file says, in file order, through the same rebuild
// and tracker as a capture: the findings are what a live session that had
// seen the same messages would hold. Lines of the file that are not messages
// (a host's own log lines, a server's stderr) become stderr events.
const (
	// ForeignClaudeDesktop is Claude Desktop's per-server MCP log
	// (mcp-server-NAME.log): "TIME [NAME] [info] Message from client: {…}"
	// and "… Message from server: {…}", the JSON optionally followed by
	// " { metadata: undefined }"; releases of mid-2025 wrote the level
	// first, "TIME [info] [NAME] Message from client: {…}", in the
	// per-server logs and in the combined mcp.log alike.
	ForeignClaudeDesktop = "claude-desktop-log"
	// ForeignVSCode is the output channel VS Code keeps per MCP server
	// (MCP: List Servers › Show Output), copied to a file: "DATE TIME
	// [LEVEL] [editor -> server] {…}" and "… [server -> editor] {…}" (at
	// the debug level, 2026), or "[Client Says]" and "[Server Says]" (the
	// first releases, 2025). Times are local, as VS Code writes them.
	ForeignVSCode = "vscode-mcp-log"
	// ForeignMcpsnoop is an mcpsnoop session log: one JSON envelope per line,
	// {"session_id","server_label","seq","ts","direction":"c2s"|"s2c"|"stderr"|"meta","raw":{…},"text":"…"}.
	ForeignMcpsnoop = "mcpsnoop"
	// ForeignJSONL is plain JSON Lines, {"dir":"c2s"|"s2c","message":{…}},
	// with an optional "ts" (RFC 3339) per line. "direction" is read for
	// "dir", and "client->server", "server->client" (and their spellings
	// with _to_, -to- or camel case) for c2s and s2c.
	ForeignJSONL = "jsonl"
	// ForeignTranscript is a conversation written by hand or by a test:
	// "> " before each message of the client's, "< " before each of the
	// server's ("→ " and "← " too); blank lines and lines starting with #
	// are skipped.
	ForeignTranscript = "transcript"
)

// ErrUnknownFormat is returned (wrapped) by Open for a file that is neither a
// capture nor a foreign log it knows.
var ErrUnknownFormat = errors.New("neither a linesman capture nor a known conversation log (" + knownLogs + ")")

// knownLogs names the conversation logs linesman reads, for messages.
const knownLogs = `Claude Desktop MCP log, VS Code MCP output log, mcpsnoop session log, JSON Lines of {"dir":"c2s"|"s2c","message":{…}}, or a transcript of "> " and "< " lines`

// claudeLine matches a line of Claude Desktop's MCP log that carries a
// message. It and claudeTime are compiled on first use, not at init, which
// every linesman start would pay for.
var claudeLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4}-\d\d-\d\dT[0-9:.]+Z) \[(.*?)\] \[(.*?)\] Message from (client|server): (.*)$`)
})

// vscodeLine matches a line of VS Code's MCP output channel; a message
// line also matches vscodeMessage.
var vscodeLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[(trace|debug|info|warning|error)\] `)
})

var vscodeMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[\w+\] \[(editor -> server|server -> editor|Client Says|Server Says)\] (.*)$`)
})

// claudeBrackets matches the two bracketed words after the time of a
// Claude Desktop line: the server's name and the level, in either order.
var claudeBrackets = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\d{4}-\d\d-\d\dT[0-9:.]+Z \[(.*?)\] \[(.*?)\] `)
})

// claudeServer is the server's name of the two bracketed words of a Claude
// Desktop line: the one that is not a level.
func claudeServer(a, b []byte) string {
	if claudeLevel(a) {
		return string(b)
	}
	return string(a)
}

// claudeLevel reports whether a bracketed word of a Claude Desktop line is
// its level.
func claudeLevel(w []byte) bool {
	switch string(w) {
	case "info", "error", "warn", "warning", "debug":
		return true
	}
	return false
}

// claudeEarlyClose matches the line where Claude Desktop says the server's
// process went away on its own (the level and the name in either order).
var claudeEarlyClose = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\d{4}-\d\d-\d\dT[0-9:.]+Z \[.*?\] \[.*?\] (Server transport closed unexpectedly)`)
})

// claudeTime matches the time that starts the host's own lines.
var claudeTime = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{4}-\d\d-\d\dT[0-9:.]+Z) \[`) })

// claudeParseError matches a line of Claude Desktop's MCP log where the
// host could not parse a line of the server's stdout: its transport's
// JSON.parse threw, and the log holds V8's message (with a snippet of the
// line's start) at [error], then the error's metadata, on the same line
// (` {"context":"connection",...}`) or on the lines after (` {`).
// "Unexpected end of JSON input" is left out: an empty line and a JSON
// value cut short both give it, and the first is only a note.
var claudeParseError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\d{4}-\d\d-\d\dT[0-9:.]+Z (?:\[.*?\] \[error\]|\[error\] \[.*?\]) ((?:Unexpected|Expected|Bad|Unterminated) .*?(?:is not valid JSON|in JSON at position \d+|after JSON at position \d+)(?: \(line \d+ column \d+\))?)(?: \{.*)?$`)
})

// foreignLine is one line of a foreign log, interpreted.
type foreignLine struct {
	ts      time.Time // zero when the line carries none
	dir     wire.Dir  // 0: not a message (stderr)
	message []byte    // the message's bytes, as the file holds them
	text    []byte    // a non-message line
	// hostError is, for a line where the host says it could not parse a
	// line of the server's stdout, what it said (a finding, beside the
	// line itself kept as stderr).
	hostError string
	// server is the server a Claude Desktop line names ("" when none):
	// its mcp.log holds every server's lines, one conversation each.
	server string
	// closed is, for a host line that says the server's process went away
	// unasked, what it said: a process event, beside the line kept as
	// stderr.
	closed string
}

// sniff tells the format of a foreign log from its first non-empty line.
func sniff(line []byte) string {
	if vscodeLine().Match(line) { // anchored: before the looser Claude Desktop test
		return ForeignVSCode
	}
	if claudeLine().Match(line) {
		return ForeignClaudeDesktop
	}
	if b := claudeBrackets().FindSubmatch(line); b != nil && (claudeLevel(b[1]) || claudeLevel(b[2])) {
		return ForeignClaudeDesktop
	}
	if _, msg, ok := transcriptLine(line); ok && len(msg) > 0 {
		return ForeignTranscript
	}
	var probe struct {
		Direction *string         `json:"direction"`
		SessionID *string         `json:"session_id"`
		Dir       *string         `json:"dir"`
		Message   json.RawMessage `json:"message"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return ""
	}
	switch {
	case probe.Direction != nil && probe.SessionID != nil:
		return ForeignMcpsnoop
	case (probe.Dir != nil || probe.Direction != nil) && probe.Message != nil:
		return ForeignJSONL
	}
	return ""
}

// transcriptLine splits a line of a transcript: "> " and "→ " are the
// client's, "< " and "← " the server's. ok is false for any other line.
func transcriptLine(line []byte) (wire.Dir, []byte, bool) {
	for _, p := range [...]struct {
		mark string
		dir  wire.Dir
	}{{"> ", wire.ClientToServer}, {"< ", wire.ServerToClient}, {"→ ", wire.ClientToServer}, {"← ", wire.ServerToClient}} {
		if rest, ok := bytes.CutPrefix(line, []byte(p.mark)); ok {
			return p.dir, bytes.TrimLeft(rest, " \t"), true // empty: a blank line sent
		}
		if string(line) == strings.TrimSpace(p.mark) { // "> " whose space an editor trimmed
			return p.dir, nil, true
		}
	}
	return 0, nil, false
}

// dirSeparators are dropped from a JSON Lines direction before it is read
// ("client->server", "client_to_server", "client to server").
var dirSeparators = strings.NewReplacer("_", "", "-", "", " ", "", ">", "")

// jsonlDir reads the direction of a JSON Lines record.
func jsonlDir(s string) (wire.Dir, bool) {
	switch strings.ToLower(dirSeparators.Replace(s)) {
	case "c2s", "clienttoserver", "clientserver", "client2server":
		return wire.ClientToServer, true
	case "s2c", "servertoclient", "serverclient", "server2client":
		return wire.ServerToClient, true
	}
	return 0, false
}

// parseForeign interprets one line of a foreign log of the given format.
func parseForeign(format string, line []byte) (foreignLine, error) {
	switch format {
	case ForeignClaudeDesktop:
		return parseClaude(line), nil
	case ForeignVSCode:
		return parseVSCode(line), nil
	case ForeignTranscript:
		if line[0] == '#' {
			return foreignLine{}, nil
		}
		dir, msg, ok := transcriptLine(line)
		if !ok {
			return foreignLine{}, errors.New(`a transcript line starts with "> " (the client's) or "< " (the server's)`)
		}
		return foreignLine{dir: dir, message: msg}, nil
	case ForeignMcpsnoop:
		var env struct {
			TS        time.Time       `json:"ts"`
			Direction string          `json:"direction"`
			Raw       json.RawMessage `json:"raw"`
			Text      string          `json:"text"`
		}
		if err := json.Unmarshal(line, &env); err != nil {
			return foreignLine{}, err
		}
		out := foreignLine{ts: env.TS}
		switch env.Direction {
		case "c2s":
			out.dir = wire.ClientToServer
		case "s2c":
			out.dir = wire.ServerToClient
		case "meta":
			return foreignLine{}, nil
		default: // stderr
			out.text = []byte(env.Text)
			return out, nil
		}
		out.message = env.Raw
		if env.Raw == nil {
			out.message = []byte(env.Text) // a non-JSON line on the protocol channel
		}
		return out, nil
	default:
		var rec struct {
			Dir       string          `json:"dir"`
			Direction string          `json:"direction"`
			Message   json.RawMessage `json:"message"`
			TS        time.Time       `json:"ts"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return foreignLine{}, err
		}
		out := foreignLine{ts: rec.TS, message: rec.Message}
		d := cmp.Or(rec.Dir, rec.Direction)
		var ok bool
		if out.dir, ok = jsonlDir(d); !ok {
			return out, fmt.Errorf(`"dir" is %q; it must be "c2s" or "s2c" (or "client->server", "server->client")`, d)
		}
		if len(rec.Message) > 0 && rec.Message[0] == '"' {
			// A message given as a string holds the line as sent (not JSON, or not compact).
			var s string
			if json.Unmarshal(rec.Message, &s) == nil {
				out.message = []byte(s)
			}
		}
		return out, nil
	}
}

// firstJSONValue returns the bytes of the JSON value that b starts with (what
// follows it, such as Claude Desktop's " { metadata: undefined }", is not
// part of the message), or nil when b does not start with one.
func firstJSONValue(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return deepValue(b)
	}
	return b[:dec.InputOffset()]
}

// deepValue returns the bracketed value b starts with when it nests deeper
// than encoding/json decodes (10,000 levels), or nil: such a line is still
// the host's message, not the server's stderr, and the judge of frames
// says what is wrong with it.
func deepValue(b []byte) []byte {
	if len(b) == 0 || b[0] != '{' && b[0] != '[' {
		return nil
	}
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				if deepest < 9000 {
					return nil // shallow and still not JSON
				}
				return b[:i+1]
			}
		}
	}
	return nil
}

// openForeign reads a foreign log into a Capture.
func openForeign(path string, opts OpenOptions) (*Capture, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	defer f.Close()
	return readForeign(f, path, opts)
}

// readForeign reads a foreign log from src (path names it in errors) in
// two passes, each streaming: the first tells the format, the log's start
// (the first time a line carries) and, for a Claude Desktop log, the
// servers it holds; the second fills the log, a batch of lines at a time.
// What is held at once is the log's retention budget and a constant, never
// the file: a line longer than any message kept (maxForeignLine) is skipped
// as it streams by, and said (Capture.Skipped).
func readForeign(src io.ReadSeeker, path string, opts OpenOptions) (*Capture, error) {
	sv, err := surveyForeign(src, path)
	if err != nil {
		return nil, err
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("capture: reading %s again: %w", path, err)
	}
	fill := newForeignFill(sv, path, opts)
	err = scanForeign(src, path, sv.format, fill.add, fill.overlong)
	if err != nil {
		return nil, err
	}
	return fill.finish(), nil
}

// foreignSurvey is what the first pass over a foreign log tells.
type foreignSurvey struct {
	format string
	start  time.Time // the first time a line carries; zero when none does
	// servers are the servers a Claude Desktop log names, in order, the
	// first maxForeignServers of them; moreServers: it names others too.
	servers     []string
	moreServers bool
}

// maxForeignServers bounds the servers a foreign log's note names.
const maxForeignServers = 32

// errSurveyed stops the first pass once it knows all it needs.
var errSurveyed = errors.New("surveyed")

// surveyForeign is the first pass over a foreign log (see readForeign).
// A line the format does not allow ends it with the error, as it ends the
// second pass.
func surveyForeign(src io.Reader, path string) (foreignSurvey, error) {
	var sv foreignSurvey
	err := scanForeign(src, path, "", func(fl foreignLine, format string) error {
		sv.format = format
		if fl.server != "" && !slices.Contains(sv.servers, fl.server) {
			if len(sv.servers) < maxForeignServers {
				sv.servers = append(sv.servers, fl.server)
			} else {
				sv.moreServers = true
			}
		}
		if sv.start.IsZero() && (fl.server == "" || fl.server == sv.servers[0]) { // a line that is judged
			sv.start = fl.ts
		}
		if format != ForeignClaudeDesktop && !sv.start.IsZero() {
			return errSurveyed // only a Claude Desktop log names servers
		}
		return nil
	}, nil)
	if err != nil && !errors.Is(err, errSurveyed) {
		return sv, err
	}
	if sv.format == "" {
		return sv, fmt.Errorf("capture: %s: %w (it is empty)", path, ErrUnknownFormat)
	}
	return sv, nil
}

// maxForeignLine bounds a line of a foreign log that is read: a message
// of the session's largest kept size spelled as JSON escapes (6 bytes for
// one), with room for the rest of the line, as a capture's record.
const maxForeignLine = 6*wire.DefaultMaxFrame + 1<<20

// scanForeign reads a foreign log line by line and hands each line that is
// a message or a stderr line, interpreted, to each (format "" tells it from
// the first line). A line longer than maxForeignLine goes by unheld, told
// to overlong (when not nil) with its number and length.
func scanForeign(src io.Reader, path, format string, each func(foreignLine, string) error, overlong func(lineNo, n int)) error {
	br := bufio.NewReaderSize(src, 256<<10)
	var scratch []byte
	for lineNo := 1; ; lineNo++ {
		var n int
		var err error
		scratch, n, err = readForeignLine(br, scratch[:0])
		line := bytes.TrimRight(scratch, "\r\n")
		switch {
		case n > maxForeignLine:
			if overlong != nil {
				overlong(lineNo, n)
			}
		case len(bytes.TrimSpace(line)) == 0 || format == "" && line[0] == '#': // a transcript may open with comments
		default:
			if format == "" {
				if format = sniff(line); format == "" {
					return fmt.Errorf("capture: %s: %w", path, ErrUnknownFormat)
				}
			}
			fl, perr := parseForeign(format, bytes.Clone(line)) // its parts are kept: not the scratch
			if perr != nil {
				return fmt.Errorf("capture: %s:%d (%s): %w", path, lineNo, format, perr)
			}
			if fl.dir != 0 || fl.text != nil {
				if err := each(fl, format); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("capture: reading %s: %w", path, err)
		}
	}
}

// readForeignLine reads the next line into buf and returns it with the
// line's length: past maxForeignLine the rest of the line is read and
// counted, not kept.
func readForeignLine(br *bufio.Reader, buf []byte) ([]byte, int, error) {
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if n <= maxForeignLine {
			buf = append(buf, chunk...)
		} else {
			buf = buf[:0]
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return buf, n, err
	}
}

// foreignFill appends the lines of a foreign log to a fresh Capture, as
// Open appends a capture's records, a batch at a time.
type foreignFill struct {
	rd     *reader
	keep   string // of a log that holds several servers' lines, the one judged
	last   time.Duration
	start  time.Time
	exited bool // the host said the server went away: one process event
	queued int  // bytes of the lines queued
}

// foreignBatch bounds the events the fill queues before appending them,
// in number and in bytes (a capture's reader appends what a read of
// 256 KiB holds).
const (
	foreignBatch      = 4096
	foreignBatchBytes = 256 << 10
)

func newForeignFill(sv foreignSurvey, path string, opts OpenOptions) *foreignFill {
	start := sv.start
	if start.IsZero() {
		if st, err := os.Stat(path); err == nil {
			start = st.ModTime()
		} else {
			start = time.Unix(0, 0)
		}
	}
	h := Header{Format: sv.format, Command: []string{sv.format + ": " + path}, Start: start}
	fill := &foreignFill{start: start, rd: &reader{path: path, opts: opts, c: &Capture{
		Log:     eventlog.NewLogAt(start, opts.Retention),
		Tracker: eventlog.NewTracker(eventlog.TrackerOptions{NoProtocolRules: opts.NoProtocolRules, NoSchemaJudge: opts.NoSchemaJudge}),
		Header:  h,
	}}}
	if sv.format == ForeignClaudeDesktop && len(sv.servers) > 1 {
		// Judged together, two conversations would reuse each other's ids.
		fill.keep = sv.servers[0]
		count, names := fmt.Sprint(len(sv.servers)), strings.Join(sv.servers, ", ")
		if sv.moreServers {
			count, names = "more than "+count, names+", …"
		}
		fill.rd.queue = append(fill.rd.queue, eventlog.Event{Type: eventlog.EventNote, At: time.Millisecond,
			Note: fmt.Sprintf("this log holds the lines of %s servers (%s); only %s's are judged here: to judge another, save its lines alone (those with [NAME]) and open that file",
				count, names, fill.keep)})
		fill.last = time.Millisecond
	}
	return fill
}

// overlong says a line too long to read was skipped.
func (fill *foreignFill) overlong(lineNo, n int) {
	fill.rd.skip(lineNo, n, fmt.Sprintf("a line longer than %d bytes, more than any message kept", maxForeignLine))
}

// add queues the events a line of the log stands for.
func (fill *foreignFill) add(e foreignLine, _ string) error {
	if fill.keep != "" && e.server != "" && e.server != fill.keep {
		return nil
	}
	rd := fill.rd
	at := fill.last + time.Millisecond // no time in the file: a millisecond apart, in order
	if !e.ts.IsZero() {
		at = max(e.ts.Sub(fill.start), fill.last)
	}
	fill.last = at
	ev := eventlog.Event{At: max(at, 1)}
	if e.dir != 0 {
		l := wire.Line{Content: e.message, Term: wire.TermLF, Length: int64(len(e.message))}
		ev.Type, ev.Dir, ev.Frame = eventlog.EventFrame, e.dir, &wire.Frame{Lines: []wire.Line{l}}
	} else {
		l := wire.Line{Content: e.text, Term: wire.TermLF, Length: int64(len(e.text))}
		ev.Type, ev.Stderr = eventlog.EventStderr, &l
	}
	rd.c.Records++
	rd.queue = append(rd.queue, ev)
	if e.hostError != "" {
		rd.queue = append(rd.queue, hostParseFinding(e.hostError, ev.At))
	}
	if e.closed != "" && !fill.exited {
		fill.exited = true
		// The exit settles the conversation, as a live session's end
		// record does: what was in flight is lost.
		rd.queue = append(rd.queue, hostSawExit(e.closed, ev.At),
			eventlog.Event{Type: eventlog.EventEnd, End: &eventlog.EndEvent{Exited: true}, At: ev.At})
	}
	if fill.queued += len(e.message) + len(e.text); len(rd.queue) >= foreignBatch || fill.queued >= foreignBatchBytes {
		rd.flush()
		fill.queued = 0
	}
	return nil
}

// finish appends what is queued and settles the end.
func (fill *foreignFill) finish() *Capture {
	fill.rd.flush()
	fill.rd.finish()
	return fill.rd.c
}

// hostParseFinding is the finding a host's "could not parse" line stands
// for: the server wrote a line to stdout that is not JSON. The line itself
// is not in the log (the host logs messages only once parsed), only the
// start of it that V8's message quotes.
func hostParseFinding(said string, at time.Duration) eventlog.Event {
	f := eventlog.LoggedFinding{
		Finding: wire.NewFinding("non-json-line", "the host could not parse a line the server wrote to stdout; it logged: "+said+
			" (the line is not in the log, only the start of it quoted there)"),
		Dir: wire.ServerToClient,
	}
	return eventlog.Event{Type: eventlog.EventFinding, At: at, Finding: &f}
}

// hostSawExit is the process event a host's "transport closed
// unexpectedly" line stands for: the server's process ended unasked. The
// host logs no exit status, so none is given (ExitCode -1, no signal).
func hostSawExit(said string, at time.Duration) eventlog.Event {
	return eventlog.Event{Type: eventlog.EventProcess, At: at, Process: &eventlog.ProcessEvent{
		State: eventlog.StateExited, ExitCode: -1,
		Detail: "the host logged: " + said + " (the process ended before the host closed it; the host logs no exit status)",
	}}
}
