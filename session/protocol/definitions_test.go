package protocol

import (
	"strings"
	"testing"
)

// shapeCases: each conversation, after the 2025-11-25 handshake unless it
// brings its own, raises exactly the codes listed (none: it conforms).
var shapeCases = []struct {
	name, conv string
	want       []string
}{
	{"server sends a client's request", `< {"jsonrpc":"2.0","id":5,"method":"tools/list"}`, []string{"wrong-direction"}},
	{"server sends initialized", `< {"jsonrpc":"2.0","method":"notifications/initialized"}`, []string{"wrong-direction"}},
	{"client sends a server's notification", `> {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, []string{"wrong-direction"}},
	{"client sends a log message", `> {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`, []string{"wrong-direction"}},
	{"ping goes both ways", `< {"jsonrpc":"2.0","id":5,"method":"ping"}
> {"jsonrpc":"2.0","id":6,"method":"ping"}`, nil},
	{"progress goes both ways", `< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}
> {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`, nil},
	{"an extension's method is not judged", `< {"jsonrpc":"2.0","method":"notifications/acme/ready"}`, nil},

	{"a result that is an array", `> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":[]}`, []string{"result-invalid"}},
	{"a result that is null", `> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":null}`, []string{"result-invalid"}},
	{"an empty result", `> {"jsonrpc":"2.0","id":1,"method":"ping"}
< {"jsonrpc":"2.0","id":1,"result":{}}`, nil},

	{"progress token of a boolean", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":true}}}`, []string{"params-invalid"}},
	{"progress token of a number", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1.5}}}`, nil},

	{"tool with a numeric title", `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","title":5,"inputSchema":{"type":"object"}}]}}`, []string{"result-invalid"}},
	{"tool hint of a string", `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}]}}`, []string{"result-invalid"}},
	{"tool with all its members right", `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","title":"A","description":"d","inputSchema":{"type":"object"},"annotations":{"title":"A","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"outputSchema":{"type":"object"}}]}}`, nil},
	{"outputSchema of an array", `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}]}}`, []string{"tool-output-schema-invalid"}},
	{"isError of a string", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":"true"}}`, []string{"result-invalid"}},

	{"prompt without a name", `> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"description":"d"}]}}`, []string{"result-invalid"}},
	{"prompt argument without a name", `> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"p","arguments":[{"required":true}]}]}}`, []string{"result-invalid"}},
	{"prompt message of the system role", `> {"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p"}}
< {"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}}`, []string{"result-invalid"}},
	{"prompts right", `> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"p","title":"P","arguments":[{"name":"a","required":true}]}]}}
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"p","arguments":{"a":"1"}}}
< {"jsonrpc":"2.0","id":2,"result":{"messages":[{"role":"user","content":{"type":"text","text":"x"}},{"role":"assistant","content":{"type":"text","text":"y"}}]}}`, nil},

	{"resource without a name", `> {"jsonrpc":"2.0","id":1,"method":"resources/list"}
< {"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"file:///a"}]}}`, []string{"result-invalid"}},
	{"template without uriTemplate", `> {"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}
< {"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[{"name":"t"}]}}`, []string{"result-invalid"}},
	{"resources right", `> {"jsonrpc":"2.0","id":1,"method":"resources/list"}
< {"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"file:///a","name":"a","mimeType":"text/plain","size":3}]}}
> {"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}
< {"jsonrpc":"2.0","id":2,"result":{"resourceTemplates":[{"uriTemplate":"file:///{p}","name":"t"}]}}`, nil},

	{"sampling without maxTokens", `< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}}`, []string{"params-invalid"}},
	{"sampling right, content as an array (2025-11-25)", `< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"maxTokens":9}}`, nil},
	{"elicitation of a nested object", `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}}`, []string{"params-invalid"}},
	{"elicitation right, with a multi-select (2025-11-25)", `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"array","items":{"type":"string","enum":["x"]}}}}}}`, nil},
	{"url elicitation without its url", handshake(`{"elicitation":{"url":{}}}`) + `
< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"mode":"url","message":"m","elicitationId":"e"}}`, []string{"params-invalid"}},
	{"url elicitation to a client that declared form mode only", `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"mode":"url","message":"m","elicitationId":"e","url":"https://example.com/x"}}`, []string{"undeclared-client-capability"}},
	{"url elicitation right", handshake(`{"elicitation":{"form":{},"url":{}}}`) + `
< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"mode":"url","message":"m","elicitationId":"e","url":"https://example.com/x"}}`, nil},
	{"form elicitation to a client that declared url mode only", handshake(`{"elicitation":{"url":{}}}`) + `
< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}}`, []string{"undeclared-client-capability"}},
	{"sampling with tools, sampling.tools undeclared", `< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":9,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`, []string{"undeclared-client-capability"}},
	{"sampling with tools, sampling.tools declared", handshake(`{"sampling":{"tools":{}}}`) + `
< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":9,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`, nil},

	{"ping refused by the client", `< {"jsonrpc":"2.0","id":5,"method":"ping"}
> {"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`, []string{"ping-refused"}},
	{"roots list_changed undeclared", handshake(`{"roots":{}}`) + `
> {"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, []string{"list-changed-undeclared"}},
	{"resources/updated without a uri", `< {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{}}`, []string{"params-invalid"}},
	{"log below the level set", `> {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"before the answer: not judged"}}
< {"jsonrpc":"2.0","id":1,"result":{}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`, []string{"log-below-level"}},
	{"annotations out of range", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x","annotations":{"priority":5,"audience":["system"]}}]}}`, []string{"content-block-invalid", "content-block-invalid"}},
	{"image of a mimeType that is no media type", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"aGk=","mimeType":"png"}]}}`, []string{"content-block-invalid"}},
	{"content right, with annotations", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x","annotations":{"priority":0.5,"audience":["user","assistant"],"lastModified":"2025-01-12T15:00:58Z"}},{"type":"image","data":"aGk=","mimeType":"image/svg+xml; charset=utf-8"}]}}`, nil},
	{"an elicited value of an object", `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}}
> {"jsonrpc":"2.0","id":5,"result":{"action":"accept","content":{"a":{"city":"x"}}}}`, []string{"result-invalid"}},
	{"elicited values right (a multi-select's list, 2025-11-25)", `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"string","enum":["x","y"]}}}}}}
> {"jsonrpc":"2.0","id":5,"result":{"action":"accept","content":{"a":"x","b":["x","y"],"c":3,"d":true}}}`, nil},

	{"completion with a bare ref type and a number for value", `> {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"prompt","name":"p"},"argument":{"name":"a","value":3}}}`, []string{"params-invalid", "params-invalid"}},
	{"completion total of a string", `> {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"file:///{x}"},"argument":{"name":"x","value":""}}}
< {"jsonrpc":"2.0","id":1,"result":{"completion":{"values":["a"],"total":"many"}}}`, []string{"result-invalid"}},
	{"completion right", `> {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}}
< {"jsonrpc":"2.0","id":1,"result":{"completion":{"values":["a"],"total":1,"hasMore":false}}}`, nil},
	{"tool icons and execution of the wrong shapes", `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"icons":[{"src":"i.png","theme":"blue"}],"execution":{"taskSupport":"sometimes"}}]}}`, []string{"result-invalid", "result-invalid"}},
	{"tool icons and execution right", `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"icons":[{"src":"https://x/i.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}],"execution":{"taskSupport":"optional"}}]}}`, nil},
	{"an enum field whose default is none of its values", `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"c":{"type":"string","enum":["a","b"],"default":"z"}}}}}`, []string{"params-invalid"}},
	{"a string field of an unknown format", `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"p":{"type":"string","format":"phone"}}}}}`, []string{"params-invalid"}},
	{"a multi-select of numbers", `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"m":{"type":"array","items":{"type":"number"}}}}}}`, []string{"params-invalid"}},
	{"form fields right, with defaults (2025-11-25)", `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"c":{"type":"string","enum":["a","b"],"default":"b"},"e":{"type":"string","format":"email","default":"a@b.c"},"n":{"type":"integer","minimum":1,"default":3},"b":{"type":"boolean","default":false},"t":{"type":"string","oneOf":[{"const":"x","title":"X"}]},"m":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}},"required":["c"]}}}`, nil},
	{"a task-augmented call to a server without tasks", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{},"task":{"ttl":1000}}}`, []string{"undeclared-capability-request"}},
	{"a task-augmented call of a tool that forbids it", strings.Replace(handshake(`{}`), `"tools":{}`, `"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}`, 1) + `
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{},"task":{"ttl":1000}}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"b","arguments":{},"task":{"ttl":1000}}}`, []string{"undeclared-capability-request"}},
	{"serverInfo without a version", `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s"}}}`, []string{"initialize-result-invalid"}},
	{"instructions that are not a string", `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"},"instructions":["use x"]}}`, []string{"initialize-result-invalid"}},
	{"capabilities of the wrong types", `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":"yes"}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":true,"resources":{"subscribe":"yes"},"acme":5},"serverInfo":{"name":"s","version":"1"}}}`, []string{"initialize-params-invalid", "initialize-result-invalid", "initialize-result-invalid"}},
	{"capabilities right, an unknown one of any shape", `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"t","version":"1","title":"T"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false},"resources":{"subscribe":true},"logging":{},"completions":{},"experimental":{"x":{}},"acme":true},"serverInfo":{"name":"s","version":"1"},"instructions":"use x"}}`, nil},
	{"clientInfo without a version", `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t"}}}`, []string{"initialize-params-invalid"}},
}

