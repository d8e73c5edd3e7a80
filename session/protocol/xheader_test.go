package protocol

import (
	"strings"
	"testing"
)

// x-mcp-header's constraints (2026-07-28), each broken once, and kept.
func TestXMcpHeader(t *testing.T) {
	listing := func(props string) string {
		return "$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[{"name":"q","inputSchema":{"type":"object","properties":` + props + `}}]}}`
	}
	cases := []struct {
		name, props string
		want        int
	}{
		{"kept: string, integer and boolean, a nested one, a default holding the key as data",
			`{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"X-Count"},"b":{"type":"boolean","x-mcp-header":"Flag_1"},"o":{"type":"object","properties":{"t":{"type":"string","x-mcp-header":"Tenant"}}},"d":{"type":"object","default":{"x-mcp-header":"not an annotation"}},"x-mcp-header":{"type":"string"}}`, 0},
		{"empty", `{"a":{"type":"string","x-mcp-header":""}}`, 1},
		{"not a token", `{"a":{"type":"string","x-mcp-header":"Bad Header"}}`, 1},
		{"a control character", `{"a":{"type":"string","x-mcp-header":"X\r\nInjected: 1"}}`, 1},
		{"not a string", `{"a":{"type":"string","x-mcp-header":7}}`, 1},
		{"duplicate ignoring case", `{"a":{"type":"string","x-mcp-header":"Tenant"},"b":{"type":"string","x-mcp-header":"tenant"}}`, 1},
		{"on a number", `{"a":{"type":"number","x-mcp-header":"Amount"}}`, 1},
		{"on an array", `{"a":{"type":"array","items":{"type":"string"},"x-mcp-header":"List"}}`, 1},
		{"under items", `{"a":{"type":"array","items":{"type":"object","properties":{"h":{"type":"string","x-mcp-header":"H"}}}}}`, 1},
		{"under anyOf", `{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"},{"type":"integer"}]}}`, 1},
	}
	for _, tc := range cases {
		_, frames := run(t, listing(tc.props))
		n := 0
		for _, c := range codes(frames) {
			if c == "x-mcp-header-invalid" {
				n++
			} else {
				t.Errorf("%s: also raised %s", tc.name, c)
			}
		}
		if n != tc.want {
			t.Errorf("%s: %d x-mcp-header-invalid, want %d", tc.name, n, tc.want)
		}
	}
	// Before 2026-07-28 the annotation is an unknown keyword: no rule.
	_, frames := run(t, "$INIT\n"+`> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"q","inputSchema":{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"Bad Header"}}}}]}}`)
	if got := codes(frames); len(got) != 0 {
		t.Errorf("2025-11-25: raised %s", strings.Join(got, " "))
	}
}
