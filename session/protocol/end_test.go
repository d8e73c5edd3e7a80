package protocol

import (
	"testing"
)

// TestEndDiscoverNotImplemented: a conversation that ends right after the
// server answered a 2026-07-28 server/discover with -32601 draws
// discover-not-implemented from Judge.End, pointing at that answer; not
// when the session decided the era itself (its probe read the answer as a
// legacy server's), not when the client went on to initialize (a dual-era
// client falling back, as it should, to a legacy server), and only once.
func TestEndDiscoverNotImplemented(t *testing.T) {
	const probe = `> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`
	for _, tc := range []struct {
		name    string
		conv    string
		decided bool
		want    bool
	}{
		{"ends after the -32601", probe, false, true},
		{"the session decided the era", probe, true, false},
		{"the client fell back to initialize", probe + "\n" + `> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, false, false},
		{"a legacy discover (no _meta)", `> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}
< {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`, false, false},
		{"a modern server", "$DISCOVER", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, frames := run(t, tc.conv)
			if got := codes(frames); contains(got, "discover-not-implemented") {
				t.Fatalf("raised on a frame before the end: %v", got)
			}
			closing := j.End(tc.decided)
			got := len(closing) == 1 && closing[0].Finding.Code == "discover-not-implemented"
			if got != tc.want || len(closing) > 1 {
				t.Fatalf("End: %+v, want discover-not-implemented: %v", closing, tc.want)
			}
			if got && closing[0].Seq != 2 {
				t.Errorf("points at seq %d, want 2 (the -32601 answer)", closing[0].Seq)
			}
			if again := j.End(tc.decided); len(again) != 0 {
				t.Errorf("raised twice: %+v", again)
			}
		})
	}
}
