package mock

import (
	"bytes"
	"encoding/json"
	"time"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/wire"
)

// itemKind says what an [item] does when its time comes.
type itemKind uint8

const (
	itemStdout itemKind = iota + 1 // write raw to stdout (a frame, as recorded)
	itemStderr                     // write raw to stderr (a line, as recorded)
	itemExit                       // end the process as the recorded one ended
)

// item is one thing the recorded server did, at Delay after what it
// answered (a client message, the start, or the end of its stdin).
type item struct {
	Kind  itemKind
	Delay time.Duration
	Raw   []byte
	// Answer: the frame answers the cue's request (its id is rewritten to
	// the live request's).
	Answer bool
	// Progress: a notifications/progress frame whose token is the cue's
	// request's (rewritten to the live request's token).
	Progress bool
	Exit     exitPlan // for itemExit
}

// exitPlan is how the recorded process ended.
type exitPlan struct {
	Code   int
	Signal string // "" unless a signal ended it
}

// cue is one message the recorded client sent, and what the server did
// after it until the next one (its answer wherever that came).
type cue struct {
	Seq    uint64 // the recorded frame's Seq
	At     time.Duration
	Kind   wire.Kind
	Method string
	ID     wire.ID // a response's id (matched to the server's request)
	Req    request // a request's or notification's parsed parts
	Items  []item
	used   int
}

// Script is a recording arranged for playing back: what the server did
// unasked at the start, after each recorded client message, and after its
// stdin closed, and how it ended.
type Script struct {
	Prelude []item
	Cues    []*cue
	// AfterEOF is what the server did once its stdin was closed (its last
	// stderr lines, its exit when it exited on its own).
	AfterEOF []item
	// Hold: the recorded server did not exit when its stdin closed, and
	// was ended by a signal (HoldSignal) linesman or its host sent.
	Hold       bool
	HoldSignal string
	// Exited: the recording saw the process exit; false for another tool's
	// log, whose records stop without one (the mock then exits 0 at EOF).
	Exited bool
	// Restarted: the recording held a restart; the script stops before it.
	Restarted bool
}

// Build arranges an opened recording into a [Script]: every frame the
// server wrote is placed after the client message it followed (or, for an
// answer, with the request it answers), stderr likewise, the exit where it
// happened.
func Build(c *capture.Capture) *Script {
	b := builder{s: &Script{}, c: c}
	first, next := c.Log.Bounds()
	for seq := first; seq < next && !b.s.Restarted; seq++ {
		ev, ok := c.Log.Get(seq)
		if ok {
			b.event(&ev)
		}
	}
	return b.s
}

type builder struct {
	s       *Script
	c       *capture.Capture
	cur     *cue // the last client message, nil before the first
	eof     bool // the server's stdin was closed
	eofAt   time.Duration
	started time.Duration
	bySeq   map[uint64]*cue
}

func (b *builder) event(ev *eventlog.Event) {
	switch ev.Type {
	case eventlog.EventFrame:
		if ev.Dir == wire.ClientToServer {
			b.client(ev)
			return
		}
		b.server(ev)
	case eventlog.EventStderr:
		raw := append(append([]byte(nil), ev.Stderr.Content...), ev.Stderr.Term.Bytes()...)
		b.add(ev.At, item{Kind: itemStderr, Raw: raw})
	case eventlog.EventStdinClosed:
		b.stdinClosed(ev.At)
	case eventlog.EventProcess:
		b.process(ev)
	case eventlog.EventRestart:
		b.s.Restarted = true
	}
}

func (b *builder) stdinClosed(at time.Duration) {
	if !b.eof {
		b.eof, b.eofAt = true, at
	}
}

func (b *builder) process(ev *eventlog.Event) {
	p := ev.Process
	switch p.State {
	case eventlog.StateStarting:
		if b.started == 0 {
			b.started = ev.At
		}
	case eventlog.StateExiting:
		if p.Step == eventlog.StepStdinClose {
			b.stdinClosed(ev.At)
		}
	case eventlog.StateExited:
		b.s.Exited = true
		if p.Step == eventlog.StepSIGTERM || p.Step == eventlog.StepSIGKILL {
			// Linesman or the host ended it: it held on past its stdin.
			b.s.Hold, b.s.HoldSignal = true, p.Signal
			if b.s.HoldSignal == "" {
				b.s.HoldSignal = map[eventlog.ShutdownStep]string{eventlog.StepSIGTERM: "SIGTERM", eventlog.StepSIGKILL: "SIGKILL"}[p.Step]
			}
			return
		}
		if p.AfterEOF || p.Step == eventlog.StepStdinClose {
			b.stdinClosed(ev.At)
		}
		b.add(ev.At, item{Kind: itemExit, Exit: exitPlan{Code: p.ExitCode, Signal: p.Signal}})
	}
}

