package session

import (
	"encoding/json"
	"testing"

	"linesman/wire"
)

// TestFillMeta: a hand-written request gets the era's _meta at the start of
// its params, the rest of the line untouched; anything else is left alone.
func TestFillMeta(t *testing.T) {
	meta := json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo"}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","params": { }}`,
			`{"jsonrpc":"2.0","id":3,"method":"ping","params": {"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"} }}`},
		// Left alone: a _meta of one's own, notifications, non-objects, non-JSON.
		{`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{}}}`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, ""},
		{`{"jsonrpc":"2.0","id":5,"method":"ping","params":[1]}`, ""},
		{`{"jsonrpc":"2.0","id":6,"result":{}}`, ""},
		{`not json`, ""},
	} {
		want := c.want
		if want == "" {
			want = c.in
		}
		got := string(fillMeta([]byte(c.in), meta))
		if got != want {
			t.Errorf("fillMeta(%s)\n got %s\nwant %s", c.in, got, want)
		}
		if !json.Valid([]byte(got)) && json.Valid([]byte(c.in)) {
			t.Errorf("fillMeta(%s) made invalid JSON: %s", c.in, got)
		}
	}
	if got := string(fillMeta([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil)); got != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Errorf("legacy era (no meta) changed the line: %s", got)
	}
}

// TestFillID: a request without an id gets the next one first in the
// object; notifications, requests with an id and non-requests are left alone.
func TestFillID(t *testing.T) {
	next := func() wire.ID { return wire.IntID(7) }
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","method":"tools/list"}`, `{"id":7,"jsonrpc":"2.0","method":"tools/list"}`},
		{` {"method":"ping", "params":{}}`, ` {"id":7,"method":"ping", "params":{}}`},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{`[{"method":"ping"}]`, ""},
		{`{"method":`, ""},
	} {
		want := c.want
		if want == "" {
			want = c.in
		}
		if got := string(fillID([]byte(c.in), next)); got != want {
			t.Errorf("fillID(%s)\n got %s\nwant %s", c.in, got, want)
		}
	}
}

// TestFillJSONRPC: a message written without "jsonrpc" gets "2.0" first in
// the object; one with a "jsonrpc" of its own (right or wrong) and what is
// not a JSON-RPC message are left alone.
func TestFillJSONRPC(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{` { "method":"notifications/initialized"}`, ` {"jsonrpc":"2.0", "method":"notifications/initialized"}`},
		{`{"id":2,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{`{"id":3,"error":{"code":-1,"message":"m"}}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m"}}`},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, ""},
		{`{"jsonrpc":"2.0","id":5,"method":"ping"}`, ""},
		{`{"id":6}`, ""},
		{`{"x":1}`, ""},
		{`[{"method":"ping"}]`, ""},
		{`not json`, ""},
	} {
		want := c.want
		if want == "" {
			want = c.in
		}
		if got := string(fillJSONRPC([]byte(c.in))); got != want {
			t.Errorf("fillJSONRPC(%s)\n got %s\nwant %s", c.in, got, want)
		}
	}
}
