// Package demo is linesman's built-in demo server: a real MCP server over
// stdio that misbehaves on demand, one lesson per tool, so that a new user
// can see every kind of stdio mistake called out without installing a server.
//
// It speaks both protocol eras: server/discover and per-request _meta
// (2026-07-28), and the initialize handshake (2025-11-25 and older). Its tools
// are described in Tools. By default it isolates its own stdio the way a
// careful stdio server should (see Isolate), so the tools that write to
// "stdout" behind the protocol's back land on stderr; with isolation off the
// same tools corrupt the wire, and that difference is the lesson.
//
// The package imports only wire and the standard library (and x/sys for the
// descriptor work). It must not import session or ui: it is the other side of
// the wire.
package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"linesman/wire"
)

// Protocol versions the demo server speaks.
const (
	// ModernVersion is the stateless era: server/discover, _meta on every
	// request, resultType on every result.
	ModernVersion = "2026-07-28"
	// LatestLegacyVersion is what initialize negotiates to when the client
	// asks for a version the server does not know.
	LatestLegacyVersion = "2025-11-25"
)

// LegacyVersions are the initialize-era versions, newest first.
var LegacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// ModernVersions are the versions a request may name in its _meta.
var ModernVersions = []string{ModernVersion}

// Name and Version identify the demo server in serverInfo.
const (
	Name    = "linesman-demo"
	Version = "0.1.0"
)

const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

	codeParseError         = -32700
	codeInvalidRequest     = -32600
	codeMethodNotFound     = -32601
	codeInvalidParams      = -32602
	codeUnsupportedVersion = -32022
)

// DefaultBufferSize is the block buffer the unflushed tool switches stdout
// to: the size Python's io module and many C libraries use for a pipe.
const DefaultBufferSize = 8192

// Options configure Serve.
type Options struct {
	// Isolated says whether the process's fd 0 and fd 1 were moved out of the
	// way (Isolate); it only changes what the tools say about themselves.
	Isolated bool
	// Stdout is the process's "standard output" as a stray print sees it:
	// where print_debug writes. nil means os.Stdout (fd 1).
	Stdout io.Writer
	// ChildStdout and ChildStderr are what noisy_child's child process
	// inherits. nil means os.Stdout and os.Stderr (fd 1 and fd 2).
	ChildStdout, ChildStderr *os.File
	// Exit ends the process for the crash tool. nil means os.Exit.
	Exit func(code int)
	// Stop, when closed, ends the wait of a server told to ignore stdin EOF.
	// nil means it waits until the process is killed.
	Stop <-chan struct{}
}

// Serve runs the demo server: it reads JSON-RPC messages, one per line, from
// in and writes its messages to out, one compact line each, serialized under
// one mutex. errw receives its log (and the misbehaviour meant for stderr).
// Requests are served concurrently, so a slow tool can be cancelled while
// others answer.
//
// Serve returns when in reaches EOF (or fails: that error is returned) and
// every request being served has finished; then anything held by the
// unflushed tool is flushed. If the ignore_eof tool was called, it keeps
// running instead, until opts.Stop is closed or the process is killed.
func Serve(in io.Reader, out io.Writer, errw io.Writer, opts Options) error {
	s := &server{
		opts:     opts,
		out:      out,
		errw:     errw,
		inflight: map[string]context.CancelFunc{},
		waiting:  map[string]chan json.RawMessage{},
	}
	if s.opts.Stdout == nil {
		s.opts.Stdout = os.Stdout
	}
	if s.opts.ChildStdout == nil {
		s.opts.ChildStdout = os.Stdout
	}
	if s.opts.ChildStderr == nil {
		s.opts.ChildStderr = os.Stderr
	}
	if s.opts.Exit == nil {
		s.opts.Exit = os.Exit
	}
	return s.serve(in)
}

type server struct {
	opts Options
	errw io.Writer
	logm sync.Mutex // one log line at a time on errw

	// wmu serializes everything that reaches the wire: every frame is one
	// Write of one whole line, and the deliberate stray writes (print_debug,
	// noisy_child) happen between frames, never inside one.
	wmu      sync.Mutex
	out      io.Writer
	buf      *bufio.Writer // non-nil once the unflushed tool switched buffering on
	writeErr error         // first write error on the wire, logged once

	mu          sync.Mutex
	inflight    map[string]context.CancelFunc   // client requests being served, by id
	waiting     map[string]chan json.RawMessage // our requests awaiting the client's answer
	legacy      bool                            // an initialize request was answered: a legacy session
	initialized bool                            // notifications/initialized seen
	ignoreEOF   bool
	handlers    sync.WaitGroup
}

