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

// TestPromptArgumentsRefused: prompts/get of a prompt the server's last
// complete listing named with no required argument, giving none, refused
// with -32602 (Invalid params), is a refusal without cause; not when the
// request gave arguments (a value may be wrong), when the listing is stale
// (list_changed since), when the prompt was never listed, when the request
// carried a multi-round state (a state the server rejects is -32602), or
// when the answer is another error. The TypeScript SDK's McpServer 1.10 to
// 1.24 refused such a prompt whenever "arguments" was absent.
func TestPromptArgumentsRefused(t *testing.T) {
	const list = `> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"hello","arguments":[{"name":"who"}]},{"name":"bare"}]}}`
	refuse := `< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid arguments"}}`
	for _, tc := range []struct {
		name, conv string
		want       bool
	}{
		{"no arguments", list + "\n" + `> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"hello"}}` + "\n" + refuse, true},
		{"empty arguments", list + "\n" + `> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"bare","arguments":{}}}` + "\n" + refuse, true},
		{"an argument given", list + "\n" + `> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"hello","arguments":{"who":""}}}` + "\n" + refuse, false},
		{"listing stale", list + "\n" + `< {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"hello"}}` + "\n" + refuse, false},
		{"never listed", `> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"hello"}}` + "\n" + refuse, false},
		{"internal error", list + "\n" + `> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"hello"}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"boom"}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, frames := run(t, "$INIT\n"+tc.conv)
			if got := contains(codes(frames), "prompt-arguments-refused"); got != tc.want {
				t.Fatalf("raised %v, want prompt-arguments-refused: %v", codes(frames), tc.want)
			}
		})
	}
	// A 2026-07-28 retry whose requestState the server rejects.
	conv := "$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[{"name":"hello"}],"ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"hello","requestState":"forged",$META}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid requestState"}}`
	if _, frames := run(t, conv); contains(codes(frames), "prompt-arguments-refused") {
		t.Errorf("a rejected requestState drew prompt-arguments-refused: %v", codes(frames))
	}
}
