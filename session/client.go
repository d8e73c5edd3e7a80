package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"linesman/session/eventlog"
	"linesman/wire"
)

// The client half of a Session: minting ids, building requests (with the
// modern era's _meta), waiting for answers, cancelling, and answering the
// server's requests the way a host would. The transport (session.go) calls
// onFrame for every frame it logs; everything else here is called by the
// modes.

// ErrNotInFlight is returned by Cancel, Respond and RespondError when the
// request they name is not waiting for an answer.
var ErrNotInFlight = errors.New("session: no such request in flight")

// ErrCannotCancelInitialize is returned by Cancel for the initialize request,
// which the legacy protocol forbids cancelling.
var ErrCannotCancelInitialize = errors.New("session: initialize cannot be cancelled (the MCP lifecycle forbids it); shut the server down instead")

// ErrNoAnswer is wrapped by Call when the server exited, or was restarted,
// before it answered. Its text is read by users in reports and the UI, so
// it has no package prefix.
var ErrNoAnswer = errors.New("the server exited without answering")

// Defaults of the client's Config fields.
const (
	// DefaultProbeTimeout bounds the era probe's wait for an answer to
	// server/discover. The probe ends as soon as the server answers or
	// exits; the bound only matters for a server that never answers an
	// unknown request, and must not be met by one still starting: a
	// Python server under load took 6 s, npx on a cold cache longer.
	DefaultProbeTimeout = 30 * time.Second
	// ProbeSilence is how long the probe waits for an answer once the
	// server has read it (its stdin pipe drained): a server that reads a
	// request and stays silent is a legacy server that ignores unknown
	// methods (JSON-RPC asks for -32601; some send nothing), and a server
	// still starting has not read it yet, so a loaded machine's slow start
	// is never counted. Bounded by the probe's timeout.
	ProbeSilence      = 10 * time.Second
	DefaultClientName = "linesman"
)

// clientState is the Session's client half. Its own mutex guards it; it is
// never held while sending or logging.
//
// What the handshake established (era, version, the server's identity and
// capabilities) is not kept here: it is a fact of the projection
// ([Tracker.Handshake]), which the accessors below read.
type clientState struct {
	mu      sync.Mutex
	waiters map[wire.ID]chan *wire.Frame
	sent    map[wire.ID]sentRequest // requests linesman built, for Retry
}

// sentRequest remembers a request linesman built, so a modern input_required
// answer can be retried with the same method and params under a new id.
type sentRequest struct {
	method string
	params json.RawMessage
}

func (s *Session) clientConfig() (name, version string) {
	name = s.cfg.ClientName
	if name == "" {
		name = DefaultClientName
	}
	return name, eventlog.Version
}

// clientInfo is the Implementation object linesman presents.
func (s *Session) clientInfo() map[string]string {
	name, version := s.clientConfig()
	return map[string]string{"name": name, "version": version}
}

// rootsDeclared reports whether linesman declares the roots capability: in
// the inspector unless turned off, never in a headless run. A headless run
// closes the server's stdin as soon as its own requests are answered, and a
// server may ask roots/list whenever it likes after initialized
// (server-everything asks 350 ms later, on a timer): declared, that request
// would arrive after stdin closed, stay unanswered and keep the server alive
// past its EOF — an ignored-stdin-eof of linesman's own making, and a wait
// of --stdin-wait on every run. A quiet period before closing stdin would
// only move the race (how long is long enough on a loaded machine?) and
// cost every run its length; not declaring what the run cannot honour for
// the server's lifetime is exact (the spec: a client that supports roots
// MUST declare it; one that does not, does not).
func (s *Session) rootsDeclared() bool { return !s.cfg.NoRoots && !s.cfg.Headless }

// clientCapabilities are the capabilities linesman declares: roots, sampling
// and elicitation only in the inspector, where the session lasts as long as
// the person wants and a person can answer them.
func (s *Session) clientCapabilities() map[string]any {
	caps := map[string]any{}
	if s.rootsDeclared() {
		caps["roots"] = map[string]any{}
	}
	if !s.cfg.Headless {
		caps["sampling"] = map[string]any{}
		caps["elicitation"] = map[string]any{}
	}
	return caps
}

