package demo

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// Tool is one lesson of the demo server.
type Tool struct {
	Name  string
	Title string
	// Description is what the client shows: what the tool demonstrates and
	// what linesman will flag.
	Description string
	// Teaches is the finding code the tool is meant to produce ("" when the
	// lesson is that nothing is flagged). For print_debug and noisy_child it
	// is produced only with --isolate=false.
	Teaches string
	// Summary is the one-line gist for tables (--help, docs/demo.md).
	Summary string

	schema map[string]any
	run    func(s *server, req *request, args json.RawMessage) (map[string]any, error)
}

// debugLine is what print_debug prints unless told otherwise.
const debugLine = "DEBUG: print_debug was called (a stray print on stdout)"

// errNoReply means the tool answered already, or must not answer at all
// (cancelled): call sends nothing more.
var errNoReply = errors.New("demo: no reply")

// Tools returns the demo server's tools, in the order tools/list gives them.
func Tools() []Tool { return slices.Clone(toolTable) }

// toolTable is the demo server's tools: one entry per tool.
var toolTable = []Tool{
	{
		Name: "echo", Title: "Echo (well-behaved)",
		Summary:     "well-behaved; the reference",
		Description: "Well-behaved reference: replies with the text you send, as one compact line. linesman flags nothing here; compare the other tools with it.",
		schema:      object(prop("text", "string", "the text to send back", "hello", nil, nil)),
		run:         (*server).toolEcho,
	},
	{
		Name: "print_debug", Title: "Stray print on stdout", Teaches: "non-json-line",
		Summary:     "a debug line on stdout before its reply (the print() trap)",
		Description: "The classic print() trap: writes a debug line to the process's stdout, then replies. With isolation on (the default) fd 1 points at stderr, so the line shows up in stderr and the wire stays clean. Started as 'demo-server --isolate=false' the line lands on the wire between two frames and linesman flags it as non-json-line. Fix in your server: log to stderr (print(..., file=sys.stderr), console.error).",
		schema:      object(prop("text", "string", "what to print to stdout", debugLine, nil, nil)),
		run:         (*server).toolPrintDebug,
	},
	{
		Name: "pretty_reply", Title: "Pretty-printed reply", Teaches: "multi-line-frame",
		Summary:     "replies with indented JSON over many lines",
		Description: "Replies with indented JSON spread over many lines, as json.dumps(x, indent=2) or JSON.stringify(x, null, 2) would write it. A stdio frame must be exactly one line: linesman reassembles the lines into one frame and flags multi-line-frame. Most clients just fail to parse it.",
		schema:      object(),
		run:         (*server).toolPrettyReply,
	},
	{
		Name: "noisy_child", Title: "Child process writing to stdout", Teaches: "non-json-line",
		Summary:     "a child process writes to the stdout it inherited",
		Description: "Runs a child process (sh -c 'echo ...') that writes a line to the stdout it inherited, the way a spawned git or npm does. With isolation on (the default) the child inherits fd 1 pointing at stderr — and never the wire, which is close-on-exec — so its line shows up in stderr. Started as 'demo-server --isolate=false' the child writes straight onto the wire and linesman flags non-json-line.",
		schema:      object(),
		run:         (*server).toolNoisyChild,
	},
	{
		Name: "slow_count", Title: "Slow task with progress",
		Summary:     "counts N seconds with progress; cancellable",
		Description: "Counts for the given number of seconds, sending notifications/progress every second when the request carries a progressToken in _meta. Cancellable: after notifications/cancelled for its id it stops and sends nothing more for that id (no progress, no reply). Watch it in the requests pane, then cancel it.",
		schema:      object(prop("seconds", "integer", "how long to count, in seconds", 5, 1, 3600)),
		run:         (*server).toolSlowCount,
	},
	{
		Name: "crash", Title: "Crash mid-request", Teaches: "exited-during-request",
		Summary:     "traceback on stderr, exit status 3 mid-request",
		Description: "Writes a traceback to stderr and exits with status 3 while this request is in flight, so it is never answered. linesman flags exited-during-request and shows the exit status and the last stderr lines; restart the server to go on.",
		schema:      object(),
		run:         (*server).toolCrash,
	},
	{
		Name: "stderr_flood", Title: "stderr flood",
		Summary:     "M MiB of log lines on stderr, fast",
		Description: "Writes the given number of MiB of log lines to stderr as fast as it can, then replies. stderr is free-form logging, but a client that stops draining it fills the pipe and the server blocks forever. linesman keeps draining, so the reply arrives and nothing is flagged.",
		schema:      object(prop("mib", "number", "how many MiB of log lines to write", 4, nil, 256)),
		run:         (*server).toolStderrFlood,
	},
	{
		Name: "big_reply", Title: "Big reply on one line", Teaches: "oversize-frame",
		Summary:     "a reply of N MiB on one line",
		Description: "Replies with one line of the given number of MiB. That is valid — MCP frames have no size limit, and clients whose line reader stops at 64 KiB break on it — but beyond linesman's --max-frame (16 MiB by default) the frame is kept truncated and flagged oversize-frame.",
		schema:      object(prop("mib", "number", "size of the reply in MiB", 4, nil, 64)),
		run:         (*server).toolBigReply,
	},
	{
		Name: "reuse_id", Title: "Reused request id", Teaches: "reused-id",
		Summary:     "two server requests with the same id (legacy era)",
		Description: "Sends the client two requests of its own (ping), one after the other, with the same id, then replies. A request id must never be reused within a session: linesman flags reused-id. A legacy-era lesson: in the 2026-07-28 era a server must not send requests on stdio at all, so there linesman also flags server-request-in-modern-era.",
		schema:      object(),
		run:         (*server).toolReuseID,
	},
	{
		Name: "unflushed", Title: "Block-buffered stdout", Teaches: "unflushed-output",
		Summary:     "block-buffered stdout: replies wait for a full buffer or exit",
		Description: "Switches the server's stdout to block buffering, as C stdio and Python do when stdout is a pipe: this reply and every later one wait in an 8 KiB buffer until it fills or the server exits, so the client sees nothing. linesman flags unflushed-output when they finally arrive. Fix: flush after every message (python -u, sys.stdout.flush(), setvbuf).",
		schema:      object(prop("bytes", "integer", "size of the block buffer in bytes", DefaultBufferSize, 512, 1<<20)),
		run:         (*server).toolUnflushed,
	},
	{
		Name: "ignore_eof", Title: "Ignore stdin EOF", Teaches: "ignored-stdin-eof",
		Summary:     "keeps running after stdin closes; shutdown needs SIGTERM",
		Description: "From now on the server keeps running after its stdin closes. Closing stdin is the polite first step of a stdio shutdown; a server that ignores it makes the client wait and then send SIGTERM. linesman flags ignored-stdin-eof.",
		schema:      object(),
		run:         (*server).toolIgnoreEOF,
	},
}

