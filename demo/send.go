package demo

// What the server writes: the envelopes of its messages, and the one path
// every frame takes to the wire (serialized, compact, one line each).

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
)

// The envelopes of what the server sends, as structs so that "jsonrpc"
// comes first on the wire, as people expect to read it.
type (
	resultMsg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}
	errorMsg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}
	requestMsg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
	}
	notificationMsg struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}
)

// response builds a result response; modern results say resultType.
func response(req *request, result map[string]any) resultMsg {
	if req.modern {
		return resultMsg{JSONRPC: "2.0", ID: req.id, Result: modernResult(result)}
	}
	return resultMsg{JSONRPC: "2.0", ID: req.id, Result: result}
}

// modernResult is a result whose "resultType" comes first on the wire: the
// discriminator is then readable even when a client (or linesman, past
// --max-frame) keeps only the start of a big result.
type modernResult map[string]any

func (r modernResult) MarshalJSON() ([]byte, error) {
	rest := make(map[string]any, len(r))
	for k, v := range r {
		if k != "resultType" {
			rest[k] = v
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as wire.Marshal: what was typed is what is sent
	if err := enc.Encode(rest); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	out := []byte(`{"resultType":"complete"`)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

func (s *server) sendResult(req *request, result map[string]any) bool {
	return s.writeFrame(req.ctx, encode(response(req, result)))
}

// sendError answers with a JSON-RPC error; a nil id is sent as null.
func (s *server) sendError(req *request, id json.RawMessage, code int, msg string, data any) bool {
	if id == nil {
		id = json.RawMessage("null")
	}
	ctx := context.Background()
	if req != nil {
		ctx = req.ctx
	}
	return s.writeFrame(ctx, encode(errorMsg{JSONRPC: "2.0", ID: id, Error: rpcError{Code: code, Message: msg, Data: data}}))
}

// notify sends a notification on behalf of a request (progress): nothing is
// sent once the request was cancelled.
func (s *server) notify(ctx context.Context, method string, params any) bool {
	return s.writeFrame(ctx, encode(notificationMsg{JSONRPC: "2.0", Method: method, Params: params}))
}

// writeFrame writes one frame unless ctx is done. It reports whether the
// frame was written (or buffered). The context check happens under the wire
// mutex, which is what makes "nothing more after a cancel" exact.
func (s *server) writeFrame(ctx context.Context, b []byte) bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	var err error
	if s.buf != nil {
		_, err = s.buf.Write(b)
	} else {
		_, err = s.out.Write(b)
	}
	if err != nil {
		s.noteWriteError(err)
		return false
	}
	return true
}

// noteWriteError logs the first failed write to the wire (the client went
// away); called with wmu held.
func (s *server) noteWriteError(err error) {
	if s.writeErr == nil {
		s.writeErr = err
		s.logf("writing to the client failed: %v", err)
	}
}

// withWire runs f holding the wire mutex, so that what f writes to the
// process's stdout lands between frames rather than inside one.
func (s *server) withWire(f func()) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	f()
}

// ask sends a request to the client and waits for its answer (or ctx, or
// timeout); it reports whether an answer came.
func (s *server) ask(ctx context.Context, id json.RawMessage, method string, timeout time.Duration) bool {
	ch := make(chan json.RawMessage, 1)
	key := idKey(id)
	s.mu.Lock()
	s.waiting[key] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.waiting[key] == ch {
			delete(s.waiting, key)
		}
		s.mu.Unlock()
	}()
	if !s.writeFrame(ctx, encode(requestMsg{JSONRPC: "2.0", ID: id, Method: method})) {
		return false
	}
	s.logf("→ %s (id %s), a request of my own", method, key)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
	case <-t.C:
		s.logf("  no answer to my %s (id %s) within %s", method, key, timeout)
	}
	return false
}