func TestShapesOfDefinitions(t *testing.T) {
	for _, tc := range shapeCases {
		t.Run(tc.name, func(t *testing.T) {
			conv := tc.conv
			if !strings.Contains(conv, `"initialize"`) {
				conv = "$INIT\n" + conv
			}
			_, frames := run(t, conv)
			got := codes(frames)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("raised %q, want %q", got, tc.want)
			}
		})
	}
}

// Members a revision does not define are extra members there: a title of
// 5 on a tool is no foul in 2025-03-26 (title came with 2025-06-18), nor
// annotations of any shape in 2024-11-05, nor an outputSchema of type
// array before 2025-06-18 (outputSchema is an extra member there); a
// multi-select elicitation field, or sampling content given as an array,
// is one in 2025-06-18 (both came with 2025-11-25).
func TestShapesFollowTheRevision(t *testing.T) {
	cases := []struct {
		version, conv string
		want          []string
	}{
		{V20250326, `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","title":5,"inputSchema":{"type":"object"}}]}}`, nil},
		{V20241105, `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"annotations":"x"}]}}`, nil},
		{V20250326, `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"annotations":"x"}]}}`, []string{"result-invalid"}},
		{V20250326, `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}]}}`, nil},
		{V20250618, `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}]}}`, []string{"tool-output-schema-invalid"}},
		{V20250618, `< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"c":{"type":"array","items":{"type":"string","enum":["x"]}}}}}}`, []string{"params-invalid"}},
		{V20250618, `< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"maxTokens":9}}`, []string{"params-invalid"}},
	}
	for _, tc := range cases {
		_, frames := run(t, strings.ReplaceAll(expand("$INIT\n"+tc.conv), V20251125, tc.version))
		if got := codes(frames); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: %s\nraised %q, want %q", tc.version, tc.conv, got, tc.want)
		}
	}
}