func object(props ...map[string]any) map[string]any {
	p := map[string]any{}
	for _, x := range props {
		for k, v := range x {
			p[k] = v
		}
	}
	return map[string]any{"type": "object", "properties": p}
}

// prop is one property of an input schema; def, min and max are left out
// when nil. The default lets a client (linesman's composer) fill in a value
// that works.
func prop(name, typ, desc string, def, min, max any) map[string]any {
	p := map[string]any{"type": typ, "description": desc, "default": def}
	if min != nil {
		p["minimum"] = min
	}
	if max != nil {
		p["maximum"] = max
	}
	return map[string]any{name: p}
}

func (s *server) toolList() []map[string]any {
	var out []map[string]any
	for _, t := range Tools() {
		out = append(out, map[string]any{"name": t.Name, "title": t.Title, "description": t.Description, "inputSchema": t.schema})
	}
	return out
}

// toolText is a tool result with one text item.
func toolText(format string, args ...any) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf(format, args...)}}}
}

// call serves tools/call.
func (s *server) call(req *request) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(req.params, &p); err != nil || p.Name == "" {
		s.sendError(req, req.id, codeInvalidParams, "tools/call needs params.name", nil)
		return
	}
	for _, t := range Tools() {
		if t.Name != p.Name {
			continue
		}
		s.logf("  tool %s (id %s)", t.Name, idKey(req.id))
		res, err := t.run(s, req, p.Arguments)
		switch {
		case errors.Is(err, errNoReply):
		case err != nil:
			r := toolText("%v", err)
			r["isError"] = true
			s.sendResult(req, r)
		default:
			s.sendResult(req, res)
		}
		return
	}
	s.sendError(req, req.id, codeInvalidParams, "unknown tool: "+p.Name, nil)
}