// roots lists the configured roots (default: the server's working directory).
func (s *Session) roots() []map[string]string {
	dirs := s.cfg.Roots
	if len(dirs) == 0 {
		dir := s.cfg.Dir
		if dir == "" {
			dir, _ = os.Getwd()
		}
		dirs = []string{dir}
	}
	out := make([]map[string]string, 0, len(dirs))
	for _, d := range dirs {
		if !strings.Contains(d, "://") {
			if abs, err := filepath.Abs(d); err == nil {
				d = abs
			}
			d = (&url.URL{Scheme: "file", Path: d}).String()
		}
		out = append(out, map[string]string{"uri": d, "name": filepath.Base(strings.TrimPrefix(d, "file://"))})
	}
	return out
}

// Era returns the protocol era the handshake decided (EraUnknown before it,
// or when no handshake was made and the frames did not tell), as the
// projection holds it ([Tracker.Handshake]).
func (s *Session) Era() eventlog.Era { return s.tracker.Era() }

// ProtocolVersion returns the protocol version in use, or "" before the handshake.
func (s *Session) ProtocolVersion() string { return s.tracker.Handshake().ProtocolVersion }

// ServerInfo returns the server's serverInfo object, or nil.
func (s *Session) ServerInfo() json.RawMessage { return s.tracker.Handshake().ServerInfo }

// ServerCapabilities returns the server's capabilities object, or nil.
func (s *Session) ServerCapabilities() json.RawMessage {
	return s.tracker.Handshake().ServerCapabilities
}

// decide logs an era decision: a typed event the fold applies as it is
// logged, with why in words (shown as a note; "" for none).
func (s *Session) decide(e eventlog.Era, version, why string) {
	s.logFact(eventlog.Event{Type: eventlog.EventEra, Era: &eventlog.EraDecision{Era: e, Version: version}, Note: why})
}

// NextID returns the id Request would mint next: never one used before in
// this session by the client, including ids typed by hand.
func (s *Session) NextID() wire.ID { return s.tracker.NextID() }

// Request mints a fresh id, builds the request (adding the required _meta in
// the modern era), sends it and returns its id without waiting.
func (s *Session) Request(method string, params any) (wire.ID, error) {
	id, _, _, err := s.request(method, params, false)
	return id, err
}

// Call sends a request like Request and waits for its answer (a result or
// an error frame; a JSON-RPC error is not a Go error). When ctx ends first,
// the request is cancelled (notifications/cancelled) unless it is
// initialize, and ctx's error returned. When the server exits first, the
// error wraps ErrNoAnswer.
func (s *Session) Call(ctx context.Context, method string, params any) (*wire.Frame, error) {
	return s.call(ctx, method, params, true)
}

// call is Call; with cancel false, a ctx that ends first leaves the request
// in flight for the caller to settle (the era probe logs its decision
// before it cancels, so that the fold knows the request was abandoned).
func (s *Session) call(ctx context.Context, method string, params any, cancel bool) (*wire.Frame, error) {
	done, lost := s.Done(), s.current().stdoutLost
	start := time.Now()
	id, wait, sent, err := s.request(method, params, true)
	if err != nil {
		return nil, err
	}
	defer s.dropWaiter(id)
	broken := sent.w.broken
	for {
		select {
		case f := <-wait:
			if f.Msg.Kind == wire.KindNonJSON {
				return nil, fmt.Errorf("the answer to id %s came but cannot be read: it is nested deeper than %d levels", id, wire.MaxDepth)
			}
			return f, nil
		case <-ctx.Done():
			if cancel && method != "initialize" {
				_ = s.Cancel(id)
			}
			return nil, &waitError{id: id, waited: time.Since(start), timeout: s.requestTimeout(), err: ctx.Err()}
		case <-done:
			// The answer may have been logged just before the end.
			select {
			case f := <-wait:
				return f, nil
			default:
			}
			return nil, fmt.Errorf("%w (id %s)", ErrNoAnswer, id)
		case <-lost:
			select {
			case f := <-wait:
				return f, nil
			default:
			}
			return nil, fmt.Errorf("%w (id %s): the server closed its stdout (pid still running)", ErrNoAnswer, id)
		case <-broken:
			// Writing to stdin failed. A request that went out before
			// may still be answered; one that never went out will not.
			if sent.w.delivered(sent.end) {
				broken = nil
				continue
			}
			return nil, fmt.Errorf("%s (id %s) was never delivered: %w (%v)", method, id, ErrStdinClosed, plainCause(sent.w.failure()))
		}
	}
}

