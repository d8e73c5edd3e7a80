package main

import (
	"encoding/json"
	"strings"
	"testing"
)

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

// TestSendCompletesModernRequests: against the demo server (modern era), a
// hand-written request gets the _meta the era requires, so the server sees
// a conformant request; with --era legacy nothing is added.
func TestSendCompletesModernRequests(t *testing.T) {
	bin := linesmanBinary(t)
	for _, era := range []string{"modern", "legacy"} {
		r, status := decodeRun(t, []byte(`{"jsonrpc":"2.0","method":"tools/list"}`+"\n"),
			"send", "--json", "--era", era, "--", bin, "demo-server")
		if status != 0 {
			t.Fatalf("%s: status %d, findings %v", era, status, r.codes())
		}
		var sent string
		for _, f := range r.c2s() {
			if frameMethod(f) == "tools/list" && f.Text != nil {
				sent = *f.Text
			}
		}
		hasMeta := strings.Contains(sent, `"io.modelcontextprotocol/protocolVersion"`)
		if hasMeta != (era == "modern") {
			t.Errorf("%s era: tools/list sent as %s", era, sent)
		}
		if era == "modern" && strings.Contains(strings.Join(r.Stderr, "\n"), "no _meta protocol version") {
			t.Errorf("the demo server saw a request without _meta:\n%s", strings.Join(r.Stderr, "\n"))
		}
	}
}