// The host's answers to the server's requests are judged as the server
// reads them.
func TestClientResults(t *testing.T) {
	cases := []struct {
		conv string
		want []string
	}{
		{`< {"jsonrpc":"2.0","id":5,"method":"roots/list"}
> {"jsonrpc":"2.0","id":5,"result":{"roots":[{"uri":"https://example.com"}]}}`, []string{"result-invalid"}},
		{`< {"jsonrpc":"2.0","id":5,"method":"roots/list"}
> {"jsonrpc":"2.0","id":5,"result":{"roots":[{"uri":"file:///home/u/p","name":"p"},{"uri":"FILE:///tmp"}]}}`, nil},
		{`< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}}
> {"jsonrpc":"2.0","id":5,"result":{"action":"ok"}}`, []string{"result-invalid"}},
		{`< {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}}
> {"jsonrpc":"2.0","id":5,"result":{"action":"accept","content":{"a":"x"}}}`, nil},
		{`< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":9}}
> {"jsonrpc":"2.0","id":5,"result":{"role":"assistant","content":{"type":"text","text":"y"}}}`, []string{"result-invalid"}},
		{`< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":9}}
> {"jsonrpc":"2.0","id":5,"result":{"role":"assistant","content":{"type":"text","text":"y"},"model":"m","stopReason":"endTurn"}}`, nil},
		{`< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":9}}
> {"jsonrpc":"2.0","id":5,"error":{"code":-1,"message":"declined by the user"}}`, nil},
	}
	for _, tc := range cases {
		_, frames := run(t, "$INIT\n"+tc.conv)
		if got := codes(frames); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s\nraised %q, want %q", tc.conv, got, tc.want)
		}
	}
}