// sentAt says where a request's bytes end in its writer's stream, so that a
// failed write can tell whether the request went out.
type sentAt struct {
	w   *writer
	end int64
}

// waitError is Call's error when its context ended before the answer came.
// Callers name the method; the message says what happened in the user's
// words ("no answer to id 2 within 3s"), and errors.Is still sees the
// context's error.
type waitError struct {
	id      wire.ID
	waited  time.Duration
	timeout time.Duration // the per-request timeout, as given (--timeout)
	err     error
}

func (e *waitError) Error() string {
	if errors.Is(e.err, context.DeadlineExceeded) {
		// A caller's deadline may include a margin past the timeout (check's
		// calls wait a second more, so that the tracker's request-timeout is
		// logged first): the user gave the timeout, so it is the one said.
		within := e.waited.Round(10 * time.Millisecond)
		if e.timeout > 0 && e.waited >= e.timeout {
			within = e.timeout
		}
		return fmt.Sprintf("no answer to id %s within %s", e.id, within)
	}
	return fmt.Sprintf("stopped waiting for the answer to id %s (%v)", e.id, e.err)
}

func (e *waitError) Unwrap() error { return e.err }

func (s *Session) dropWaiter(id wire.ID) {
	s.client.mu.Lock()
	delete(s.client.waiters, id)
	s.client.mu.Unlock()
}

