package protocol

import (
	"strings"
	"testing"
)

// The task rules (2025-11-25), each path with the conversation that takes
// it. $TASKS declares tasks.list, tasks.cancel and task-augmented calls
// and lists the tools "plain", "either" (optional) and "job" (required).
func TestTasks(t *testing.T) {
	const created = `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"either","arguments":{},"task":{"ttl":60000}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":60000}}}`
	task := func(status string) string {
		return `{"taskId":"t1","status":"` + status + `","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:09Z","ttl":60000}`
	}
	cases := []struct {
		name, conv string
		want       []string
	}{
		{"a tasks/get result of the wrong shape", created + `
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":{"taskId":"t1","status":"running","createdAt":"2025-11-25T10:00:00Z","ttl":"1m"}}`, []string{"result-invalid", "result-invalid", "result-invalid"}},
		{"a task id that is not a string", `> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":7}}`, []string{"params-invalid"}},
		{"tasks/list of tasks, one malformed", `> {"jsonrpc":"2.0","id":2,"method":"tasks/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tasks":[` + task("working") + `,{"taskId":"t2"}]}}`, []string{"result-invalid", "result-invalid", "result-invalid", "result-invalid"}},
		{"tasks/list asked of a server that declared it", `> {"jsonrpc":"2.0","id":2,"method":"tasks/list"}`, nil},
		{"a status notification of the wrong shape", `< {"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"done","createdAt":"x","lastUpdatedAt":"x","ttl":null}}`, []string{"params-invalid"}},
		{"a final status from a notification, then working from a later tasks/get", created + `
< {"jsonrpc":"2.0","method":"notifications/tasks/status","params":` + task("failed") + `}
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":` + task("working") + `}`, []string{"task-left-terminal-status"}},
		{"a final status from tasks/list, then another from tasks/get", created + `
> {"jsonrpc":"2.0","id":2,"method":"tasks/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tasks":[` + task("completed") + `]}}
> {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":3,"result":` + task("failed") + `}`, []string{"task-left-terminal-status"}},
		{"two polls sent before the end, answered out of order: no foul", created + `
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}
> {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":3,"result":` + task("completed") + `}
< {"jsonrpc":"2.0","id":2,"result":` + task("working") + `}`, nil},
		{"a stale working notification after completion: no foul", created + `
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":` + task("completed") + `}
< {"jsonrpc":"2.0","method":"notifications/tasks/status","params":` + task("working") + `}`, nil},
		{"the cancellation of a completed task accepted", created + `
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":` + task("completed") + `}
> {"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":3,"result":` + task("cancelled") + `}`, []string{"task-cancel-invalid"}},
		{"the cancellation of a completed task refused with the wrong code", created + `
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":` + task("completed") + `}
> {"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"cannot cancel"}}`, []string{"task-cancel-invalid"}},
		{"a cancellation crossing the completion: the first answer wins, no foul", created + `
> {"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","method":"notifications/tasks/status","params":` + task("completed") + `}
< {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"already completed"}}`, nil},
		{"a CreateTaskResult from a server that did not declare task-augmented calls", handshake(`{}`) + `
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"task":` + task("working") + `}}`, []string{"undeclared-capability-request", "undeclared-capability"}},
		{"tasks/list asked of a server that did not declare it", handshake(`{}`) + `
> {"jsonrpc":"2.0","id":1,"method":"tasks/list"}`, []string{"undeclared-capability-request"}},
		{"tasks/cancel asked of a client that did not declare it", handshake(`{}`) + `
< {"jsonrpc":"2.0","id":"s1","method":"tasks/cancel","params":{"taskId":"c1"}}`, []string{"undeclared-client-capability"}},
		{"a required-task tool served without a task", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ran anyway"}]}}`, []string{"task-support-violated", "task-support-violated"}},
		{"a task-augmented call of a tool that forbids it, refused as 2025-11-25 asks", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plain","arguments":{},"task":{}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Tool does not support tasks"}}`, []string{"undeclared-capability-request"}},
		{"a required-task tool refused through isError, as the TypeScript SDK does: the client's foul only", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"MCP error -32601: Tool job requires task augmentation (taskSupport: 'required')"}],"isError":true}}`, []string{"task-support-violated"}},
		{"a required-task tool refused without a task: the client's foul only", `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Task augmentation required"}}`, []string{"task-support-violated"}},
		{"a task's outcome judged as its tools/call's", created + `
> {"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"image","data":"!!"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}}`, []string{"invalid-base64", "content-block-invalid"}},
		{"a tasks/result tagged with another task", created + `
> {"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t9"}}}}`, []string{"task-result-untagged"}},
		{"a host's CreateTaskResult for sampling it did not declare as a task", `< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5,"task":{}}}
> {"jsonrpc":"2.0","id":"s1","result":{"task":` + task("working") + `}}`, []string{"result-invalid"}},
		{"a host's CreateTaskResult for sampling it declared as a task", handshake(`{"sampling":{},"tasks":{"requests":{"sampling":{"createMessage":{}}}}}`) + `
< {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5,"task":{}}}
> {"jsonrpc":"2.0","id":"s1","result":{"task":` + task("working") + `}}`, nil},
		{"a whole task, by the book", created + `
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":2,"result":` + task("working") + `}
< {"jsonrpc":"2.0","method":"notifications/tasks/status","params":` + task("completed") + `}
> {"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"42"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}}
> {"jsonrpc":"2.0","id":4,"method":"tasks/list","params":{"cursor":"x"}}
< {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad cursor"}}
> {"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"t1"}}
< {"jsonrpc":"2.0","id":5,"result":` + task("completed") + `}`, nil},
	}
	for _, tc := range cases {
		conv := tc.conv
		if !strings.HasPrefix(conv, "$TASKS") && !strings.Contains(conv, `"method":"initialize"`) {
			conv = "$TASKS\n" + conv
		}
		_, frames := run(t, conv)
		if got := codes(frames); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: raised %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The task rules are 2025-11-25's alone: the same conversation in a
// 2025-06-18 session raises nothing of them.
func TestTasksOnlyIn20251125(t *testing.T) {
	conv := strings.ReplaceAll(expand("$TASKS"), "2025-11-25", "2025-06-18") + `
> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{}}}
< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ran"}]}}
> {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":7}}`
	_, frames := run(t, conv)
	if got := codes(frames); len(got) != 0 {
		t.Errorf("raised %q in 2025-06-18", got)
	}
}
