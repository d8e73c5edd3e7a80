package protocol

import (
	"strings"
	"testing"

	"linesman/wire"
)

// ruleCase is a rule with a conversation that breaks it and one that keeps it.
type ruleCase struct {
	code, bad, good string
}

// allowed are codes a conforming conversation may raise: the client's
// fault the server's conforming answer reacts to.
var allowed = map[string]string{"malformed-request-answered": "request-meta-missing"}

var ruleCases = []ruleCase{
	// ids a JavaScript host reads rounded
	{"id-unsafe-integer",
		"$INIT\n" + `< {"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		"$INIT\n" + `< {"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`},
	{"id-unsafe-integer",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":-18446744073709551616}}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":"18446744073709551616"}}}`},
	// lifecycle
	{"initialize-not-first",
		`> {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
	{"initialize-protocol-version-invalid",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":20251125,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{"initialize-params-invalid",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"t","version":"1"}}}`,
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{"request-before-initialize-result",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
> {"jsonrpc":"2.0","id":1,"method":"ping"}`},
	{"initialized-not-sent",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
	{"initialize-result-version-invalid",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"latest","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`},
	{"initialize-result-invalid",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}`,
		"$INIT"},
	{"discover-not-implemented",
		`> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`,
		// a legacy server probed by a dual-era client: -32601, then initialize.
		`> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`},
	// issue 28's misses
	{"capability-error-incomplete",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{},$META}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"needs elicitation"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{},$META}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"needs elicitation","data":{"requiredCapabilities":{"elicitation":{}}}}}`},
	{"trace-context-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"traceparent":"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"rojo=00f067aa0ba902b7"}}}`},
	{"cache-scope-inconsistent",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[],"nextCursor":"p2","ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{"cursor":"p2",$META}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","prompts":[],"ttlMs":0,"cacheScope":"private"}}`,
		// ttlMs may differ from page to page; a new walk may change the scope.
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[],"nextCursor":"p2","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{"cursor":"p2",$META}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","prompts":[],"ttlMs":5000,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":3,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","prompts":[],"ttlMs":0,"cacheScope":"public"}}`},
	{"subscription-close-not-empty",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},$META}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},$META}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`},
	{"unsupported-version-answered",
		`> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2025-11-25"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`,
		`> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2025-11-25"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":"2026-07-28","supported":["2025-11-25"]}}}`},
	{"embedded-resource-undeclared",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource","resource":{"uri":"file:///a.txt","text":"a"}}]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource","resource":{"uri":"file:///a.txt","text":"a"}}]}}`},
	{"unlisted-target-answered",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"greet"}]}}
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"gret"}}
< {"jsonrpc":"2.0","id":2,"result":{"messages":[]}}`,
		// a listing cut short by a cursor, or one the server said changed,
		// is no complete list of names; an unknown name refused is right.
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"greet"}],"nextCursor":"2"}}
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"later"}}
< {"jsonrpc":"2.0","id":2,"result":{"messages":[]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/list"}
< {"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"b","arguments":{}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[]}}
> {"jsonrpc":"2.0","id":5,"method":"tools/list"}
< {"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"c","arguments":{}}}
< {"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Unknown tool: c"}}`},
	// capabilities
	{"undeclared-capability",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[]}}`},
	{"undeclared-capability-request",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}}`},
	{"undeclared-client-capability",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}`,
		"$INIT\n" + `< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}`},
	{"list-changed-undeclared",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		"$INIT\n" + `< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`},
	{"logging-undeclared",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`,
		"$INIT\n" + `< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`},
	// shapes
	{"notification-with-id",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":9,"method":"notifications/roots/list_changed"}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`},
	{"wrong-direction",
		"$INIT\n" + `< {"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
		"$INIT\n" + `< {"jsonrpc":"2.0","id":7,"method":"roots/list"}`},
	{"declared-method-not-found",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":5,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`},
	{"input-error-as-protocol-error",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{"n":"x"}}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid arguments"}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool: b"}}`},
	{"x-mcp-header-invalid",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[{"name":"q","inputSchema":{"type":"object","properties":{"amount":{"type":"number","x-mcp-header":"Amount"}}}}]}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[{"name":"q","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}}`},
	{"elicitation-requests-secret",
		"$INIT\n" + `< {"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Connect your account","requestedSchema":{"type":"object","properties":{"user":{"type":"string"},"api_key":{"type":"string"}},"required":["user","api_key"]}}}`,
		"$INIT\n" + `< {"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Which account?","requestedSchema":{"type":"object","properties":{"user":{"type":"string"},"token_budget":{"type":"integer"}},"required":["user"]}}}`},
	{"sampling-tool-results-invalid",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{"tools":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Weather in Paris and London?"}},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"w","input":{"city":"Paris"}},{"type":"tool_use","id":"c2","name":"w","input":{"city":"London"}}]},{"role":"user","content":[{"type":"tool_result","toolUseId":"c1","content":[{"type":"text","text":"18C"}]}]}],"tools":[{"name":"w","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}],"maxTokens":100}}`,
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{"tools":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Weather in Paris and London?"}},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"w","input":{"city":"Paris"}},{"type":"tool_use","id":"c2","name":"w","input":{"city":"London"}}]},{"role":"user","content":[{"type":"tool_result","toolUseId":"c2","content":[{"type":"text","text":"15C"}]},{"type":"tool_result","toolUseId":"c1","content":[{"type":"text","text":"18C"}]}]},{"role":"user","content":{"type":"text","text":"Compare them."}}],"tools":[{"name":"w","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}],"maxTokens":100}}`},
	{"sampling-context-undeclared",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Summarize the open files."}}],"maxTokens":100,"includeContext":"thisServer"}}`,
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{"context":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Summarize the open files."}}],"maxTokens":100,"includeContext":"thisServer"}}`},
	{"sampling-tool-use-unoffered",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{"tools":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Weather in Paris?"}}],"tools":[{"name":"w","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"none"},"maxTokens":100}}
> {"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":{"type":"tool_use","id":"c1","name":"w","input":{}},"model":"m","stopReason":"toolUse"}}`,
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{"tools":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Weather in Paris?"}}],"tools":[{"name":"w","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"none"},"maxTokens":100}}
> {"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":{"type":"text","text":"I cannot tell."},"model":"m","stopReason":"endTurn"}}`},
	{"elicitation-answer-invalid",
		"$INIT\n" + `< {"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"How many?","requestedSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1},"unit":{"type":"string","enum":["kg","lb"]}},"required":["n"]}}}
> {"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"unit":"g"}}}`,
		"$INIT\n" + `< {"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"How many?","requestedSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1},"unit":{"type":"string","enum":["kg","lb"]}},"required":["n"]}}}
> {"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"n":3,"unit":"kg"}}}
< {"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{"message":"How many?","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}}
> {"jsonrpc":"2.0","id":"e2","result":{"action":"decline"}}`},
	// tasks (2025-11-25)
	{"task-left-terminal-status",
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},"task":{"ttl":60000}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":60000}}}
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":{"taskId":"t1","status":"completed","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:05Z","ttl":60000}}
> {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:06Z","ttl":60000}}`,
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},"task":{"ttl":60000}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":60000}}}
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":{"taskId":"t1","status":"input_required","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:05Z","ttl":60000}}
> {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:06Z","ttl":60000}}
> {"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":4,"result":{"taskId":"t1","status":"completed","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:09Z","ttl":60000}}`},
	{"task-id-reused",
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"job","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:01Z","lastUpdatedAt":"2025-11-25T10:00:01Z","ttl":null}}}`,
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"job","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t2","status":"working","createdAt":"2025-11-25T10:00:01Z","lastUpdatedAt":"2025-11-25T10:00:01Z","ttl":null}}}`},
	{"task-cancelled-by-notification",
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`,
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"either","arguments":{}}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}
> {"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"cancelled","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:01Z","ttl":null}}`},
	{"url-elicitation-error-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"files","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"This request requires more information.","data":{"elicitations":[{"mode":"url","url":"https://mcp.example.com/connect","message":"Authorize access"}]}}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"files","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"This request requires more information.","data":{"elicitations":[{"mode":"url","elicitationId":"e-1","url":"https://mcp.example.com/connect","message":"Authorize access"}]}}}`},
	{"task-cancel-invalid",
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}
> {"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:01Z","ttl":null}}`,
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}
> {"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":{"taskId":"t1","status":"cancelled","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:01Z","ttl":null}}
> {"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Task already cancelled"}}`},
	{"task-result-untagged",
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"either","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}
> {"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}`,
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"either","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}
> {"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}}`},
	{"task-support-violated",
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{}}}`,
		"$TASKS\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"either","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"job","arguments":{},"task":{"ttl":1000}}}`},
	{"ping-refused",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":5,"method":"ping"}
< {"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":5,"method":"ping"}
< {"jsonrpc":"2.0","id":5,"result":{}}`},
	{"params-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"resources/read","params":{}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a"}}`},
	{"result-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}
< {"jsonrpc":"2.0","id":1,"result":{"text":"hi"}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`},
	// error codes
	{"withdrawn-error-code",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///x",$META}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///x",$META}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Resource not found"}}`},
	{"legacy-error-code",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",$META}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"busy"}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"busy"}}`},
	{"undefined-reserved-error-code",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",$META}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"nope"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",$META}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"needs elicitation","data":{"requiredCapabilities":{"elicitation":{}}}}}`},
	{"reserved-range-error-code",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32500,"message":"app failure"}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}
< {"jsonrpc":"2.0","id":1,"error":{"code":1001,"message":"app failure"}}`},
	// ids and cancellation
	{"cancel-without-request-id",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"user"}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`},
	{"cancel-initialize",
		`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`},
	{"server-cancel-misused",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",$META}}
< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},$META}}
< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`},
	// tools
	{"tool-name-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get weather!","inputSchema":{"type":"object"}}]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_weather.v2-x","inputSchema":{"type":"object"}}]}}`},
	{"tool-name-duplicate",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}}]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}}`},
	{"tool-input-schema-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":null}]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","additionalProperties":false}}]}}`},
	{"tool-output-schema-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":"number"}]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}}}}]}}`},
	{"tool-schema-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integr"}}}}]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{"n":1}}}`},
	{"tool-arguments-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{"n":"one"}}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{"n":1}}}`},
	{"structured-content-missing",
		"$INIT\n" + outputTool + `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"22"}]}}`,
		"$INIT\n" + outputTool + `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"t\":22}"}],"structuredContent":{"t":22}}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"w","arguments":{}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"failed"}],"isError":true}}`},
	{"structured-content-invalid",
		"$INIT\n" + outputTool + `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"t\":\"hot\"}"}],"structuredContent":{"t":"hot"}}}`,
		"$INIT\n" + outputTool + `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"t\":22}"}],"structuredContent":{"t":22}}}`},
	{"structured-content-without-text",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"t":22}}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"t\":22}"}],"structuredContent":{"t":22}}}`},
	{"tools-list-order-changed",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[{"name":"b","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public"}}`},
	// content, resources, prompts, pagination
	{"content-block-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"resource","resource":{"uri":"file:///a"}}]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"x"}},{"type":"resource_link","uri":"file:///b","name":"b"},{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]}}`},
	{"invalid-base64",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"image","data":"not base64!","mimeType":"image/png"}]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}}`},
	{"resource-uri-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"resources/list"}
< {"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"docs/readme.md","name":"readme"}]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"resources/list"}
< {"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"file:///docs/readme.md","name":"readme"},{"uri":"my-app+x://item/42","name":"x"}]}}`},
	{"prompt-required-argument-missing",
		"$INIT\n" + promptList + `
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"review","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"result":{"messages":[{"role":"user","content":{"type":"text","text":"review {code}"}}]}}`,
		"$INIT\n" + promptList + `
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"review","arguments":{}}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"missing code"}}
> {"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"review","arguments":{"code":"x"}}}
< {"jsonrpc":"2.0","id":3,"result":{"messages":[{"role":"user","content":{"type":"text","text":"review x"}}]}}`},
	{"prompt-arguments-refused",
		"$INIT\n" + promptList + `
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"hello"}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid arguments for prompt hello: expected object, received undefined"}}`,
		"$INIT\n" + promptList + `
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"hello"}}
< {"jsonrpc":"2.0","id":2,"result":{"messages":[{"role":"user","content":{"type":"text","text":"hello world"}}]}}
> {"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"review"}}
< {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"missing code"}}
> {"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"nope"}}
< {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Unknown prompt: nope"}}`},
	{"unknown-cursor",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"page-2"}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[],"nextCursor":"page-2"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"page-2"}}`},
	// 2026-07-28
	{"request-meta-missing",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}`},
	{"malformed-request-answered",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"missing clientCapabilities"}}`},
	{"meta-key-invalid",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"example.com./trace":"1"}}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"com.example/trace-id":"1","progressToken":1,"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"}}}`},
	{"extension-id-invalid",
		`> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"ui":{}}}}}}`,
		`> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{}}}}}}`},
	{"removed-method",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info",$META}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`},
	{"cache-hint-missing",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[]}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[],"ttlMs":60000,"cacheScope":"private"}}`},
	{"cache-hint-invalid",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[],"ttlMs":-1,"cacheScope":"public"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[],"ttlMs":0,"cacheScope":"public"}}`},
	{"input-required-unsupported-method",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`},
	{"input-required-empty",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{}}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"login":{"method":"elicitation/create","params":{"message":"who?","requestedSchema":{"type":"object","properties":{}}}}}}}`},
	{"input-request-unknown-method",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"x":{"method":"tools/call","params":{"name":"y"}}}}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"x":{"method":"roots/list"}}}}`},
	{"input-request-undeclared-capability",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"x":{"method":"roots/list"}}}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"needs roots","data":{"requiredCapabilities":{"roots":{}}}}}`},
	{"retry-missing-input-responses", mrtr + `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","requestState":"st-1",$META}}`, mrtr + retryOK},
	{"request-state-not-echoed", mrtr + `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","inputResponses":{"login":{"action":"accept","content":{"name":"o"}}},"requestState":"st-2",$META}}`, mrtr + retryOK},
	{"unsolicited-request-state",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","requestState":"forged",$META}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}`},
	{"retry-reused-id", mrtr + `
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","inputResponses":{"login":{"action":"accept","content":{"name":"o"}}},"requestState":"st-1",$META}}`, mrtr + retryOK},
	{"request-state-misused", mrtr + `
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"p","requestState":"st-1",$META}}`, mrtr + retryOK},
	{"subscription-notification-untagged", listen + `
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, listen + `
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`},
	{"subscription-unknown", listen + `
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":8}}}`, listen},
	{"subscription-before-ack",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},$META}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`, listen},
	{"subscription-not-requested", listen + `
< {"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`, listen + `
< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a/b","_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`},
	{"log-without-level",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}`},
	{"log-below-level",
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"warning"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"working"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"warning"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"working"}}`},
}

const (
	outputTool = `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"w","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"t":{"type":"number"}},"required":["t"]}}]}}`
	promptList = `> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"review","arguments":[{"name":"code","required":true},{"name":"style"}]},{"name":"hello","arguments":[{"name":"who"}]}]}}`
	mrtr = "$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w",$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"login":{"method":"elicitation/create","params":{"message":"who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"st-1"}}`
	retryOK = `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","inputResponses":{"login":{"action":"accept","content":{"name":"o"}}},"requestState":"st-1",$META}}
< {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hi o"}]}}`
	listen = "$DISCOVER\n" + `> {"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a/"]},$META}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a/"]},"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`
)

// TestRules drives each rule's violating and conforming conversation
// through the judge: the violating one raises the rule, the conforming one
// raises no protocol warning or error at all.
func TestRules(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range ruleCases {
		t.Run(c.code, func(t *testing.T) {
			seen[c.code] = true
			if _, ok := wire.Lookup(c.code); !ok {
				t.Fatalf("%s is not registered", c.code)
			}
			_, bad := run(t, c.bad)
			if got := codes(bad); !contains(got, c.code) {
				t.Errorf("violating conversation raised %v, want %s", got, c.code)
			}
			_, good := run(t, c.good)
			for _, f := range good {
				for _, fd := range f.frame.Findings {
					if fd.Severity >= wire.SeverityWarning && fd.Code != allowed[c.code] {
						t.Errorf("conforming conversation raised %s: %s", fd.Code, fd.Message)
					}
				}
			}
		})
	}
	for _, i := range wire.ProtocolRules() {
		if !seen[i.Code] {
			t.Errorf("rule %s has no table case", i.Code)
		}
	}
}

// TestEveryRaisedCodeIsRegistered scans the package for raise calls.
func TestRegistryEntriesAreComplete(t *testing.T) {
	for _, i := range wire.ProtocolRules() {
		if i.Family == "" || i.Eras == "" || i.Title == "" || i.Why == "" || i.Fix == "" || !strings.Contains(i.Spec, `"`) {
			t.Errorf("%s: incomplete entry (family, eras, title, why, fix and a quoted clause are required)", i.Code)
		}
	}
}

func init() {
	// A server icon's theme out of its enum: no hand-written rule looks there.
	const initialize = `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	ruleCases = append(ruleCases, ruleCase{"schema-invalid",
		initialize + `
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1","icons":[{"src":"x","theme":"blue"}]}}}`,
		initialize + `
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1","icons":[{"src":"x","theme":"dark"}]}}}`})
}