// args decodes a tool's arguments into v (absent or null arguments leave
// the defaults).
func args(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("bad arguments: %v", err)
	}
	return nil
}

func (s *server) toolEcho(req *request, raw json.RawMessage) (map[string]any, error) {
	a := struct {
		Text string `json:"text"`
	}{Text: "hello"}
	if err := args(raw, &a); err != nil {
		return nil, err
	}
	return toolText("%s", a.Text), nil
}

func (s *server) toolPrintDebug(req *request, raw json.RawMessage) (map[string]any, error) {
	a := struct {
		Text string `json:"text"`
	}{Text: debugLine}
	if err := args(raw, &a); err != nil {
		return nil, err
	}
	// What a careless handler does: print to "stdout". Held under the wire
	// mutex only so the stray line lands between frames, not inside one.
	s.withWire(func() { fmt.Fprintln(s.opts.Stdout, a.Text) })
	if s.opts.Isolated {
		return toolText("I printed %q to stdout. Isolation is on, so fd 1 points at stderr: look for the line in stderr; the wire stayed clean. Run 'linesman demo-server --isolate=false' to see it corrupt the wire.", a.Text), nil
	}
	return toolText("I printed %q to stdout. Isolation is off, so it went onto the wire just before this reply: linesman flags non-json-line.", a.Text), nil
}

func (s *server) toolPrettyReply(req *request, raw json.RawMessage) (map[string]any, error) {
	res := toolText("This reply was pretty-printed: the JSON is indented over many lines, but a stdio frame must be exactly one line.")
	res["structuredContent"] = map[string]any{"lesson": "one message per line", "indent": 2, "lines": "many"}
	b, err := json.MarshalIndent(response(req, res), "", "  ")
	if err != nil {
		return nil, err
	}
	s.writeFrame(req.ctx, append(b, '\n'))
	return nil, errNoReply
}

func (s *server) toolNoisyChild(req *request, raw json.RawMessage) (map[string]any, error) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return nil, fmt.Errorf("noisy_child needs sh to run a child process: %v", err)
	}
	cmd := exec.CommandContext(req.ctx, sh, "-c", `echo "noisy_child: hello from child process $$, writing to the stdout I inherited"`)
	// An *os.File is handed to the child as its descriptor itself: the
	// child writes to our fd 1, whatever that points at.
	cmd.Stdout = s.opts.ChildStdout
	cmd.Stderr = s.opts.ChildStderr
	var runErr error
	s.withWire(func() { runErr = cmd.Run() })
	if runErr != nil {
		return nil, fmt.Errorf("the child failed: %v", runErr)
	}
	if s.opts.Isolated {
		return toolText("A child process wrote a line to the stdout it inherited. Isolation is on: it inherited fd 1 pointing at stderr, and not the wire (close-on-exec). Look for its line in stderr."), nil
	}
	return toolText("A child process wrote a line to the stdout it inherited. Isolation is off: that is the wire, so linesman flags non-json-line."), nil
}

