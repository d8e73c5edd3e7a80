package protocol

import (
	"fmt"
	"strings"
	"testing"
)

// TestInputErrorCodes: arguments that fail the tool's inputSchema, answered
// with a JSON-RPC error, by code and revision. Invalid params, Invalid
// Request and Internal error report the input's failure as a protocol error
// (2025-11-25, Server › Tools › Error Handling: input validation errors are
// tool execution errors); a code that says something else first (no
// tools/call, authorization by URL, the application's own) is not judged,
// and nor is any code before 2025-11-25, or a request that fails
// CallToolRequest itself.
func TestInputErrorCodes(t *testing.T) {
	conv := func(version, args string, code int) string {
		return fmt.Sprintf(`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%[1]s","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%[1]s","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":%[2]s}}
< {"jsonrpc":"2.0","id":2,"error":{"code":%[3]d,"message":"no"}}`, version, args, code)
	}
	for _, c := range []struct {
		version, args string
		code          int
		want          bool
	}{
		{"2025-11-25", `{"n":"x"}`, -32602, true},
		{"2025-11-25", `{"n":"x"}`, -32603, true},
		{"2025-11-25", `{}`, -32600, true},
		{"2025-11-25", `{"n":1}`, -32603, false},   // valid arguments: a server error
		{"2025-11-25", `{"n":"x"}`, -32042, false}, // authorization by URL first
		{"2025-11-25", `{"n":"x"}`, -32000, false}, // the application's own (a rate limit)
		{"2025-11-25", `{"n":"x"}`, 1, false},      // likewise
		{"2025-11-25", `[1]`, -32603, false},       // a malformed request: params-invalid's
		{"2025-06-18", `{"n":"x"}`, -32603, false}, // before SEP-1303
		{"2025-06-18", `{"n":"x"}`, -32602, false},
	} {
		_, out := run(t, conv(c.version, c.args, c.code))
		got := contains(codes(out), "input-error-as-protocol-error")
		if got != c.want {
			t.Errorf("%s, arguments %s, answered %d: raised %v, want input-error-as-protocol-error %v", c.version, c.args, c.code, codes(out), c.want)
		}
		if got && !strings.Contains(out[len(out)-1].frame.Findings[0].Message, fmt.Sprint(c.code)) {
			t.Errorf("the finding does not name code %d: %s", c.code, out[len(out)-1].frame.Findings[0].Message)
		}
	}
}

// TestInputErrorTaskRequired: -32600 is how 2025-11-25 lets a server that
// may require tasks refuse a call that is not task-augmented (Tasks › Error
// Handling); from such a server it is not taken for the arguments' foul.
func TestInputErrorTaskRequired(t *testing.T) {
	conv := func(task string) string {
		return `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}},"execution":{"taskSupport":"optional"}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{"n":"x"}` + task + `}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Task augmentation required for tools/call requests"}}`
	}
	if _, out := run(t, conv("")); contains(codes(out), "input-error-as-protocol-error") {
		t.Errorf("a plain call refused -32600 by a server of task-augmented calls: %v", codes(out))
	}
	if _, out := run(t, conv(`,"task":{"ttl":1000}`)); !contains(codes(out), "input-error-as-protocol-error") {
		t.Errorf("a task-augmented call refused -32600 for its arguments: %v, want input-error-as-protocol-error", codes(out))
	}
}

