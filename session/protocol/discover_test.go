package protocol

import (
	"testing"
)

// TestDiscoverNotImplementedNeedsAModernServer: a server that answers a
// 2026-07-28 server/discover with -32601 draws discover-not-implemented only
// once it shows it speaks 2026-07-28 (a result to a request carrying the
// era's _meta). A conversation that ends right after the -32601 shows
// nothing of the kind: -32601 is the answer the specification expects of a
// legacy server (2026-07-28, Versioning › Backward Compatibility), and
// hosts end exactly so — the TypeScript SDK v2's client (2.4.0, mode
// 'auto') probes a stdio server on a disposable process it then ends,
// and falls back to initialize on a fresh one.
func TestDiscoverNotImplementedNeedsAModernServer(t *testing.T) {
	const probe = `> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`
	for _, tc := range []struct {
		name string
		conv string
		want bool
	}{
		{"ends after the -32601", probe, false},
		{"the client fell back to initialize", probe + "\n" + `> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, false},
		{"the server answers a 2026-07-28 request", probe + "\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`, true},
		{"a legacy discover (no _meta)", `> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}
< {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`, false},
		{"a modern server", "$DISCOVER", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, frames := run(t, tc.conv)
			if got := contains(codes(frames), "discover-not-implemented"); got != tc.want {
				t.Fatalf("raised %v, want discover-not-implemented: %v", codes(frames), tc.want)
			}
		})
	}
}