// message is any JSON-RPC message; which one it is depends on which members
// are present (a request has "method" and "id").
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// idKey is the map key of an id: its JSON text, so 2 and "2" differ.
func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// logf writes a log line to stderr, inert: it quotes the client (methods, ids).
func (s *server) logf(format string, args ...any) {
	line := wire.VisibleString(strings.TrimRight(fmt.Sprintf("linesman-demo: "+format, args...), "\n"), wire.Pictures)
	s.logm.Lock()
	defer s.logm.Unlock()
	io.WriteString(s.errw, line+"\n")
}

func (s *server) serve(in io.Reader) error {
	if s.opts.Isolated {
		s.logf("serving MCP on private copies of stdin/stdout; fd 0 reads %s and fd 1 writes to stderr (isolation on)", os.DevNull)
	} else {
		s.logf("serving MCP on fd 0/fd 1 directly (--isolate=false): anything else written to stdout corrupts the wire")
	}
	r := bufio.NewReaderSize(in, 64<<10)
	var readErr error
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			s.handleLine(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = fmt.Errorf("demo: reading requests: %w", err)
				s.logf("%v", readErr)
			}
			break
		}
	}
	s.handlers.Wait()
	s.mu.Lock()
	ignore := s.ignoreEOF
	s.mu.Unlock()
	s.flush()
	if ignore {
		s.logf("stdin closed (EOF), and I was told to ignore it: still running until SIGTERM")
		// A ticker rather than a bare channel receive: the runtime must not
		// mistake this deliberate wait for a deadlock.
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		for {
			select {
			case <-s.opts.Stop:
				return readErr
			case <-t.C:
			}
		}
	}
	s.logf("stdin closed (EOF): exiting")
	return readErr
}

// flush writes out whatever the unflushed tool held back; at exit, as a C
// program's stdio would.
func (s *server) flush() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.buf != nil && s.buf.Buffered() > 0 {
		n := s.buf.Buffered()
		if err := s.buf.Flush(); err != nil {
			s.noteWriteError(err)
		}
		s.logf("exiting: flushed %d bytes the block buffer held back", n)
	}
}

func (s *server) handleLine(line []byte) {
	text := bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(text)) == 0 {
		return
	}
	if t := bytes.TrimSpace(text); t[0] == '[' {
		s.logf("← a JSON array (batch): batches were removed in 2025-06-18")
		s.sendError(nil, nil, codeInvalidRequest, "batches are not supported (removed in MCP 2025-06-18): send one message per line", nil)
		return
	}
	var m message
	if err := json.Unmarshal(text, &m); err != nil {
		s.logf("← a line that is not JSON: %v", err)
		s.sendError(nil, nil, codeParseError, "parse error: "+err.Error(), nil)
		return
	}
	hasID := len(m.ID) > 0
	switch {
	case m.Method != "" && hasID:
		s.handleRequest(&m)
	case m.Method != "":
		s.handleNotification(&m)
	case hasID:
		s.handleResponse(&m)
	default:
		s.sendError(nil, nil, codeInvalidRequest, "invalid request: no method and no id", nil)
	}
}

// meta is the _meta of a request's params.
type meta struct {
	ProtocolVersion *string         `json:"io.modelcontextprotocol/protocolVersion"`
	ProgressToken   json.RawMessage `json:"progressToken"`
}

func parseMeta(params json.RawMessage) meta {
	var p struct {
		Meta meta `json:"_meta"`
	}
	if len(params) > 0 {
		json.Unmarshal(params, &p)
	}
	return p.Meta
}

// request is a client request being served.
type request struct {
	id     json.RawMessage
	method string
	params json.RawMessage
	// modern is set when the request named a 2026-07-28 version in _meta:
	// its result then carries resultType.
	modern        bool
	progressToken json.RawMessage
	ctx           context.Context // done when the client cancelled it
}