// request builds and sends one request; with wait it registers, before
// sending, the channel the answer will be delivered to.
func (s *Session) request(method string, params any, wait bool) (wire.ID, chan *wire.Frame, sentAt, error) {
	raw, err := s.buildParams(method, params)
	if err != nil {
		return wire.ID{}, nil, sentAt{}, err
	}
	id := s.tracker.MintID()
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      any             `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{"2.0", idValue(id), method, raw}
	line, err := wire.Marshal(msg)
	if err != nil {
		return wire.ID{}, nil, sentAt{}, fmt.Errorf("encoding %s: %w", method, err)
	}
	var ch chan *wire.Frame
	s.client.mu.Lock()
	if s.client.waiters == nil {
		s.client.waiters = map[wire.ID]chan *wire.Frame{}
		s.client.sent = map[wire.ID]sentRequest{}
	}
	if wait {
		ch = make(chan *wire.Frame, 1)
		s.client.waiters[id] = ch
	}
	s.client.sent[id] = sentRequest{method: method, params: raw}
	s.client.mu.Unlock()
	p := s.current()
	end, err := p.send(line, true) // built here, given up
	if err != nil {
		s.dropWaiter(id)
		return wire.ID{}, nil, sentAt{}, err
	}
	return id, ch, sentAt{w: p.w, end: end}, nil
}

// idValue turns an id back into what encoding/json writes as that id.
func idValue(id wire.ID) any {
	switch id.Kind {
	case wire.IDInt:
		return id.Num
	case wire.IDString:
		return id.Str
	case wire.IDOther:
		return json.RawMessage(id.Str)
	default:
		return nil
	}
}

// Cancel cancels one of the client's requests in flight: it sends
// notifications/cancelled with its requestId; the tracker marks it cancelled
// and flags a later answer late-response. initialize cannot be cancelled.
func (s *Session) Cancel(id wire.ID) error {
	r, ok := s.tracker.Lookup(wire.ClientToServer, id)
	if !ok || r.State != eventlog.ReqInFlight {
		return fmt.Errorf("cancel %s: %w", id, ErrNotInFlight)
	}
	if r.Method == "initialize" {
		return ErrCannotCancelInitialize
	}
	line, err := wire.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"method":  "notifications/cancelled",
		"params":  map[string]any{"requestId": idValue(id), "reason": "cancelled in linesman"},
	})
	if err != nil {
		return err
	}
	return s.Send(line)
}

// PendingServerRequests returns the server's requests still waiting for an
// answer, oldest first: sampling and elicitation put before the user (ping
// and roots/list are answered at once and show here only for an instant).
func (s *Session) PendingServerRequests() []eventlog.Request {
	var out []eventlog.Request
	for _, r := range s.tracker.InFlight() {
		if r.Dir == wire.ServerToClient {
			out = append(out, r)
		}
	}
	return out
}

// Respond answers a server request in flight with a result.
func (s *Session) Respond(id wire.ID, result any) error {
	if err := s.serverRequestInFlight(id); err != nil {
		return err
	}
	return s.respond(id, result)
}

// RespondError answers a server request in flight with a JSON-RPC error.
func (s *Session) RespondError(id wire.ID, code int, message string) error {
	if err := s.serverRequestInFlight(id); err != nil {
		return err
	}
	return s.respondError(id, code, message)
}

func (s *Session) serverRequestInFlight(id wire.ID) error {
	if r, ok := s.tracker.Lookup(wire.ServerToClient, id); !ok || r.State != eventlog.ReqInFlight {
		return fmt.Errorf("answer %s: %w", id, ErrNotInFlight)
	}
	return nil
}

func (s *Session) respond(id wire.ID, result any) error {
	if result == nil {
		result = struct{}{}
	}
	line, err := wire.Marshal(map[string]any{"jsonrpc": "2.0", "id": idValue(id), "result": result})
	if err != nil {
		return err
	}
	return s.Send(line)
}

func (s *Session) respondError(id wire.ID, code int, message string) error {
	line, err := wire.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": idValue(id),
		"error": map[string]any{"code": code, "message": message},
	})
	if err != nil {
		return err
	}
	return s.Send(line)
}

// Retry sends again a request linesman built that got an input_required
// answer, with the same method and params plus inputResponses and
// requestState, under a new id (the 2026-07-28 rule).
func (s *Session) Retry(id wire.ID, inputResponses any, requestState string) (wire.ID, error) {
	s.client.mu.Lock()
	prev, ok := s.client.sent[id]
	s.client.mu.Unlock()
	if !ok {
		return wire.ID{}, fmt.Errorf("retry %s: linesman did not build that request", id)
	}
	obj := map[string]json.RawMessage{}
	if len(prev.params) > 0 {
		if err := json.Unmarshal(prev.params, &obj); err != nil {
			return wire.ID{}, fmt.Errorf("retry %s: %w", id, err)
		}
	}
	delete(obj, "_meta") // rebuilt for the new request
	if inputResponses != nil {
		b, err := json.Marshal(inputResponses)
		if err != nil {
			return wire.ID{}, err
		}
		obj["inputResponses"] = b
	}
	if requestState != "" {
		b, _ := json.Marshal(requestState)
		obj["requestState"] = b
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return wire.ID{}, err
	}
	return s.Request(prev.method, json.RawMessage(b))
}

// onFrame sees every frame the session logged, after the tracker did. For
// the server's frames it delivers answers to Call, records what the
// handshake learns, notes input_required results, and answers the server's
// requests like a host. It runs on the goroutine that logged the frame and
// must not block; it may Send (Send never blocks).
func (s *Session) onFrame(dir wire.Dir, f *wire.Frame, seq uint64) {
	if dir != wire.ServerToClient || f == nil {
		return
	}
	if s.cfg.Observe && f.Msg.Kind == wire.KindRequest {
		// The host answers the server's requests, not linesman.
		return
	}
	switch f.Msg.Kind {
	case wire.KindResult, wire.KindError:
		s.onAnswer(f, seq)
	case wire.KindRequest:
		s.onServerRequest(f, seq)
	case wire.KindNonJSON:
		if f.Msg.DeepID().Kind != wire.IDAbsent {
			s.onUnreadableAnswer(f)
		}
	}
}

// onUnreadableAnswer hands a frame too deeply nested to read, whose
// top-level id names a request a Call waits on, to that Call: the answer
// came and cannot be read, which Call says at once (the frame's
// non-json-line finding says why). The request stays in flight for the
// tracker: no message answered it.
func (s *Session) onUnreadableAnswer(f *wire.Frame) {
	s.client.mu.Lock()
	ch, ok := s.client.waiters[f.Msg.DeepID()]
	delete(s.client.waiters, f.Msg.DeepID())
	s.client.mu.Unlock()
	if ok {
		ch <- f
	}
}

// onAnswer handles an answer to one of the client's requests: what it
// teaches is recorded before a waiting Call sees it.
func (s *Session) onAnswer(f *wire.Frame, seq uint64) {
	id := f.Msg.ID
	// The fold has paired the answer already: the request it answers is the
	// one a Call waits on, also when the answer's id is of the other type
	// ("2" for 2; the tracker flagged id-type-mismatch).
	if r, ok := s.tracker.AnswerTo(seq); ok && r.Dir == wire.ClientToServer {
		id = r.ID
		s.noteInputRequired(r, f)
	}
	s.client.mu.Lock()
	ch, ok := s.client.waiters[id]
	delete(s.client.waiters, id)
	if f.Msg.ResultType != "input_required" {
		delete(s.client.sent, id) // only an input_required answer can be retried
	}
	s.client.mu.Unlock()
	if ok {
		ch <- f // buffered, and delivered once
	}
}

// noteInputRequired notes an input_required answer f to the client's
// request r (what the handshake learns is the projection's: see
// [Tracker.Handshake]).
func (s *Session) noteInputRequired(r eventlog.Request, f *wire.Frame) {
	if f.Msg.Kind == wire.KindResult && f.Msg.ResultType == "input_required" {
		var body struct {
			Result struct {
				InputRequests json.RawMessage `json:"inputRequests"`
				RequestState  string          `json:"requestState"`
			} `json:"result"`
		}
		_ = json.Unmarshal(f.Raw(), &body)
		note := fmt.Sprintf("request #%d (%s, id %s) needs input before it can complete", r.Seq, r.Method, r.ID)
		if len(body.Result.InputRequests) > 0 {
			note += "; inputRequests: " + clipText(string(body.Result.InputRequests), 400)
		}
		if body.Result.RequestState != "" {
			note += "; with requestState"
		}
		note += "; a retry must use a new id"
		s.note(note)
	}
}

// onServerRequest answers the server's requests like a host: ping at once,
// roots/list with the configured roots when the capability was declared,
// sampling and elicitation left to the user (or declined when headless),
// anything else "method not found".
func (s *Session) onServerRequest(f *wire.Frame, seq uint64) {
	// Every request is answered, even one reusing an id still in flight
	// (the tracker has flagged it): a host does not second-guess ids.
	id, method := f.Msg.ID, f.Msg.Method
	var err error
	switch method {
	case "ping":
		err = s.respond(id, struct{}{})
	case "roots/list":
		if s.rootsDeclared() {
			err = s.respond(id, map[string]any{"roots": s.roots()})
		} else {
			err = s.respondError(id, eventlog.CodeMethodNotFound, "roots/list: linesman did not declare the roots capability")
		}
	case "sampling/createMessage", "elicitation/create":
		if s.cfg.Headless {
			err = s.respondError(id, eventlog.CodeMethodNotFound, fmt.Sprintf(
				"%s declined: linesman runs headless, with nobody to answer; it did not declare the capability", method))
		} else {
			s.note(fmt.Sprintf("the server's %s request #%d (id %s) waits for an answer by hand", method, seq, id))
		}
	default:
		err = s.respondError(id, eventlog.CodeMethodNotFound, "method not found: "+method)
	}
	if err != nil {
		s.note(fmt.Sprintf("could not answer the server's %s request (id %s): %v", method, id, err))
	}
}

// clipText shortens s to about n bytes, on a rune boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