// TestSamplingToolTurns: the tool turns of a 2025-11-25 sampling
// conversation, case by case (Client › Sampling › Message Content
// Constraints).
func TestSamplingToolTurns(t *testing.T) {
	const init = `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{"sampling":{"tools":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%[1]s","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"maxTokens":100,"messages":[%s]}}`
	const (
		ask  = `{"role":"user","content":{"type":"text","text":"q"}}`
		use  = `{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"w","input":{}},{"type":"tool_use","id":"c2","name":"w","input":{}}]}`
		use1 = `{"role":"assistant","content":{"type":"tool_use","id":"c1","name":"w","input":{}}}`
		both = `{"role":"user","content":[{"type":"tool_result","toolUseId":"c1","content":[]},{"type":"tool_result","toolUseId":"c2","content":[]}]}`
		one  = `{"role":"user","content":{"type":"tool_result","toolUseId":"c1","content":[]}}`
		mix  = `{"role":"user","content":[{"type":"text","text":"here"},{"type":"tool_result","toolUseId":"c1","content":[]}]}`
		say  = `{"role":"assistant","content":{"type":"text","text":"a"}}`
	)
	for _, c := range []struct {
		version, msgs string
		want          bool
	}{
		{"2025-11-25", ask + "," + use + "," + both + "," + say, false},
		{"2025-11-25", ask + "," + use1 + "," + one, false},
		{"2025-11-25", ask + "," + use, false}, // nothing follows the tool uses yet
		{"2025-11-25", ask + "," + use + "," + one, true},
		{"2025-11-25", ask + "," + use1 + "," + mix, true},
		{"2025-11-25", ask + "," + use1 + "," + say, true},
		{"2025-11-25", ask + "," + use1 + "," + ask, true},
		{"2025-11-25", ask + "," + use + "," + ask + "," + both, true},
		{"2025-06-18", ask + "," + say, false},
	} {
		_, out := run(t, fmt.Sprintf(init, c.version, c.msgs))
		if got := contains(codes(out), "sampling-tool-results-invalid"); got != c.want {
			t.Errorf("%s [%s]: raised %v, want sampling-tool-results-invalid %v", c.version, c.msgs, codes(out), c.want)
		}
	}
}

// TestSamplingToolTurnsInInputRequests: in 2026-07-28 the server asks for
// sampling in an input_required result, and its messages are held to the
// same tool turns.
func TestSamplingToolTurnsInInputRequests(t *testing.T) {
	conv := func(msgs string) string {
		return "$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{},$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s","inputRequests":{"ask":{"method":"sampling/createMessage","params":{"maxTokens":10,"messages":[` + msgs + `]}}}}}`
	}
	const (
		use  = `{"role":"assistant","content":{"type":"tool_use","id":"c1","name":"w","input":{}}}`
		good = `{"role":"user","content":[{"type":"tool_result","toolUseId":"c1","content":[]}]}`
		bad  = `{"role":"user","content":[{"type":"tool_result","toolUseId":"c1","content":[]},{"type":"text","text":"and"}]}`
	)
	if _, out := run(t, conv(use+","+good)); contains(codes(out), "sampling-tool-results-invalid") {
		t.Errorf("paired tool turns: %v", codes(out))
	}
	_, out := run(t, conv(use+","+bad))
	if !contains(codes(out), "sampling-tool-results-invalid") {
		t.Fatalf("a tool result mixed with text: %v, want sampling-tool-results-invalid", codes(out))
	}
	for _, fd := range out[len(out)-1].frame.Findings {
		if fd.Code == "sampling-tool-results-invalid" && !strings.Contains(fd.Message, `inputRequests["ask"].params.messages[1]`) {
			t.Errorf("the finding does not say where: %s", fd.Message)
		}
	}
}

// TestTaskCancelledByNotification: a cancel of a task-augmented request by
// notifications/cancelled, before its answer or after, is the foul; one
// answered without a task, or sent to a receiver that never declared
// tasks for it (which other rules judge), is not.
func TestTaskCancelledByNotification(t *testing.T) {
	const call = `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"either","arguments":{},"task":{}}}` + "\n"
	const cancel = "\n" + `> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`
	for _, c := range []struct {
		name, conv string
		want       bool
	}{
		{"in flight", "$TASKS\n" + call + cancel, true},
		{"answered with an error", "$TASKS\n" + call + `< {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}` + cancel, false},
		{"answered without a task", "$TASKS\n" + call + `< {"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + cancel, false},
		{"no tasks declared", "$INIT\n" + call + cancel, false},
	} {
		_, out := run(t, c.conv)
		if got := contains(codes(out), "task-cancelled-by-notification"); got != c.want {
			t.Errorf("%s: raised %v, want task-cancelled-by-notification %v", c.name, codes(out), c.want)
		}
	}
}