func (s *server) handleRequest(m *message) {
	md := parseMeta(m.Params)
	req := &request{id: m.ID, method: m.Method, params: m.Params, progressToken: md.ProgressToken, ctx: context.Background()}
	s.logf("← %s (id %s)", m.Method, idKey(m.ID))

	if m.Method == "initialize" {
		s.initialize(req)
		return
	}
	if md.ProtocolVersion != nil {
		v := *md.ProtocolVersion
		if !slices.Contains(ModernVersions, v) {
			s.logf("  protocol version %q is not one I speak per request: -32022", v)
			s.sendError(req, m.ID, codeUnsupportedVersion,
				fmt.Sprintf("unsupported protocol version %q; supported: %s (or initialize with %s)", v, strings.Join(ModernVersions, ", "), strings.Join(LegacyVersions, ", ")),
				map[string]any{"supported": ModernVersions, "requested": v})
			return
		}
		req.modern = true
	}
	s.mu.Lock()
	legacy, initialized := s.legacy, s.initialized
	s.mu.Unlock()
	switch {
	case req.modern:
	case !legacy:
		// No _meta version and no handshake: answer in the 2026-07-28 shape
		// (resultType is harmless to anyone else), so that a modern client
		// that forgot _meta is not also told the result lacks resultType.
		req.modern = true
		if m.Method != "server/discover" {
			s.logf("  (no _meta protocol version and no initialize handshake: answering in the %s shape)", ModernVersion)
		}
	case !initialized && m.Method != "ping":
		// Served anyway: the demo is lenient so that every lesson can be
		// reached by hand, but a real legacy server may refuse.
		s.logf("  (before notifications/initialized; serving it anyway)")
	}
	switch m.Method {
	case "server/discover":
		req.modern = true
		s.sendResult(req, cacheable(req, map[string]any{
			"supportedVersions": ModernVersions,
			"capabilities":      capabilities(),
			"serverInfo":        serverInfo(),
			"instructions":      s.instructions(),
		}))
	case "ping":
		s.sendResult(req, map[string]any{})
	case "tools/list":
		s.sendResult(req, cacheable(req, map[string]any{"tools": s.toolList()}))
	case "tools/call":
		s.startCall(req)
	default:
		s.sendError(req, m.ID, codeMethodNotFound, "method not found: "+m.Method, nil)
	}
}

// cacheable adds the caching hints 2026-07-28 requires on listings and
// server/discover (CacheableResult: ttlMs and cacheScope). The demo's lists
// change only with its flags, but a restart may change them: 0 ms says
// re-fetch freely; nothing in them is user-specific, so the scope is public.
func cacheable(req *request, result map[string]any) map[string]any {
	if req.modern {
		result["ttlMs"] = 0
		result["cacheScope"] = "public"
	}
	return result
}

func capabilities() map[string]any {
	return map[string]any{"tools": map[string]any{"listChanged": false}}
}

func serverInfo() map[string]any {
	return map[string]any{"name": Name, "title": "linesman demo server", "version": Version}
}

func (s *server) instructions() string {
	iso := "Isolation is on: stray writes to stdout land on stderr."
	if !s.opts.Isolated {
		iso = "Isolation is OFF (--isolate=false): print_debug and noisy_child corrupt the wire."
	}
	return "A server that misbehaves on demand: each tool teaches one stdio mistake; its description says which finding linesman will show. " + iso
}

// initialize answers the legacy handshake, negotiating the version: the
// client's if it is one the server knows, else the newest legacy one.
func (s *server) initialize(req *request) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if len(req.params) > 0 {
		json.Unmarshal(req.params, &p)
	}
	v := p.ProtocolVersion
	if !slices.Contains(LegacyVersions, v) {
		s.logf("  client asked for %q; offering %s", v, LatestLegacyVersion)
		v = LatestLegacyVersion
	}
	s.mu.Lock()
	s.legacy = true
	s.mu.Unlock()
	s.sendResult(req, map[string]any{
		"protocolVersion": v,
		"capabilities":    capabilities(),
		"serverInfo":      serverInfo(),
		"instructions":    s.instructions(),
	})
}

func (s *server) handleNotification(m *message) {
	switch m.Method {
	case "notifications/initialized":
		s.mu.Lock()
		s.initialized = true
		s.mu.Unlock()
		s.logf("← notifications/initialized: handshake complete")
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		json.Unmarshal(m.Params, &p)
		key := idKey(p.RequestID)
		s.mu.Lock()
		cancel := s.inflight[key]
		s.mu.Unlock()
		if cancel == nil {
			s.logf("← notifications/cancelled for id %s, which is not in flight (already answered?)", key)
			return
		}
		// Once cancel returns, no frame for that id can be written: every
		// write for a request checks its context under the wire mutex.
		cancel()
		s.logf("← notifications/cancelled id %s (%s): stopping it, sending nothing more for it", key, p.Reason)
	default:
		s.logf("← %s (notification, ignored)", m.Method)
	}
}

// handleResponse routes the client's answer to a request the server sent.
func (s *server) handleResponse(m *message) {
	key := idKey(m.ID)
	s.mu.Lock()
	ch := s.waiting[key]
	delete(s.waiting, key)
	s.mu.Unlock()
	if ch == nil {
		s.logf("← a response to id %s, which I did not ask", key)
		return
	}
	ch <- m.Result // buffered, never blocks
}

// startCall serves a tools/call on its own goroutine, cancellable by id.
func (s *server) startCall(req *request) {
	ctx, cancel := context.WithCancel(context.Background())
	req.ctx = ctx
	key := idKey(req.id)
	s.mu.Lock()
	s.inflight[key] = cancel
	s.mu.Unlock()
	s.handlers.Add(1)
	go func() {
		defer s.handlers.Done()
		defer func() {
			s.mu.Lock()
			delete(s.inflight, key)
			s.mu.Unlock()
			cancel()
		}()
		s.call(req)
	}()
}
