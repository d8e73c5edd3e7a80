package wire

// featureEntries are the codes of the protocol's optional features, kept
// apart from protocolEntries: 2025-11-25's tasks (the tasks family),
// elicitation forms and 2026-07-28's x-mcp-header.
var featureEntries = []Info{
	{
		Code: "task-left-terminal-status", Severity: SeverityError, Family: FamilyTasks, Eras: EraOnly1125,
		Title: "A task seen completed, failed or cancelled later reported in another status",
		Why:   `A requestor stops polling at a final status and trusts it: a task that comes back to life, or turns from completed to failed, makes the host show a result that no longer holds, or fetch one that is not there. Only answers to requests sent after the final status was on the wire are compared, so answers computed concurrently and written out of order never count.`,
		Fix:   `Make completed, failed and cancelled final in the task store: refuse every later transition (the TypeScript SDK's InMemoryTaskStore does), and keep a cancelled task cancelled even when its work finishes afterwards.`,
		Spec:  `MCP 2025-11-25, Basic › Utilities › Tasks › Task Status Lifecycle: "Tasks with a completed, failed, or cancelled status are in a terminal state and MUST NOT transition to any other status." Task Cancellation: "Once a task is cancelled, it MUST remain in cancelled status even if execution continues to completion or fails."`,
	},
	{
		Code: "task-cancel-invalid", Severity: SeverityError, Family: FamilyTasks, Eras: EraOnly1125,
		Title: "tasks/cancel answered against the cancellation rules",
		Why:   `The requestor reads the answer to tasks/cancel as the task's new state. A result that is not cancelled leaves it not knowing whether the work stops; accepting the cancellation of a task that already ended rewrites a final outcome; refusing it with another code than -32602 hides why.`,
		Fix:   `On tasks/cancel, move the task to cancelled first, then answer with the task (status "cancelled"); for a task already completed, failed or cancelled, answer {"code":-32602,"message":"Task already in a terminal status"}.`,
		Spec:  `MCP 2025-11-25, Basic › Utilities › Tasks › Task Cancellation: "Receivers MUST reject cancellation requests for tasks already in a terminal status (completed, failed, or cancelled) with error code -32602 (Invalid params)." "Upon receiving a valid cancellation request, receivers SHOULD attempt to stop the task execution and MUST transition the task to cancelled status before sending the response."`,
	},
	{
		Code: "task-result-untagged", Severity: SeverityWarning, Family: FamilyTasks, Eras: EraOnly1125,
		Title: "A tasks/result answer without io.modelcontextprotocol/related-task",
		Why:   `The result of tasks/result is the underlying request's (a CallToolResult, say), which does not name its task: the related-task key in its _meta is what ties it to the task, for a host that routes outcomes by task.`,
		Fix:   `Add "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "<the task's id>"}} to every tasks/result result.`,
		Spec:  `MCP 2025-11-25, Basic › Utilities › Tasks › Related Task Metadata: "The tasks/result operation MUST include this metadata in its response, as the result structure itself does not contain the task ID." Associating Task-Related Messages: "All requests, notifications, and responses related to a task MUST include the io.modelcontextprotocol/related-task key in their _meta field, with the value set to an object with a taskId matching the associated task ID."`,
	},
	{
		Code: "task-support-violated", Severity: SeverityError, Family: FamilyTasks, Eras: EraOnly1125,
		Title: `A tool whose execution.taskSupport is "required" called, or served, without a task`,
		Why:   `A tool that requires a task runs only as one: called directly, the host waits on a request the server cannot serve that way, and a server that serves it anyway breaks the contract its listing announced.`,
		Fix:   `Clients: call such a tool with "task": {"ttl": ...} in the params, on servers that declare tasks.requests.tools.call. Servers: answer a call of it without a task with {"code":-32601,"message":"Task augmentation required"}.`,
		Spec:  `MCP 2025-11-25, Basic › Utilities › Tasks › Tool-Level Negotiation: "If a server's capabilities include tasks.requests.tools.call … If execution.taskSupport is "required", clients MUST invoke the tool as a task. Servers MUST return a -32601 (Method not found) error if a client does not attempt to do so."`,
	},
	// --- lifecycle ---
	{
		Code: "elicitation-requests-secret", Severity: SeverityWarning, Family: FamilyShapes, Eras: EraSince0618,
		Title: "A form-mode elicitation that asks for a password, an API key or a token",
		Why:   `What a user types into a form goes through the host, its logs and possibly the model's context. A secret asked for that way leaks. (Judged by the field's name — password, api_key, client_secret, token and the like — or format "password".)`,
		Fix:   `Take secrets from the server's own configuration (environment, a key store), or, from 2025-11-25, send the user to a page of your own with a url-mode elicitation, where the secret never passes through the host.`,
		Spec:  `MCP 2025-11-25, Client › Elicitation › Form Mode Security: "Servers MUST NOT request sensitive information (passwords, API keys, etc.) via form mode". 2025-06-18, Elicitation › Security Considerations: "Servers MUST NOT use elicitation to request sensitive information."`,
	},
	{
		Code: "elicitation-answer-invalid", Severity: SeverityWarning, Family: FamilyShapes, Eras: EraSince0618,
		Title: "An accepted elicitation whose content does not match the form",
		Why:   `The server asked for values of given types, some required; a host that sends back something else (a missing required field, a string for a number, a value outside the enum) makes the server fail or act on bad input.`,
		Fix:   `Hosts: validate the form before sending accept (required fields, types, enums, formats, lengths and ranges), and send decline or cancel rather than an incomplete accept.`,
		Spec:  `MCP 2025-11-25, Client › Elicitation › Form Mode Security: "Clients SHOULD validate all responses against the provided schema." Response Actions: accept's "content field contains the submitted data matching the requested schema".`,
	},
	{
		Code: "x-mcp-header-invalid", Severity: SeverityWarning, Family: FamilyTools, Eras: EraModernOnly,
		Title: "An x-mcp-header annotation that breaks its constraints",
		Why:   `Over Streamable HTTP a client mirrors an annotated parameter into an Mcp-Param-{name} header, and it must drop a tool whose annotation is not a valid, unique header name on a string, integer or boolean property reached through properties alone: the tool silently disappears for every HTTP client. Over stdio clients may ignore the annotation, which is why this is a warning here.`,
		Fix:   `Give x-mcp-header a header token (letters, digits, - and the like; no spaces), unique ignoring case, on a top-level or nested properties entry of type string, integer or boolean; never under items, anyOf/oneOf/allOf, not, if/then/else or $defs, and never on a number, object or array.`,
		Spec:  `MCP 2026-07-28, Server › Tools › x-mcp-header: "Constraints on x-mcp-header values: MUST NOT be empty; MUST match HTTP field-name token syntax (1*tchar, RFC 9110 Section 5.1); MUST NOT contain control characters …; MUST be case-insensitively unique among all x-mcp-header values in the inputSchema; MUST only be applied to parameters with primitive types (integer, string, boolean). Parameters with type number are not permitted …; MUST only be applied to properties that are statically reachable from the schema root" (Transports › Streamable HTTP: "reachable via a chain consisting solely of properties keys"). "Clients using the Streamable HTTP transport MUST reject tool definitions where any x-mcp-header value violates these constraints."`,
	},
}