// moreCases are second conversations of rules that ruleCases already hold:
// the forms of issue 28's misses.
var moreCases = []ruleCase{
	// a malformed request of any era, answered: the server's fault too.
	{"malformed-request-answered",
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"name is required"}}`},
	// logging in 2026-07-28: declared in the server/discover result.
	{"logging-undeclared",
		`> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
		"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`},
}

// TestRulesMore holds moreCases as TestRules holds ruleCases.
func TestRulesMore(t *testing.T) {
	for _, c := range moreCases {
		t.Run(c.code, func(t *testing.T) {
			_, bad := run(t, c.bad)
			if got := codes(bad); !contains(got, c.code) {
				t.Errorf("violating conversation raised %v, want %s", got, c.code)
			}
			_, good := run(t, c.good)
			for _, f := range good {
				for _, fd := range f.frame.Findings {
					if fd.Severity >= wire.SeverityWarning && f.dir == wire.ServerToClient {
						t.Errorf("conforming conversation raised %s: %s", fd.Code, fd.Message)
					}
				}
			}
		})
	}
}

// TestAbsentNamedAbsent: a member that is not there is called absent,
// never printed as empty text ("params.level is ;").
func TestAbsentNamedAbsent(t *testing.T) {
	_, out := run(t, "$INIT\n"+`> {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}`)
	n := 0
	for _, f := range out {
		for _, fd := range f.frame.Findings {
			if fd.Code != "params-invalid" {
				continue
			}
			n++
			if !strings.Contains(fd.Message, "level is absent") && !strings.Contains(fd.Message, "has level absent") {
				t.Errorf("%q does not name the level absent", fd.Message)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d params-invalid, want 2", n)
	}
}
