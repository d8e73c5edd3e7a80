package session

import (
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
	obj, ok := members(line)
	if !ok {
		return line
	}
	method, ok := obj.method(line)
	if !ok {
		return line
	}
	if _, has := obj.m["id"]; has || strings.HasPrefix(method, "notifications/") {
		return line
	}
	return insertAt(line, obj.open+1, []byte(`"id":`+next().String()+`,`))
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
	obj, ok := members(line)
	if !ok {
		return line
	}
	if method, ok := obj.method(line); !ok || strings.HasPrefix(method, "notifications/") {
		return line
	}
	if _, has := obj.m["id"]; !has {
		return line
	}
	params, has := obj.m["params"]
	if !has {
		return insertAt(line, obj.open+1, []byte(`"params":{"_meta":`), meta, []byte("},"))
	}
	p, ok := members(line[:params[1]], params[0])
	if !ok {
		return line // not an object: the server will say so
	}
	if _, own := p.m["_meta"]; own {
		return line
	}
	if len(p.m) > 0 {
		return insertAt(line, p.open+1, []byte(`"_meta":`), meta, []byte(","))
	}
	return insertAt(line, p.open+1, []byte(`"_meta":`), meta)
}

// fillJSONRPC gives a JSON-RPC message written without "jsonrpc" (an
// object with a "method", or with an "id" and a "result" or an "error")
// the "jsonrpc":"2.0" every message must carry, first in the object; the
// rest of the line is left exactly as written. A "jsonrpc" of any value
// written by hand, and anything else, is returned unchanged.
func fillJSONRPC(line []byte) []byte {
	obj, ok := members(line)
	if !ok {
		return line
	}
	if _, has := obj.m["jsonrpc"]; has {
		return line
	}
	_, method := obj.m["method"]
	_, id := obj.m["id"]
	_, result := obj.m["result"]
	_, failed := obj.m["error"]
	if !method && !(id && (result || failed)) {
		return line
	}
	return insertAt(line, obj.open+1, []byte(`"jsonrpc":"2.0",`)) // the object has a member: method or id
}

// object is where the members of a JSON object lie in its text: the
// offset of its "{" and, by name, the offsets of each member's value
// (the last, when a name repeats, as encoding/json reads it). Nothing of
// the text is copied: a request of a gigabyte costs its offsets.
type object struct {
	open int
	m    map[string][2]int
}

// members finds the members of the JSON object that text[from:] holds
// (from 0 when not given), white space around it allowed; ok is false when
// it is not one valid JSON object.
func members(text []byte, from ...int) (o object, ok bool) {
	i := 0
	if len(from) > 0 {
		i = from[0]
	}
	i = skipSpace(text, i)
	if i >= len(text) || text[i] != '{' {
		return o, false
	}
	if end, valid := wire.ValueEnd(text, i, 0); !valid || skipSpace(text, end) != len(text) {
		return o, false
	}
	o = object{open: i, m: map[string][2]int{}}
	for i = skipSpace(text, i+1); text[i] != '}'; i = skipSpace(text, i+1) { // at a name, or past a ","
		if text[i] == ',' {
			continue
		}
		end, _ := wire.ValueEnd(text, i, 1)
		var name string
		if json.Unmarshal(text[i:end], &name) != nil {
			return o, false
		}
		i = skipSpace(text, end) + 1 // past the ":"
		i = skipSpace(text, i)
		end, _ = wire.ValueEnd(text, i, 1)
		o.m[name] = [2]int{i, end}
		i = end - 1
	}
	return o, true
}

// method is the object's "method" when it is a non-empty string.
func (o object) method(text []byte) (string, bool) {
	v, has := o.m["method"]
	if !has {
		return "", false
	}
	var method string
	if json.Unmarshal(text[v[0]:v[1]], &method) != nil || method == "" {
		return "", false
	}
	return method, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// insertAt inserts the pieces into line at the offset at. It uses line's
// spare capacity when there is enough (the line is moved up in place,
// not copied: see [Session.CompleteRequestOwned]), else makes a new line.
func insertAt(line []byte, at int, pieces ...[]byte) []byte {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if cap(line)-len(line) < n {
		out := make([]byte, 0, len(line)+n+1) // room for the line end a sender adds
		out = append(out, line[:at]...)
		for _, p := range pieces {
			out = append(out, p...)
		}
		return append(out, line[at:]...)
	}
	out := line[:len(line)+n]
	copy(out[at+n:], line[at:])
	for _, p := range pieces {
		at += copy(out[at:], p)
	}
	return out
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
// line itself is never written to.
func (s *Session) CompleteRequest(line []byte) []byte {
	return s.CompleteRequestOwned(line[:len(line):len(line)])
}

// CompleteRequestOwned is CompleteRequest for a line the caller gives up:
// what is inserted moves the line up within its spare capacity when there
// is enough, so that completing a line of a gigabyte copies none of it.
// Nothing of the line is copied to find its members either.
func (s *Session) CompleteRequestOwned(line []byte) []byte {
	return fillJSONRPC(fillMeta(fillID(line, s.tracker.MintID), s.RequestMeta()))
}
