package protocol

import (
	"testing"

	"linesman/wire"
)

// modernCases are rules of both eras judged in a 2026-07-28 conversation
// (ruleCases hold their legacy form): the rule holds the same way when the
// era is decided by server/discover and every request carries its _meta.
var modernCases = []ruleCase{
	{"tool-name-invalid",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"a.b-c_d","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public"}}`},
	{"tool-input-schema-invalid",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"a","inputSchema":{"type":"array"}}],"ttlMs":0,"cacheScope":"public"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"a","inputSchema":{"type":"object","oneOf":[{"required":["x"]},{"required":["y"]}]}}],"ttlMs":0,"cacheScope":"public"}}`},
	{"structured-content-invalid",
		"$DISCOVER\n" + modernOutputTool + `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","arguments":{},$META}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"[1]"}],"structuredContent":[1]}}`,
		// 2026-07-28 lets structuredContent be any JSON value the schema allows.
		"$DISCOVER\n" + modernOutputTool + `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","arguments":{},$META}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"[\"a\"]"}],"structuredContent":["a"]}}`},
	{"invalid-base64",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a.bin",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","contents":[{"uri":"file:///a.bin","blob":"AAA"}],"ttlMs":0,"cacheScope":"private"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a.bin",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","contents":[{"uri":"file:///a.bin","blob":"AAA="}],"ttlMs":0,"cacheScope":"private"}}`},
	{"resource-uri-invalid",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"resource_link","uri":"/etc/hosts","name":"hosts"}]}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"resource_link","uri":"file:///etc/hosts","name":"hosts"}]}}`},
	{"unknown-cursor",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{"cursor":"2",$META}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[],"nextCursor":"","ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{"cursor":"",$META}}`},
	{"undeclared-capability",
		`> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[],"ttlMs":0,"cacheScope":"public"}}`,
		`> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`},
	{"notification-with-id",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":5,"method":"notifications/cancelled","params":{"requestId":1,$META}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`},
}

const modernOutputTool = `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"w","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"string"}}}],"ttlMs":0,"cacheScope":"public"}}`

// TestRulesModern is TestRules for the 2026-07-28 form of rules of both eras.
func TestRulesModern(t *testing.T) {
	for _, c := range modernCases {
		t.Run(c.code, func(t *testing.T) {
			j, bad := run(t, c.bad)
			if e, _ := j.Era(); e != EraModern {
				t.Fatalf("era %v, want modern", e)
			}
			if got := codes(bad); !contains(got, c.code) {
				t.Errorf("violating conversation raised %v, want %s", got, c.code)
			}
			_, good := run(t, c.good)
			for _, f := range good {
				for _, fd := range f.frame.Findings {
					if fd.Severity >= wire.SeverityWarning {
						t.Errorf("conforming conversation raised %s: %s", fd.Code, fd.Message)
					}
				}
			}
		})
	}
}