// TestURLElicitationError: a 2025-11-25 -32042 lists URL-mode elicitations
// with their elicitationId, url and message; before 2025-11-25 the code
// meant nothing of the kind, and in 2026-07-28 it is withdrawn (another
// rule's).
func TestURLElicitationError(t *testing.T) {
	conv := func(version, data string) string {
		return fmt.Sprintf(`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%[1]s","capabilities":{"elicitation":{"url":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%[1]s","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"needs auth"%[2]s}}`, version, data)
	}
	const good = `{"mode":"url","elicitationId":"e1","url":"https://a.example/x","message":"m"}`
	for _, c := range []struct {
		version, data string
		want          bool
	}{
		{"2025-11-25", `,"data":{"elicitations":[` + good + `]}`, false},
		{"2025-11-25", `,"data":{"elicitations":[` + good + `,` + good + `]}`, false},
		{"2025-11-25", ``, true},
		{"2025-11-25", `,"data":{}`, true},
		{"2025-11-25", `,"data":{"elicitations":[{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}]}`, true},
		{"2025-11-25", `,"data":{"elicitations":[{"url":"https://a.example/x","message":"m","elicitationId":"e1"}]}`, true},
		{"2025-11-25", `,"data":{"elicitations":[{"mode":"url","url":"https://a.example/x","message":"m"}]}`, true},
		{"2025-06-18", ``, false},
	} {
		_, out := run(t, conv(c.version, c.data))
		if got := contains(codes(out), "url-elicitation-error-invalid"); got != c.want {
			t.Errorf("%s, data %s: raised %v, want url-elicitation-error-invalid %v", c.version, c.data, codes(out), c.want)
		}
	}
}

// TestSamplingContextUndeclared: includeContext "thisServer" or
// "allServers" needs sampling.context in 2025-11-25; "none", or an older
// revision (which had no such capability), is not judged.
func TestSamplingContextUndeclared(t *testing.T) {
	conv := func(version, caps, ic string) string {
		return fmt.Sprintf(`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%[1]s","capabilities":%[2]s,"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%[1]s","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"q"}}],"maxTokens":10,"includeContext":"%[3]s"}}`, version, caps, ic)
	}
	for _, c := range []struct {
		version, caps, ic string
		want              bool
	}{
		{"2025-11-25", `{"sampling":{}}`, "thisServer", true},
		{"2025-11-25", `{"sampling":{}}`, "allServers", true},
		{"2025-11-25", `{"sampling":{}}`, "none", false},
		{"2025-11-25", `{"sampling":{"context":{}}}`, "allServers", false},
		{"2025-11-25", `{}`, "thisServer", false}, // undeclared-client-capability's
		{"2025-06-18", `{"sampling":{}}`, "thisServer", false},
	} {
		_, out := run(t, conv(c.version, c.caps, c.ic))
		if got := contains(codes(out), "sampling-context-undeclared"); got != c.want {
			t.Errorf("%s, %s, %s: raised %v, want sampling-context-undeclared %v", c.version, c.caps, c.ic, codes(out), c.want)
		}
	}
}

// TestSamplingToolUseUnoffered: the host's sampling answer uses a tool only
// when the request offered tools and did not say toolChoice "none".
func TestSamplingToolUseUnoffered(t *testing.T) {
	conv := func(version, extra, content string) string {
		return fmt.Sprintf(`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%[1]s","capabilities":{"sampling":{"tools":{}}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%[1]s","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"q"}}],"maxTokens":10%[2]s}}
> {"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":%[3]s,"model":"m"}}`, version, extra, content)
	}
	const (
		tools = `,"tools":[{"name":"w","inputSchema":{"type":"object"}}]`
		use   = `[{"type":"tool_use","id":"c1","name":"w","input":{}}]`
		text  = `{"type":"text","text":"a"}`
	)
	for _, c := range []struct {
		version, extra, content string
		want                    bool
	}{
		{"2025-11-25", tools, use, false},
		{"2025-11-25", tools + `,"toolChoice":{"mode":"auto"}`, use, false},
		{"2025-11-25", tools + `,"toolChoice":{"mode":"required"}`, use, false},
		{"2025-11-25", tools + `,"toolChoice":{"mode":"none"}`, use, true},
		{"2025-11-25", ``, use, true},
		{"2025-11-25", ``, text, false},
		{"2025-11-25", tools + `,"toolChoice":{"mode":"none"}`, text, false},
	} {
		_, out := run(t, conv(c.version, c.extra, c.content))
		if got := contains(codes(out), "sampling-tool-use-unoffered"); got != c.want {
			t.Errorf("%s [%s] answered %s: raised %v, want sampling-tool-use-unoffered %v", c.version, c.extra, c.content, codes(out), c.want)
		}
	}
}
