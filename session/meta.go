package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"linesman/session/eventlog"
	"linesman/wire"
)

// The _meta rule of the modern era (2026-07-28: every request carries the
// protocol version, the client's capabilities and its info in
// params._meta), for the requests the session builds and for those a person
// writes by hand.

// buildParams marshals params and, in the modern era, adds the _meta every
// 2026-07-28 request must carry (keys the caller set are kept).
func (s *Session) buildParams(method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	switch p := params.(type) {
	case nil:
	case json.RawMessage:
		raw = p
	case []byte:
		raw = p
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("session: encoding the params of %s: %w", method, err)
		}
		raw = b
	}
	hs := s.tracker.Handshake()
	era, version := hs.Era, hs.ProtocolVersion
	if era != eventlog.EraModern {
		return raw, nil
	}
	return s.withMeta(raw, version)
}

// RequestMeta returns the _meta object every request must carry in the
// session's era — in the modern era (2026-07-28) the protocol version, the
// client's capabilities and its info — or nil in the legacy era, where
// requests need none. It lets a caller that writes requests by hand
// (linesman send) complete them as Request does.
func (s *Session) RequestMeta() json.RawMessage {
	hs := s.tracker.Handshake()
	era, version := hs.Era, hs.ProtocolVersion
	if era != eventlog.EraModern {
		return nil
	}
	params, err := s.withMeta(nil, version)
	if err != nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return nil
	}
	return obj["_meta"]
}

// withMeta adds the modern era's request _meta to the params object raw.
func (s *Session) withMeta(raw json.RawMessage, version string) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("session: params must be a JSON object in the modern era: %w", err)
		}
	}
	meta := map[string]any{}
	if m, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, fmt.Errorf("session: params._meta must be an object: %w", err)
		}
	}
	if version == "" {
		version = eventlog.ModernProtocolVersion
	}
	setDefault(meta, eventlog.MetaProtocolVersion, version)
	setDefault(meta, eventlog.MetaClientCapabilities, s.clientCapabilities())
	setDefault(meta, eventlog.MetaClientInfo, s.clientInfo())
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	obj["_meta"] = b
	return json.Marshal(obj)
}

func setDefault(m map[string]any, key string, v any) {
	if _, ok := m[key]; !ok {
		m[key] = v
	}
}

// fillID gives a request written without an id the next free one: a JSON
// object with a "method", no "id", and a method that does not start with
// "notifications/". The id goes first in the object; the rest of the line
// is left exactly as written. Anything else is returned unchanged.
func fillID(line []byte, next func() wire.ID) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil {
		return line
	}
	var method string
	if json.Unmarshal(obj["method"], &method) != nil || method == "" {
		return line
	}
	if _, has := obj["id"]; has || strings.HasPrefix(method, "notifications/") {
		return line
	}
	open := bytes.IndexByte(line, '{')
	id := next()
	out := make([]byte, 0, len(line)+24)
	out = append(out, line[:open+1]...)
	out = append(out, `"id":`...)
	out = append(out, id.String()...)
	out = append(out, ',')
	return append(out, line[open+1:]...)
}

// fillMeta gives a request written without params._meta the _meta its era
// requires (meta; nil in the legacy era, where nothing is added). The
// object is inserted at the start of params (or as new params), and the rest
// of the line is left exactly as written. A request that has a _meta of its
// own, notifications, and anything that is not a JSON-RPC request object are
// returned unchanged.
func fillMeta(line []byte, meta json.RawMessage) []byte {
	if len(meta) == 0 {
		return line
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil {
		return line
	}
	var method string
	if json.Unmarshal(obj["method"], &method) != nil || method == "" || strings.HasPrefix(method, "notifications/") {
		return line
	}
	if _, has := obj["id"]; !has {
		return line
	}
	params, has := obj["params"]
	if !has {
		open := bytes.IndexByte(line, '{')
		out := make([]byte, 0, len(line)+len(meta)+24)
		out = append(out, line[:open+1]...)
		out = append(out, `"params":{"_meta":`...)
		out = append(out, meta...)
		out = append(out, "},"...)
		return append(out, line[open+1:]...)
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return line // not an object: the server will say so
	}
	if _, own := p["_meta"]; own || bytes.Count(line, params) != 1 {
		return line
	}
	at := bytes.Index(line, params) + bytes.IndexByte(params, '{') + 1
	out := make([]byte, 0, len(line)+len(meta)+16)
	out = append(out, line[:at]...)
	out = append(out, `"_meta":`...)
	out = append(out, meta...)
	if len(p) > 0 {
		out = append(out, ',')
	}
	return append(out, line[at:]...)
}

// fillJSONRPC gives a JSON-RPC message written without "jsonrpc" (an
// object with a "method", or with an "id" and a "result" or an "error")
// the "jsonrpc":"2.0" every message must carry, first in the object; the
// rest of the line is left exactly as written. A "jsonrpc" of any value
// written by hand, and anything else, is returned unchanged.
func fillJSONRPC(line []byte) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil {
		return line
	}
	if _, has := obj["jsonrpc"]; has {
		return line
	}
	_, method := obj["method"]
	_, id := obj["id"]
	_, result := obj["result"]
	_, failed := obj["error"]
	if !method && !(id && (result || failed)) {
		return line
	}
	open := bytes.IndexByte(line, '{')
	out := make([]byte, 0, len(line)+16)
	out = append(out, line[:open+1]...)
	out = append(out, `"jsonrpc":"2.0",`...) // the object has a member: method or id
	return append(out, line[open+1:]...)
}

// CompleteRequest completes a frame written by hand — in linesman send,
// and in the inspector's composer, its resends, its picker and its
// templates: every path that sends what a person wrote goes through it,
// unless the person asked for the bytes as typed (send --raw, the
// composer's raw mode). It completes the way [Session.Request] builds its
// own: a request without an id gets the next free one, reserved as
// [Session.Request] reserves its own (a line the tracker does not take for
// a request must not leave its id free for the next line); in the modern
// era one without params._meta gets the _meta the era requires
// ([Session.RequestMeta]); and a message without "jsonrpc" gets "2.0". The
// rest of the line is left exactly as written; a line that is not a
// message missing one of those members is returned unchanged.
func (s *Session) CompleteRequest(line []byte) []byte {
	return fillJSONRPC(fillMeta(fillID(line, s.tracker.MintID), s.RequestMeta()))
}
