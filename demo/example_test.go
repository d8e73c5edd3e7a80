package demo_test

import (
	"io"
	"os"
	"strings"

	"linesman/demo"
)

// Serve speaks MCP over any reader and writer: here one modern request in,
// one compact line out, with resultType first.
func ExampleServe() {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"<hi & bye>"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n")
	demo.Serve(in, os.Stdout, io.Discard, demo.Options{})
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"text":"<hi & bye>","type":"text"}]}}
}