func (b *builder) client(ev *eventlog.Event) {
	m := ev.Frame.Msg
	c := &cue{Seq: ev.Seq, At: ev.At, Kind: m.Kind, Method: m.Method, ID: m.ID}
	switch m.Kind {
	case wire.KindRequest, wire.KindNotification:
		c.Req = parseRequest(frameText(ev.Frame))
	case wire.KindResult, wire.KindError:
	default:
		return // bytes no server would answer: nothing to cue
	}
	if b.bySeq == nil {
		b.bySeq = map[uint64]*cue{}
	}
	b.bySeq[ev.Seq] = c
	b.s.Cues = append(b.s.Cues, c)
	if !b.eof {
		b.cur = c
	}
}

func (b *builder) server(ev *eventlog.Event) {
	it := item{Kind: itemStdout, Raw: ev.Frame.Raw()}
	m := ev.Frame.Msg
	if m.Kind == wire.KindResult || m.Kind == wire.KindError {
		if p, ok := b.c.Tracker.PairOf(ev.Seq); ok && p.Request.Dir == wire.ClientToServer {
			if c := b.bySeq[p.Request.Seq]; c != nil {
				it.Answer, it.Delay = true, ev.At-c.At
				c.Items = append(c.Items, it)
				return
			}
		}
	}
	if m.Method == "notifications/progress" && m.ProgressToken().IsValid() && b.cur != nil && !b.eof {
		if req, ok := b.c.Tracker.ProgressFor(ev.Seq); ok {
			if c := b.bySeq[req]; c != nil {
				it.Progress, it.Delay = true, ev.At-c.At
				c.Items = append(c.Items, it)
				return
			}
		}
	}
	b.add(ev.At, it)
}

// add places it after what the server last heard: the start, the last
// client message, or the end of its stdin.
func (b *builder) add(at time.Duration, it item) {
	switch {
	case b.eof:
		it.Delay = at - b.eofAt
		b.s.AfterEOF = append(b.s.AfterEOF, it)
	case b.cur != nil:
		it.Delay = at - b.cur.At
		b.cur.Items = append(b.cur.Items, it)
	default:
		it.Delay = at - b.started
		b.s.Prelude = append(b.s.Prelude, it)
	}
	if it.Delay < 0 {
		it.Delay = 0
	}
}

// frameText is a frame's JSON text, its lines joined.
func frameText(f *wire.Frame) []byte {
	if len(f.Lines) == 1 {
		return f.Lines[0].Content
	}
	var buf bytes.Buffer
	for _, l := range f.Lines {
		buf.Write(l.Content)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// request is what matching reads of a client request or notification.
type request struct {
	Method string
	ID     json.RawMessage
	Params json.RawMessage
	// Exact and NoMeta are the params in canonical form (keys sorted,
	// compact), with and without "_meta"; Stable is the members that name
	// what is asked (a tool's name and arguments, a prompt's name, a
	// resource's uri), "" for a method that has none.
	Exact, NoMeta, Stable string
	ProgressToken         json.RawMessage
}

func parseRequest(text []byte) request {
	var env struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(text, &env) != nil {
		return request{}
	}
	r := request{Method: env.Method, ID: env.ID, Params: env.Params}
	var params map[string]json.RawMessage
	if json.Unmarshal(env.Params, &params) != nil {
		r.Exact = canonical(env.Params)
		r.NoMeta = r.Exact
		return r
	}
	r.Exact = canonical(env.Params)
	if meta, ok := params["_meta"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(meta, &m) == nil {
			r.ProgressToken = m["progressToken"]
		}
		delete(params, "_meta")
	}
	r.NoMeta = canonical(json.RawMessage(canonicalValue(params)))
	r.Stable = stableMembers(env.Method, params)
	return r
}

// stableMembers are the members of a request's params that say what is
// asked, whoever asks: ids, cursors' owners and _meta aside.
func stableMembers(method string, params map[string]json.RawMessage) string {
	var keys []string
	switch method {
	case "tools/call":
		keys = []string{"name", "arguments"}
	case "prompts/get":
		keys = []string{"name", "arguments"}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		keys = []string{"uri"}
	case "completion/complete":
		keys = []string{"ref", "argument"}
	default:
		return ""
	}
	var buf bytes.Buffer
	for _, k := range keys {
		buf.WriteString(k)
		buf.WriteByte('=')
		buf.WriteString(canonical(params[k]))
		buf.WriteByte(';')
	}
	return buf.String()
}

// canonical returns raw re-encoded with sorted keys and no spaces ("" for
// nothing, raw itself when it is not JSON).
func canonical(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return canonicalValue(v)
}

func canonicalValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