func (s *server) toolSlowCount(req *request, raw json.RawMessage) (map[string]any, error) {
	a := struct {
		Seconds int `json:"seconds"`
	}{Seconds: 5}
	if err := args(raw, &a); err != nil {
		return nil, err
	}
	if a.Seconds < 1 || a.Seconds > 3600 {
		return nil, fmt.Errorf("seconds must be 1 to 3600, not %d", a.Seconds)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	id := idKey(req.id)
	for i := 1; i <= a.Seconds; i++ {
		select {
		case <-req.ctx.Done():
			s.logf("slow_count (id %s) cancelled at %d of %d: stopped, sending nothing more for it", id, i-1, a.Seconds)
			return nil, errNoReply
		case <-tick.C:
		}
		s.logf("slow_count (id %s): %d of %d", id, i, a.Seconds)
		if len(req.progressToken) > 0 {
			s.notify(req.ctx, "notifications/progress", map[string]any{
				"progressToken": req.progressToken, "progress": i, "total": a.Seconds,
				"message": fmt.Sprintf("counted %d of %d", i, a.Seconds),
			})
		}
	}
	if req.ctx.Err() != nil {
		return nil, errNoReply
	}
	return toolText("counted to %d", a.Seconds), nil
}

func (s *server) toolCrash(req *request, raw json.RawMessage) (map[string]any, error) {
	s.logm.Lock()
	fmt.Fprintf(s.errw, "panic: crash tool called: the demo server falls over on purpose while serving request %s\n\n%s", idKey(req.id), debug.Stack())
	fmt.Fprintf(s.errw, "exit status 3\n")
	s.logm.Unlock()
	// A crash loses what a buffered stdout held: nothing is flushed.
	s.opts.Exit(3)
	return nil, errNoReply // reached only when Exit does not exit (tests)
}

const mib = 1 << 20

func (s *server) toolStderrFlood(req *request, raw json.RawMessage) (map[string]any, error) {
	a := struct {
		MiB float64 `json:"mib"`
	}{MiB: 4}
	if err := args(raw, &a); err != nil {
		return nil, err
	}
	if !(a.MiB > 0 && a.MiB <= 256) {
		return nil, fmt.Errorf("mib must be more than 0 and at most 256, not %v", a.MiB)
	}
	want := int64(math.Ceil(a.MiB * mib))
	start := time.Now()
	s.logm.Lock()
	w := bufio.NewWriterSize(s.errw, 64<<10)
	var n int64
	lines := 0
	for n < want && req.ctx.Err() == nil {
		lines++
		k, _ := fmt.Fprintf(w, "linesman-demo: stderr_flood line %8d: the quick brown fox jumps over the lazy dog, again and again\n", lines)
		n += int64(k)
	}
	w.Flush()
	s.logm.Unlock()
	if req.ctx.Err() != nil {
		return nil, errNoReply
	}
	return toolText("wrote %d bytes in %d lines to stderr in %s", n, lines, time.Since(start).Round(time.Millisecond)), nil
}

func (s *server) toolBigReply(req *request, raw json.RawMessage) (map[string]any, error) {
	a := struct {
		MiB float64 `json:"mib"`
	}{MiB: 4}
	if err := args(raw, &a); err != nil {
		return nil, err
	}
	if !(a.MiB > 0 && a.MiB <= 64) {
		return nil, fmt.Errorf("mib must be more than 0 and at most 64, not %v", a.MiB)
	}
	size := int(math.Ceil(a.MiB * mib))
	const unit = "big_reply: one line, no newline inside. "
	text := strings.Repeat(unit, size/len(unit)+1)[:size]
	return toolText("%s", text), nil
}

// reuseID is the id reuse_id sends twice.
var reuseID = json.RawMessage(`"demo-reuse"`)

func (s *server) toolReuseID(req *request, raw json.RawMessage) (map[string]any, error) {
	// One after the other, each answered (or timed out) before the next, so
	// the finding is reused-id, not a race with reused-id-in-flight.
	answers := 0
	for range 2 {
		if s.ask(req.ctx, reuseID, "ping", 10*time.Second) {
			answers++
		}
		if req.ctx.Err() != nil {
			return nil, errNoReply
		}
	}
	return toolText("I sent you two ping requests with the same id %s (%d answered). A request id must never be reused in a session.", reuseID, answers), nil
}

func (s *server) toolUnflushed(req *request, raw json.RawMessage) (map[string]any, error) {
	a := struct {
		Bytes int `json:"bytes"`
	}{Bytes: DefaultBufferSize}
	if err := args(raw, &a); err != nil {
		return nil, err
	}
	if a.Bytes < 512 || a.Bytes > 1<<20 {
		return nil, fmt.Errorf("bytes must be 512 to 1048576, not %d", a.Bytes)
	}
	already := false
	s.withWire(func() {
		if s.buf != nil {
			already = true
			return
		}
		s.buf = bufio.NewWriterSize(s.out, a.Bytes)
	})
	if already {
		return toolText("stdout was block-buffered already."), nil
	}
	s.logf("stdout is now block-buffered (%d bytes): replies wait until the buffer fills or I exit", a.Bytes)
	return toolText("stdout is now block-buffered (%d bytes). You are reading this only because the buffer filled or I exited.", a.Bytes), nil
}

func (s *server) toolIgnoreEOF(req *request, raw json.RawMessage) (map[string]any, error) {
	s.mu.Lock()
	s.ignoreEOF = true
	s.mu.Unlock()
	s.logf("from now on I ignore EOF on stdin: shutting me down takes SIGTERM")
	return toolText("From now on I keep running after my stdin closes: the shutdown ladder will have to send SIGTERM."), nil
}