// A task-augmented tools/call (2025-11-25) is answered with a
// CreateTaskResult, not a CallToolResult: no content is due.
func TestCreateTaskResult(t *testing.T) {
	const call = `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{},"task":{"ttl":60000}}}`
	cases := []struct {
		answer string
		want   []string
	}{
		{`< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":60000,"pollInterval":500}}}`, nil},
		{`< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}`, nil},
		{`< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"running","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}`, []string{"result-invalid"}},
		{`< {"jsonrpc":"2.0","id":1,"result":{"task":{"status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}`, []string{"result-invalid"}},
	}
	for _, tc := range cases {
		withTasks := strings.Replace(handshake(`{}`), `"tools":{}`, `"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}`, 1)
		_, frames := run(t, withTasks+"\n"+call+"\n"+tc.answer)
		if got := codes(frames); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s\nraised %q, want %q", tc.answer, got, tc.want)
		}
	}
}

// handshake is a 2025-11-25 handshake in which the client declares caps
// and the server every capability.
func handshake(caps string) string {
	return `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}`
}

// The optional members of prompts/get, notifications/message and
// notifications/progress have the types schema.ts gives them.
func TestOptionalParamTypes(t *testing.T) {
	cases := []struct {
		conv string
		want []string
	}{
		{`> {"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"n":5,"m":true}}}`, []string{"params-invalid"}},
		{`> {"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":["x"]}}`, []string{"params-invalid"}},
		{`> {"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"n":"5"}}}`, nil},
		{`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":5}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[],"_meta":"x"}}`, []string{"params-invalid", "result-invalid"}},
		{`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":null}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[],"_meta":null,"nextCursor":null}}`, nil},
		{`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":1}}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[],"_meta":{"example.com/trace":"t"}}}`, nil},
		{`< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5,"includeContext":"everything","temperature":"hot","modelPreferences":{"costPriority":2}}}`, []string{"params-invalid", "params-invalid", "params-invalid"}},
		{`< {"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5,"includeContext":"none","temperature":0.2,"stopSequences":["\n"],"systemPrompt":"be brief","modelPreferences":{"hints":[{"name":"claude"}],"costPriority":0.3,"intelligencePriority":1}}}`, nil},
		{`< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x","logger":7}}`, []string{"params-invalid"}},
		{`< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"a":1},"logger":"db"}}`, nil},
		{`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"t"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":"10","message":3}}`, []string{"params-invalid", "params-invalid"}},
		{`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"t"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":10,"message":"1 of 10"}}`, nil},
	}
	for _, tc := range cases {
		_, frames := run(t, "$INIT\n"+tc.conv)
		if got := codes(frames); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s\nraised %q, want %q", tc.conv, got, tc.want)
		}
	}
}

// notifications/initialized says initialization succeeded: sent before
// the initialize answer, it says so too early.
func TestInitializedBeforeTheAnswer(t *testing.T) {
	const ini = `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	const answer = `< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`
	const inited = `> {"jsonrpc":"2.0","method":"notifications/initialized"}`
	for _, tc := range []struct {
		conv string
		want []string
	}{
		{ini + "\n" + inited + "\n" + answer, []string{"request-before-initialize-result"}},
		{ini + "\n" + answer + "\n" + inited, nil},
	} {
		_, frames := run(t, tc.conv)
		if got := codes(frames); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s\nraised %q, want %q", tc.conv, got, tc.want)
		}
	}
}

// 2024-11-05 had completion/complete but no completions capability (its
// ServerCapabilities are experimental, logging, prompts, resources and
// tools; the capability came with 2025-03-26): a 2024-11-05 server that
// answers completion/complete without declaring it, and a host that asks,
// break nothing there (the TypeScript SDK's McpServer did so up to 1.10).
func TestCompletionsCapabilityCameWith20250326(t *testing.T) {
	const conv = `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"V","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"V","capabilities":{"prompts":{},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}}
< {"jsonrpc":"2.0","id":1,"result":{"completion":{"values":["xy"],"total":1,"hasMore":false}}}`
	for _, tc := range []struct {
		version string
		want    []string
	}{
		{V20241105, nil},
		{V20250326, []string{"undeclared-capability-request", "undeclared-capability"}},
		{V20251125, []string{"undeclared-capability-request", "undeclared-capability"}},
	} {
		_, frames := run(t, strings.ReplaceAll(conv, `"V"`, `"`+tc.version+`"`))
		if got := codes(frames); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: raised %q, want %q", tc.version, got, tc.want)
		}
	}
}
