package wire

// Clauses quoted by several protocol entries.
const (
	specOperation   = `MCP 2025-11-25, Lifecycle › Operation: "Both parties MUST: Respect the negotiated protocol version; Only use capabilities that were successfully negotiated"`
	specInitialize  = `MCP 2025-11-25, Lifecycle › Initialization: "The initialization phase MUST be the first interaction between client and server." "The client MUST initiate this phase by sending an initialize request containing: Protocol version supported; Client capabilities; Client implementation information"`
	specMetaKeys    = `MCP 2025-11-25 and 2026-07-28, Basic › General fields › _meta: "Prefix: If specified, MUST be a series of labels separated by dots (.), followed by a slash (/). Labels MUST start with a letter and end with a letter or digit; interior characters can be letters, digits, or hyphens (-)." "Name: Unless empty, MUST begin and end with an alphanumeric character ([a-z0-9A-Z]). MAY contain hyphens (-), underscores (_), dots (.), and alphanumerics in between."`
	specErrorCodes  = `MCP 2026-07-28, Basic › Messages › Error Codes`
	specMRTRServer  = `MCP 2026-07-28, Message patterns › Multi Round-Trip Requests › Server Requirements`
	specMRTRClient  = `MCP 2026-07-28, Message patterns › Multi Round-Trip Requests › Client Requirements: `
	specSubscribe   = `MCP 2026-07-28, schema.ts › SubscriptionFilter / SubscriptionsAcknowledgedNotification / NotificationMetaObject: `
	specToolNames   = `MCP 2025-11-25 and 2026-07-28, Server › Tools › Tool Names: "Tool names SHOULD be between 1 and 128 characters in length (inclusive)." "The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot (.)" "Tool names SHOULD be unique within a server."`
	specOutput      = `MCP 2025-06-18 and later, Server › Tools › Output Schema: "If an output schema is provided: Servers MUST provide structured results that conform to this schema. Clients SHOULD validate structured results against this schema."`
	specContent     = `MCP schema.ts › ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource (audio since 2025-03-26, resource_link since 2025-06-18): TextContent {type: "text"; text: string}, ImageContent/AudioContent {data: string (base64, @format byte); mimeType: string}, ResourceLink {uri; name}, EmbeddedResource {resource: TextResourceContents | BlobResourceContents}.`
	specSchemaTypes = `MCP schema.ts (the revision negotiated) is "the source of truth for all protocol messages and structures" (Basic › Schema).`
)

var protocolEntries = []Info{
	{
		Code: "initialize-not-first", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraLegacyOnly,
		Title: "The client's first request is not initialize",
		Why:   `A legacy server negotiates the version and capabilities in initialize; before it, it has no session to serve the request in, and strict servers reject everything else.`,
		Fix:   `Send initialize first, wait for its result, send notifications/initialized, then the rest. (A dual-era client may probe with server/discover first; linesman allows that.)`,
		Spec:  specInitialize,
	},
	{
		Code: "initialize-protocol-version-invalid", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraLegacyOnly,
		Title: "initialize without a protocolVersion string",
		Why:   `The server picks the revision to speak from params.protocolVersion; without a string there it cannot negotiate, and SDKs reject the request.`,
		Fix:   `Send "protocolVersion": "2025-11-25" (the latest revision the client supports) in initialize's params.`,
		Spec:  `MCP 2025-11-25, Lifecycle › Version Negotiation: "In the initialize request, the client MUST send a protocol version it supports. This SHOULD be the latest version supported by the client." schema.ts › InitializeRequestParams: protocolVersion: string.`,
	},
	{
		Code: "initialize-params-invalid", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraLegacyOnly,
		Title: "initialize without capabilities or clientInfo objects",
		Why:   `The server learns what the client can do (roots, sampling, elicitation) and who it is from these; without them it must guess or refuse. clientInfo without a name and version string is refused by SDK servers that validate it.`,
		Fix:   `Send "capabilities": {} (at least) and "clientInfo": {"name": "...", "version": "..."} in initialize's params.`,
		Spec:  specInitialize + ` schema.ts › Implementation { name: string; version: string; title?, description?, websiteUrl?: string } (every revision has name and version).`,
	},
	{
		Code: "request-before-initialize-result", Severity: SeverityWarning, Family: FamilyLifecycle, Eras: EraLegacyOnly,
		Title: "The client sent a request, or notifications/initialized, before initialize was answered",
		Why:   `Until the server answers initialize, the version and capabilities are not agreed; a request sent meanwhile may be refused or served under the wrong revision, and notifications/initialized sent then announces an initialization that has not succeeded (it may yet fail).`,
		Fix:   `Wait for the initialize result (or error) before sending anything but ping; send notifications/initialized only after a successful result.`,
		Spec:  `MCP 2025-11-25, Lifecycle › Initialization: "The client SHOULD NOT send requests other than pings before the server has responded to the initialize request." "After successful initialization, the client MUST send an initialized notification to indicate it is ready to begin normal operations."`,
	},
	{
		Code: "initialized-not-sent", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraLegacyOnly,
		Title: "The client never sent notifications/initialized",
		Why:   `A server may hold back everything until the client says it is ready; without the notification some servers wait forever or refuse requests.`,
		Fix:   `Send {"jsonrpc":"2.0","method":"notifications/initialized"} right after the initialize result arrives.`,
		Spec:  `MCP 2025-11-25, Lifecycle › Initialization: "After successful initialization, the client MUST send an initialized notification to indicate it is ready to begin normal operations"`,
	},
	{
		Code: "initialize-result-version-invalid", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraLegacyOnly,
		Title: "The initialize result names no protocol revision the handshake knows",
		Why:   `The client speaks the revision the server answers with; a missing, non-string or unknown version leaves it nothing to speak (it should disconnect).`,
		Fix:   `Answer with the client's requested version if supported, otherwise with the latest revision the server supports (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05).`,
		Spec:  `MCP 2025-11-25, Lifecycle › Version Negotiation: "If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports."`,
	},
	{
		Code: "initialize-result-invalid", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraLegacyOnly,
		Title: "The initialize result lacks capabilities or serverInfo (name, version)",
		Why:   `Without capabilities the client cannot know which features it may use, so a conforming host uses none; SDK clients reject the result outright, as they do a serverInfo without a name or version string, a capability that is not an object ("tools": true), a listChanged or subscribe flag that is not a boolean, instructions that are not a string.`,
		Fix:   `Answer with {"protocolVersion": ..., "capabilities": {...}, "serverInfo": {"name": ..., "version": ...}}.`,
		Spec:  `MCP 2025-11-25, Lifecycle › Initialization: "The server MUST respond with its own capabilities and information". schema.ts › InitializeResult { capabilities: ServerCapabilities; serverInfo: Implementation { name: string; version: string; … }; instructions?: string }, ServerCapabilities { logging?: object; completions?: object; prompts?: { listChanged?: boolean }; resources?: { subscribe?: boolean; listChanged?: boolean }; tools?: { listChanged?: boolean }; … }.`,
	},
	{
		Code: "discover-not-implemented", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraModernOnly,
		Title: "A 2026-07-28 server answered server/discover with method not found",
		Why:   `Dual-era clients probe with server/discover and fall back to initialize on any other error: a modern server that refuses it is taken for a legacy one. Called only once the server shows it speaks 2026-07-28 (a result to a request carrying the era's _meta): -32601 alone is what a legacy server rightly answers, and a conversation that ends after it (a host probing on a process it then ends, as the TypeScript SDK v2's client does) shows nothing more.`,
		Fix:   `Implement server/discover: {"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{...},"ttlMs":...,"cacheScope":...}.`,
		Spec:  `MCP 2026-07-28, Versioning › Protocol Version Negotiation: "Servers MUST implement server/discover." schema.ts › DiscoverRequest: "Servers **MUST** implement server/discover." Versioning › Backward Compatibility: a server of an earlier revision answers server/discover with an error (-32601), and the client falls back to initialize.`,
	},
	// --- capabilities ---
	{
		Code: "undeclared-capability", Severity: SeverityError, Family: FamilyCapabilities, Eras: EraBoth,
		Title: "The server serves a feature it did not declare",
		Why:   `Hosts read the declared capabilities to decide what to use: tools, prompts or resources the server did not declare are never shown to the model.`,
		Fix:   `Declare the capability in the initialize result (legacy) or the server/discover result (2026-07-28): "tools": {}, "prompts": {}, "resources": {}, "completions": {}.`,
		Spec:  `MCP, Server › Tools / Prompts / Resources / Completion › Capabilities: "Servers that support tools MUST declare the tools capability" (and likewise prompts, resources; completions from 2025-03-26, Server › Utilities › Completion › Capabilities: "Servers that support completions MUST declare the completions capability": 2024-11-05 had completion/complete but no such capability, so there it is not judged). ` + specOperation,
	},
	{
		Code: "undeclared-capability-request", Severity: SeverityWarning, Family: FamilyCapabilities, Eras: EraBoth,
		Title: "The client asked for a feature the server did not declare",
		Why:   `The server said it does not offer this; the request will fail (usually -32601) or be served by accident.`,
		Fix:   `Check the server's capabilities (initialize or server/discover result) before calling tools/*, prompts/*, resources/*, completion/complete or logging/setLevel.`,
		Spec:  specOperation + ` (completion/complete from 2025-03-26, which brought the completions capability; 2024-11-05's ServerCapabilities have none)`,
	},
	{
		Code: "undeclared-client-capability", Severity: SeverityError, Family: FamilyCapabilities, Eras: EraLegacyOnly,
		Title: "The server sent a request for a client capability that was not declared",
		Why:   `A client that did not declare sampling, elicitation or roots has no handler for them: the request fails and the tool call that needed it stalls.`,
		Fix:   `Check the client's capabilities from initialize before sending sampling/createMessage, elicitation/create or roots/list, and degrade gracefully without them.`,
		Spec:  specOperation,
	},
	{
		Code: "list-changed-undeclared", Severity: SeverityWarning, Family: FamilyCapabilities, Eras: EraLegacyOnly,
		Title: "A list_changed or updated notification the capabilities did not announce",
		Why:   `Clients subscribe to change notifications only where the server declared listChanged (or subscribe); others drop them, so the client's list goes stale. The same holds for a client's notifications/roots/list_changed without roots.listChanged.`,
		Fix:   `Declare "listChanged": true in the tools / prompts / resources capability (and "subscribe": true for resources/updated; a client, "roots": {"listChanged": true}), or do not send the notification.`,
		Spec:  `MCP 2025-11-25, Server › Tools › List Changed Notification: "When the list of available tools changes, servers that declared the listChanged capability SHOULD send a notification". Lifecycle › Capability Negotiation: "listChanged: Support for list change notifications (for prompts, resources, and tools)". ` + specOperation,
	},
	{
		Code: "logging-undeclared", Severity: SeverityWarning, Family: FamilyLogging, Eras: EraBoth,
		Title: "Log messages from a server that did not declare logging",
		Why:   `Clients route notifications/message only for servers that declared logging; others drop them or treat them as unknown.`,
		Fix:   `Declare "logging": {} in the capabilities, or log to stderr instead.`,
		Spec:  `MCP, Server › Utilities › Logging › Capabilities: "Servers that emit log message notifications MUST declare the logging capability"`,
	},
	{
		Code: "declared-method-not-found", Severity: SeverityError, Family: FamilyCapabilities, Eras: EraBoth,
		Title: "A declared capability's method answered Method not found",
		Why:   `A host uses what the server declared: a server that declares tools (prompts, resources, completions, logging) and answers tools/list with -32601 leaves the host with a feature it cannot use, and usually means a handler was never registered, or was registered after the connection started.`,
		Fix:   `Register the handlers of every capability you declare before serving (or declare only what you serve). An unknown tool, prompt or resource is -32602 (Invalid params), not -32601.`,
		Spec:  `MCP 2025-11-25, Lifecycle › Capability Negotiation: "Client and server capabilities establish which optional protocol features will be available during the session." Server › Tools › Capabilities: "Servers that support tools MUST declare the tools capability" (Prompts, Resources, Completion and Logging likewise): the declaration says the feature's methods are served.`,
	},
	// --- shapes ---
	{
		Code: "notification-with-id", Severity: SeverityError, Family: FamilyShapes, Eras: EraBoth,
		Title: "A notification method sent with an id",
		Why:   `A message with an id is a request: the receiver must answer it (usually with an error) and the sender's bookkeeping now waits for an answer to a notification.`,
		Fix:   `Send notifications without "id": {"jsonrpc":"2.0","method":"notifications/...","params":{...}}.`,
		Spec:  `MCP, Basic › Messages › Notifications: "Notifications MUST NOT include an ID."`,
	},
	{
		Code: "wrong-direction", Severity: SeverityError, Family: FamilyShapes, Eras: EraBoth,
		Title: "A method sent by the side that never sends it",
		Why:   `Each side has its own requests and notifications: a server that sends tools/list or notifications/initialized, a client that sends notifications/message, speaks to a peer with no handler for it. It is answered Method not found, or dropped, and usually means the two roles were mixed up in the code.`,
		Fix:   `Send only your side's methods. A server sends sampling/createMessage, roots/list, elicitation/create and the notifications message, resources/updated, */list_changed and elicitation/complete; a client sends the rest. ping, notifications/cancelled, notifications/progress and the tasks methods go both ways.`,
		Spec:  specSchemaTypes + ` schema.ts › ClientRequest, ClientNotification, ServerRequest, ServerNotification (every revision) list each side's methods.`,
	},
	{
		Code: "ping-refused", Severity: SeverityError, Family: FamilyShapes, Eras: EraLegacyOnly,
		Title: "A ping answered with an error",
		Why:   `Ping is how either side checks the other is alive: a peer that pings to keep the connection (or to probe a stuck server) reads an error as a dead or broken peer and may disconnect. Servers that register only their own methods answer it Method not found.`,
		Fix:   `Answer ping with an empty result, {"jsonrpc":"2.0","id":<its id>,"result":{}}, at any time, before and after initialization (the SDKs do it for you).`,
		Spec:  `MCP 2025-11-25, Utilities › Ping › Behavior Requirements: "The receiver MUST respond promptly with an empty response". schema.ts › PingRequest: "The receiver must promptly respond, or else may be disconnected." (ping is gone from 2026-07-28)`,
	},
	{
		Code: "params-invalid", Severity: SeverityError, Family: FamilyShapes, Eras: EraBoth,
		Title: "Params that do not have the shape their method requires",
		Why:   `The receiver cannot serve a tools/call without a name, a resources/read without a uri, a sampling request without maxTokens, a form whose fields are not flat primitives: it answers Invalid params, or worse, guesses.`,
		Fix:   `Build params from the schema of the method: tools/call {name, arguments: {...}}, prompts/get {name, arguments}, resources/read {uri}, completion/complete {ref, argument}, sampling/createMessage {messages: [{role, content}], maxTokens}, elicitation/create {message, requestedSchema: {type: "object", properties: {NAME: {type: "string"|"number"|"integer"|"boolean"}}}}; a progressToken is a string or a number.`,
		Spec:  specSchemaTypes + ` e.g. CallToolRequestParams { name: string; arguments?: { [key: string]: unknown } }, ReadResourceRequestParams { uri: string }, GetPromptRequestParams { name: string; arguments?: { [key: string]: string } }, CreateMessageRequestParams { messages: SamplingMessage[]; maxTokens: number }, ElicitRequestFormParams { message: string; requestedSchema: { type: "object"; properties: { [key: string]: PrimitiveSchemaDefinition } } }, ProgressToken = string | number.`,
	},
	{
		Code: "schema-invalid", Severity: SeverityError, Family: FamilyShapes, Eras: EraBoth,
		Title: "A message does not validate against its revision's published JSON schema",
		Why:   `The JSON schema of the negotiated revision is what SDKs generate their types and validators from: a value of the wrong type, a missing required member or a value outside an enum is refused by a strict peer (an SDK client rejects the whole result) and misread by a lax one. linesman's hand-written rules name the common faults with their own advice; this one catches the rest, anywhere in any message.`,
		Fix:   `Make the member at the path named match the definition named (its type, its required members, its enum). The message reads PATH: want WHAT, got WHAT — REVISION DEFINITION (INNER DEFINITION): the definition is the one of the method in that revision's schema — the request or notification's params (CallToolRequest), the result of the request answered (ListPromptsResult; in 2026-07-28 its ListPromptsResultResponse, which also admits an InputRequiredResult), or Error for an error — and the inner one the definition the fault lies in (PromptArgument). Look the definitions up in the revision's schema.ts (modelcontextprotocol/modelcontextprotocol, schema/REVISION/schema.ts).`,
		Spec:  specSchemaTypes + ` Each message is validated against the revision's schema.json (third_party/mcp-schema), with the revision's definition of its method. Members a definition does not name are allowed, as the schemas allow them (none closes its objects); an optional member written as null reads as absent, as the hand-written rules read it; format (uri, byte) is an annotation, not judged. Where schema.json is stricter than schema.ts, schema.ts wins: every "integer" is read as schema.ts's number, and 2026-07-28's JSONValue admits null. A fault a hand-written rule already names on the same frame (params-invalid, result-invalid, content-block-invalid, missing-result-type, request-meta-missing, cache-hint-invalid…) is not repeated. The revision is the request's _meta protocol version, initialize's asked-for version (its result's answered one), 2026-07-28 for server/discover, else the session's; with none known, nothing is validated.`,
	},
	{
		Code: "result-invalid", Severity: SeverityError, Family: FamilyShapes, Eras: EraBoth,
		Title: "A result does not have the shape its method requires",
		Why:   `SDK clients validate results against the schema and reject the whole answer: a result that is not an object, a tools/call result without content, a listing without its array, a resource or prompt without a name, a tool annotation hint that is not a boolean, a prompt message whose role is neither user nor assistant. The same holds the other way: a host's answer to sampling without the model's name, to an elicitation with an action that is not accept, decline or cancel, to roots/list with a root that is not a file:// URI, is one the server cannot use.`,
		Fix:   `Return the method's result type, an object: tools/list {tools: [...]}, tools/call {content: [...], isError?: boolean}, prompts/list {prompts: [{name, arguments?: [{name}]}]}, prompts/get {messages: [{role: "user"|"assistant", content}]}, resources/list {resources: [{uri, name}]}, resources/templates/list {resourceTemplates: [{uriTemplate, name}]}, resources/read {contents: [...]}, completion/complete {completion: {values: [...]}} (at most 100 values), ping and the like {}. A host answers sampling/createMessage {role, content, model}, elicitation/create {action: "accept"|"decline"|"cancel", content?: {...}}, roots/list {roots: [{uri: "file://..."}]}.`,
		Spec:  specSchemaTypes + ` e.g. JSONRPCResponse.result: Result (an object), ListToolsResult { tools: Tool[] }, Tool { description?: string; title?: string; annotations?: ToolAnnotations { title?: string; readOnlyHint?, destructiveHint?, idempotentHint?, openWorldHint?: boolean } }, CallToolResult { content: ContentBlock[]; isError?: boolean }, Resource { uri: string; name: string }, ResourceTemplate { uriTemplate: string; name: string }, Prompt { name: string; arguments?: PromptArgument[] { name: string } }, PromptMessage { role: Role ("user" | "assistant") }, CompleteResult { completion: { values: string[] (@maxItems 100) } }, PaginatedResult { nextCursor?: Cursor (string) }, CreateMessageResult { role; content; model: string }, ElicitResult { action: "accept" | "decline" | "cancel" }, Root { uri: string } ("This *must* be a file:// URI in the current version").`,
	},
	// --- error codes ---
	{
		Code: "withdrawn-error-code", Severity: SeverityError, Family: FamilyErrors, Eras: EraModernOnly,
		Title: "An error code an earlier revision defined and 2026-07-28 withdrew",
		Why:   `Modern clients read -32002 and -32042 as nothing in particular: "resource not found" is -32602 now, and URL elicitation is an input_required round.`,
		Fix:   `Answer a missing resource with -32602 (Invalid params); ask for a URL elicitation through input_required.`,
		Spec:  specErrorCodes + `: "Codes defined by earlier protocol versions remain reserved and will not be reused. Implementations of this protocol version MUST NOT emit these codes: -32002 — resource not found (2025-11-25 and earlier; replaced by -32602). -32042 — URL elicitation required (2025-11-25 only)."`,
	},
	{
		Code: "legacy-error-code", Severity: SeverityWarning, Family: FamilyErrors, Eras: EraModernOnly,
		Title: "An error code from the legacy range -32000…-32019",
		Why:   `Receivers must not assume any meaning for these codes, so the client can only show the message.`,
		Fix:   `Use a standard JSON-RPC code (-32602, -32603), a code 2026-07-28 defines (-32020…-32022), or an application code outside -32768…-32000.`,
		Spec:  specErrorCodes + `: "-32000 to -32019 — legacy. … New codes MUST NOT be allocated in this sub-range, and new implementations SHOULD NOT use codes from this sub-range at all. Apart from -32002, receivers MUST NOT assume any specific meaning for these codes."`,
	},
	{
		Code: "undefined-reserved-error-code", Severity: SeverityError, Family: FamilyErrors, Eras: EraModernOnly,
		Title: "An error code in -32020…-32099 that the specification does not define",
		Why:   `That sub-range belongs to the specification; a client reads a code there by the specification's table, so an invented one is misread (or will be, once the code is allocated).`,
		Fix:   `Use -32020 (HeaderMismatch), -32021 (MissingRequiredClientCapability) or -32022 (UnsupportedProtocolVersion) only with their meanings; put application errors outside -32768…-32000.`,
		Spec:  specErrorCodes + `: "-32020 to -32099 — reserved for the MCP specification. Error codes in this sub-range are defined exclusively by the MCP specification … Implementations MUST NOT emit any code from this sub-range that is not defined by this specification and MUST use defined codes only with their specified meanings."`,
	},
	{
		Code: "url-elicitation-error-invalid", Severity: SeverityError, Family: FamilyErrors, Eras: EraOnly1125,
		Title: "A -32042 (URL elicitation required) without the URL-mode elicitations it waits for",
		Why:   `A client that gets -32042 shows the user the elicitations in its data and retries the request once they are done; without data.elicitations, or with one that is not a URL-mode elicitation with its elicitationId, url and message, it has nothing to show, nothing to wait for, and the request fails for good.`,
		Fix:   `Answer {"code":-32042,"message":"...","data":{"elicitations":[{"mode":"url","elicitationId":"<id>","url":"https://...","message":"<why>"}]}}; for a form, send an elicitation/create instead.`,
		Spec:  `MCP 2025-11-25, Client › Elicitation › URL Elicitation Required Error: "The error MUST include a list of elicitations that are required to complete before the original can be retried. Any elicitations returned in the error MUST be URL mode elicitations and have an elicitationId property." schema.ts › URLElicitationRequiredError: data: { elicitations: ElicitRequestURLParams[] } (mode, message, elicitationId and url required).`,
	},
	{
		Code: "reserved-range-error-code", Severity: SeverityWarning, Family: FamilyErrors, Eras: EraBoth,
		Title: "An application error code inside JSON-RPC's reserved range",
		Why:   `-32768…-32000 is reserved for pre-defined errors; an invented code there may collide with a future standard one and be misread.`,
		Fix:   `Use -32700, -32600…-32603 with their meanings, or an application code outside -32768…-32000 (e.g. 1001, -1).`,
		Spec:  `JSON-RPC 2.0 §5.1: "The error codes from and including -32768 to -32000 are reserved for pre-defined errors. Any code within this range, but not defined explicitly below is reserved for future use." ` + specErrorCodes + `: "New error codes for purposes not defined by this specification SHOULD be allocated outside the JSON-RPC reserved range (-32768 to -32000)"`,
	},
	// --- ids, cancellation ---
	{
		Code: "cancel-without-request-id", Severity: SeverityError, Family: FamilyIDs, Eras: EraBoth,
		Title: "notifications/cancelled without a requestId",
		Why:   `The receiver cannot tell which request to stop, so nothing is cancelled and the work (and its answer) goes on.`,
		Fix:   `Send {"method":"notifications/cancelled","params":{"requestId": <the id of the request>, "reason": "..."}}.`,
		Spec:  `MCP 2025-11-25 schema.ts › CancelledNotificationParams.requestId: "This MUST be provided for cancelling non-task requests." 2026-07-28: requestId: RequestId (required) "This MUST correspond to the ID of a request the client previously issued."`,
	},
	{
		Code: "cancel-initialize", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraLegacyOnly,
		Title: "The client cancelled initialize",
		Why:   `The handshake cannot be half-done: a server that drops initialize leaves the session without a version or capabilities, and one that ignores the cancel answers a client that no longer listens.`,
		Fix:   `Let initialize complete (or time out and close the connection); never send notifications/cancelled for it.`,
		Spec:  `MCP 2025-11-25, Utilities › Cancellation › Behavior Requirements: "The initialize request MUST NOT be cancelled by clients"`,
	},
	{
		Code: "server-cancel-misused", Severity: SeverityError, Family: FamilySubscriptions, Eras: EraModernOnly,
		Title: "The server sent notifications/cancelled for something other than a subscription",
		Why:   `In 2026-07-28 the server cancels only to end a subscriptions/listen stream; a client does not expect to have its other requests cancelled by the server.`,
		Fix:   `Answer the request with an error instead; send notifications/cancelled only with the id of a subscriptions/listen request, to close that stream.`,
		Spec:  `MCP 2026-07-28 schema.ts › CancelledNotification: "On stdio, the server also sends this notification, solely to terminate a subscriptions/listen stream … Servers MUST NOT use this notification to cancel any other request."`,
	},
	// --- tools ---
	{
		Code: "tool-name-invalid", Severity: SeverityWarning, Family: FamilyTools, Eras: EraBoth,
		Title: "A tool name outside 1–128 characters of A-Z a-z 0-9 _ - .",
		Why:   `Hosts pass tool names to model APIs that accept only a restricted alphabet and length; such a tool is renamed, dropped, or breaks the whole request to the model.`,
		Fix:   `Rename the tool: letters, digits, _, - and . only, at most 128 characters (e.g. "search_files", "db.query").`,
		Spec:  specToolNames + ` (the guidance arrived in 2025-11-25; earlier revisions set no rule, and there linesman says it as a note, for the hosts' sake)`,
	},
	{
		Code: "tool-name-duplicate", Severity: SeverityWarning, Family: FamilyTools, Eras: EraBoth,
		Title: "Two tools with the same name in one listing",
		Why:   `A tools/call names its tool; with two of the same name the host cannot tell which is meant and keeps only one of them.`,
		Fix:   `Give each tool a unique name within the server.`,
		Spec:  specToolNames,
	},
	{
		Code: "input-error-as-protocol-error", Severity: SeverityWarning, Family: FamilyTools, Eras: EraBoth,
		Title: "Arguments that fail the inputSchema answered with a JSON-RPC error",
		Why:   `A JSON-RPC error goes to the host, not to the model: the model never learns what was wrong with its arguments and cannot correct them. From 2025-11-25 input validation failures are tool execution errors, which the model reads. (Checked only where linesman itself found the arguments invalid against the tool's inputSchema, in a request otherwise well formed, and for the codes that say the input failed: -32602 Invalid params, -32600 Invalid Request (in 2025-11-25, and not from a server of task-augmented calls, which may answer a plain call -32600 to require a task), and -32603 Internal error, a handler that met input nobody had validated and failed on it. A code that says something else first — -32601, 2025-11-25's -32042, the application's own — is not judged.)`,
		Fix:   `Answer invalid arguments with {"content":[{"type":"text","text":"<what was wrong>"}],"isError":true}; keep -32602 for an unknown tool or a request that is not a tools/call at all. The go-sdk (since March 2026) and newer TypeScript SDKs do this for you. In mcp-go, an error a handler returns becomes -32603: return mcp.NewToolResultError(msg), nil instead.`,
		Spec:  `MCP 2025-11-25, Server › Tools › Error Handling: Tool Execution Errors include "Input validation errors (e.g., date in wrong format, value out of range)", reported "in tool results with isError: true" (SEP-1303); Protocol Errors are for "Unknown tools", "Malformed requests (requests that fail to satisfy CallToolRequest schema)" and "Server errors". Security Considerations: "Servers MUST: Validate all tool inputs". schema.ts › CallToolResult.isError: "Any errors that originate from the tool SHOULD be reported inside the result object … not as an MCP protocol-level error response."`,
	},
	{
		Code: "tool-input-schema-invalid", Severity: SeverityError, Family: FamilySchemas, Eras: EraBoth,
		Title: `A tool whose inputSchema is not an object schema ("type": "object")`,
		Why:   `Tool arguments are always a JSON object. Hosts hand inputSchema to the model as the function's parameters; null or a non-object schema makes SDKs reject the whole tools/list.`,
		Fix:   `Use {"type":"object","properties":{...},"required":[...]}; for no parameters {"type":"object","additionalProperties":false}.`,
		Spec:  `MCP 2025-11-25 and 2026-07-28, Server › Tools › Tool: "inputSchema: JSON Schema defining expected parameters … MUST be a valid JSON Schema object (not null)". schema.ts › Tool.inputSchema: { type: "object"; … } ("Tool arguments are always JSON objects, so type: "object" is required at the root.")`,
	},
	{
		Code: "tool-output-schema-invalid", Severity: SeverityError, Family: FamilySchemas, Eras: EraSince0618,
		Title: "A tool whose outputSchema is not an object schema as its revision requires",
		Why:   `Clients validate structuredContent against outputSchema; a schema that is not an object cannot be used and SDKs reject the listing. In 2025-06-18 and 2025-11-25 structuredContent is an object, and an outputSchema of another type describes a result no conforming server can return.`,
		Fix:   `Give outputSchema as a JSON Schema object ({"type":"object","properties":{...}}), or leave it out; to return a list or a scalar, wrap it: {"type":"object","properties":{"result":{...}}}.`,
		Spec:  `MCP 2025-11-25 schema.ts › Tool.outputSchema?: { $schema?: string; type: "object"; properties?; required? } — "Currently restricted to type: "object" at the root level" (2025-06-18 likewise). 2026-07-28 schema.ts › Tool.outputSchema?: { $schema?: string; [key: string]: unknown } — "An optional JSON Schema object defining the structure of the tool's output returned in the structuredContent field".`,
	},
	{
		Code: "tool-schema-invalid", Severity: SeverityError, Family: FamilySchemas, Eras: EraBoth,
		Title: "A tool schema that is not valid JSON Schema",
		Why:   `A schema that does not compile cannot validate anything: strict clients drop the tool, lenient ones pass the model a contract that means nothing. Before 2025-11-25 no default dialect was named: there a schema without $schema that is valid draft-07 is no foul.`,
		Fix:   `Validate the schema against its dialect's meta-schema (2020-12 unless $schema names another) when building the tool; generate it from types rather than by hand.`,
		Spec:  `MCP 2025-11-25 and 2026-07-28, Basic › JSON Schema Usage › Schema Validation: "Schemas MUST be valid according to their declared or default dialect". "When a schema does not include a $schema field, it defaults to JSON Schema 2020-12".`,
	},
	{
		Code: "tool-arguments-invalid", Severity: SeverityWarning, Family: FamilySchemas, Eras: EraBoth,
		Title: "tools/call arguments that do not match the tool's inputSchema",
		Why:   `The server expects arguments as its schema says; these will fail validation (an isError result) or be misread.`,
		Fix:   `Build the arguments from the tool's inputSchema: the required properties, the declared types.`,
		Spec:  `MCP, Server › Tools › Tool: "inputSchema: JSON Schema defining expected parameters". Security Considerations: "Servers MUST: Validate all tool inputs".`,
	},
	{
		Code: "structured-content-missing", Severity: SeverityError, Family: FamilySchemas, Eras: EraSince0618,
		Title: "A tool with an outputSchema returned no structuredContent",
		Why:   `Clients that rely on the declared output schema look for structuredContent and find nothing; SDK clients fail the call.`,
		Fix:   `Return "structuredContent": {...} conforming to outputSchema on every successful call (isError results are exempt).`,
		Spec:  specOutput,
	},
	{
		Code: "structured-content-invalid", Severity: SeverityError, Family: FamilySchemas, Eras: EraSince0618,
		Title: "structuredContent that does not match the tool's outputSchema",
		Why:   `Clients validate structured results against the schema and reject the call; the model never sees the data.`,
		Fix:   `Produce structuredContent from the same types the outputSchema was generated from, or fix the schema.`,
		Spec:  specOutput,
	},
	{
		Code: "structured-content-without-text", Severity: SeverityWarning, Family: FamilyTools, Eras: EraSince0618,
		Title: "structuredContent without a text block carrying it",
		Why:   `Clients that read only content (older ones, many hosts) see an empty result.`,
		Fix:   `Also return the serialized JSON in a text block: "content": [{"type":"text","text": JSON.stringify(structured)}].`,
		Spec:  `MCP 2025-06-18 and later, Server › Tools › Structured Content: "For backwards compatibility, a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block."`,
	},
	{
		Code: "tools-list-order-changed", Severity: SeverityWarning, Family: FamilyTools, Eras: EraModernOnly,
		Title: "tools/list returned the same tools in another order",
		Why:   `Clients cache tool lists and models cache prompts; a shuffled list defeats both and costs tokens on every request.`,
		Fix:   `Return tools in a fixed order (registration order, or sorted by name); do not iterate a hash map.`,
		Spec:  `MCP 2026-07-28, Key Changes › Minor changes 3: "Servers SHOULD return tools from tools/list in a deterministic order to enable client-side caching and improve LLM prompt cache hit rates."`,
	},
	// --- content, resources, prompts, pagination ---
	{
		Code: "content-block-invalid", Severity: SeverityError, Family: FamilyContent, Eras: EraBoth,
		Title: "A content block without the fields its type requires",
		Why:   `Clients render content by type; a block of unknown type or missing its text, data, mimeType, uri or resource is dropped, or fails the whole result in a validating SDK.`,
		Fix:   `Use {"type":"text","text":...}, {"type":"image"|"audio","data":<base64>,"mimeType":...}, {"type":"resource_link","uri":...,"name":...}, {"type":"resource","resource":{"uri":...,"text"|"blob":...}}.`,
		Spec:  specContent,
	},
	{
		Code: "invalid-base64", Severity: SeverityError, Family: FamilyContent, Eras: EraBoth,
		Title: "Image, audio or blob data that is not valid base64",
		Why:   `The client decodes the data to show or forward it; invalid base64 fails to decode and the image, audio or file is lost.`,
		Fix:   `Encode bytes with standard base64 and padding (Python base64.b64encode(b).decode(), Node buf.toString("base64"), Go base64.StdEncoding); do not send raw or URL-safe text.`,
		Spec:  `MCP schema.ts › ImageContent.data / AudioContent.data: "The base64-encoded image data. @format byte"; BlobResourceContents.blob: "A base64-encoded string representing the binary data of the item." Server › Resources › Security: "Binary data MUST be properly encoded".`,
	},
	{
		Code: "resource-uri-invalid", Severity: SeverityError, Family: FamilyResources, Eras: EraBoth,
		Title: "A resource URI without a scheme",
		Why:   `Resource URIs are how clients read, link and subscribe; a path without a scheme ("docs/readme.md") is not a URI and clients cannot resolve it.`,
		Fix:   `Use an absolute URI: file:///abs/path, https://…, or a custom scheme (myapp://item/42).`,
		Spec:  `MCP schema.ts › Resource.uri / ResourceContents.uri: @format uri. Server › Resources › Custom URI Schemes: "Custom URI schemes MUST be in accordance with RFC3986". RFC 3986 §3: URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ].`,
	},
	{
		Code: "prompt-required-argument-missing", Severity: SeverityWarning, Family: FamilyPrompts, Eras: EraBoth,
		Title: "A prompt served without a required argument",
		Why:   `The prompt's template was filled without a value it declares required: the messages the client gets are incomplete or contain a placeholder.`,
		Fix:   `Validate arguments against the prompt's declared arguments and answer a missing required one with -32602 (Invalid params).`,
		Spec:  `MCP, Server › Prompts › Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure cases: … Missing required arguments: -32602 (Invalid params)". Implementation Considerations: "Servers SHOULD validate prompt arguments before processing".`,
	},
	{
		Code: "prompt-arguments-refused", Severity: SeverityWarning, Family: FamilyPrompts, Eras: EraBoth,
		Title: "A prompt refused for arguments its listing does not ask for",
		Why:   `The host asked for a prompt the server listed with no required argument, giving none, and the server answered Invalid params (-32602): nothing its listing asks for was missing and no value could be wrong, so a host that follows the listing cannot get the prompt at all. The TypeScript SDK's McpServer did this to a prompt whose arguments are all optional whenever the request had no "arguments", in 1.10 to 1.24 and in @modelcontextprotocol/server 2.0.0 (fixed by 1.32 and 2.4). Judged only when the request gave no arguments, the server's last complete prompts/list named the prompt (no list_changed since) and the request carried no multi-round state.`,
		Fix:   `Treat an absent "arguments" as {} and validate it against the prompt's declared arguments: only a missing required argument, or a value the prompt cannot take, is -32602. With the TypeScript SDK, update to 1.32 (v1) or 2.4 (v2) or later.`,
		Spec:  `MCP, schema.ts › GetPromptRequest.params.arguments is optional ("arguments?: { [key: string]: string }"); PromptArgument.required: "Whether this argument must be provided." Server › Prompts › Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure cases: … Missing required arguments: -32602 (Invalid params)".`,
	},
	{
		Code: "unknown-cursor", Severity: SeverityWarning, Family: FamilyPagination, Eras: EraBoth,
		Title: "A cursor that no earlier result issued",
		Why:   `Cursors are opaque and only meaningful as the server issued them; a made-up, edited or stale cursor gets an error or the wrong page.`,
		Fix:   `Pass back exactly the nextCursor of the previous page of the same list; start a new listing without a cursor.`,
		Spec:  `MCP, Server › Utilities › Pagination: "Clients MUST treat cursors as opaque tokens: Don't make assumptions about cursor format; Don't attempt to parse or modify cursors; Don't persist cursors across sessions".`,
	},
	// --- 2026-07-28: _meta ---
	{
		Code: "request-meta-missing", Severity: SeverityError, Family: FamilyMeta, Eras: EraModernOnly,
		Title: "A 2026-07-28 request without the required _meta fields",
		Why:   `There is no handshake: each request carries its protocol version and client capabilities, and a server must reject one without them.`,
		Fix:   `Put "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {...}} in every request's params.`,
		Spec:  `MCP 2026-07-28, Basic › _meta › Per-request protocol fields: "Client requests carry the following io.modelcontextprotocol/* fields in _meta; fields marked as required MUST be included on every request." (protocolVersion: required; clientCapabilities: required)`,
	},
	{
		Code: "malformed-request-answered", Severity: SeverityError, Family: FamilyShapes, Eras: EraBoth,
		Title: "The server answered a malformed request with a result",
		Why:   `A server that serves a request missing what its method requires (2026-07-28's _meta, a tools/call without a name, a log level that is none) relies on guesses; the client never learns its requests are malformed. The client's fault is named on the request (request-meta-missing, params-invalid); this is the server's.`,
		Fix:   `Validate params before acting: reject a request without io.modelcontextprotocol/protocolVersion or clientCapabilities (2026-07-28), or whose params lack a required member or have one of the wrong type, with -32602 (Invalid params).`,
		Spec:  `MCP 2026-07-28, Basic › _meta: "A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params)." Every revision, Server › Tools › Security Considerations: "Servers MUST: Validate all tool inputs"; JSON-RPC 2.0 › Error object: "-32602 Invalid params: Invalid method parameter(s)."`,
	},
	{
		Code: "meta-key-invalid", Severity: SeverityWarning, Family: FamilyMeta, Eras: EraSince0618,
		Title: "A _meta key whose prefix or name breaks the naming rules",
		Why:   `_meta keys are namespaced so that extensions do not collide; a key outside the rules may clash with a reserved one or be dropped by strict peers.`,
		Fix:   `Use reverse-DNS prefixes and simple names: "com.example/trace-id", not "example.com/", "-x" or "my key".`,
		Spec:  specMetaKeys,
	},
	{
		Code: "extension-id-invalid", Severity: SeverityWarning, Family: FamilyMeta, Eras: EraModernOnly,
		Title: "An extension identifier without a valid prefix",
		Why:   `Extensions are negotiated by identifier; without a vendor prefix two extensions can claim the same name.`,
		Fix:   `Name extensions with a reverse-DNS prefix: "com.example/my-extension".`,
		Spec:  `MCP 2026-07-28, Versioning › Extension Negotiation: "Extension identifiers MUST follow the _meta key naming rules, with a mandatory prefix." ` + specMetaKeys,
	},
	{
		Code: "removed-method", Severity: SeverityError, Family: FamilyMeta, Eras: EraModernOnly,
		Title: "A method 2026-07-28 removed",
		Why:   `A modern peer does not implement it: the request fails with -32601 and a notification is ignored.`,
		Fix:   `ping: none needed; logging/setLevel: set io.modelcontextprotocol/logLevel in a request's _meta; resources/subscribe: subscriptions/listen; notifications/roots/list_changed and notifications/elicitation/complete: gone (retry the request instead).`,
		Spec:  `MCP 2026-07-28, Key Changes 5: "Remove ping, logging/setLevel, and notifications/roots/list_changed." 4: "Replace … resources/subscribe/resources/unsubscribe with subscriptions/listen". Minor 11: "Remove the notifications/elicitation/complete notification". 2: "remove the initialize/notifications/initialized handshake".`,
	},
	// --- caching ---
	{
		Code: "cache-hint-missing", Severity: SeverityError, Family: FamilyCaching, Eras: EraModernOnly,
		Title: "A cacheable result without ttlMs or cacheScope",
		Why:   `Clients and shared gateways decide from these whether and where to cache the listing; validating clients reject a result without them.`,
		Fix:   `Add "ttlMs": <milliseconds, 0 = stale at once> and "cacheScope": "public" | "private" to tools/list, prompts/list, resources/list, resources/templates/list, resources/read and server/discover results.`,
		Spec:  `MCP 2026-07-28 schema.ts › CacheableResult: ttlMs: number (@minimum 0); cacheScope: "public" | "private" (both required). Key Changes, minor 5: "Require ttlMs and cacheScope fields on results returned by tools/list, prompts/list, resources/list, resources/read, and resources/templates/list".`,
	},
	{
		Code: "cache-hint-invalid", Severity: SeverityError, Family: FamilyCaching, Eras: EraModernOnly,
		Title: `A negative ttlMs, or a cacheScope other than "public" or "private"`,
		Why:   `A negative freshness or an unknown scope cannot be honoured: a client may cache private data publicly or never cache at all.`,
		Fix:   `ttlMs is a number ≥ 0 (milliseconds); cacheScope is "public" (no user data) or "private".`,
		Spec:  `MCP 2026-07-28 schema.ts › CacheableResult: "ttlMs … @minimum 0"; "cacheScope: "public" | "private""`,
	},
	// --- multi-round ---
	{
		Code: "input-required-unsupported-method", Severity: SeverityError, Family: FamilyMultiRound, Eras: EraModernOnly,
		Title: "input_required in answer to a method that cannot take it",
		Why:   `Only tools/call, prompts/get and resources/read can be retried with inputResponses; a client treats input_required on anything else as an invalid result.`,
		Fix:   `Answer other methods with a complete result or an error; ask for input only while serving tools/call, prompts/get or resources/read.`,
		Spec:  specMRTRServer + ` / Supported Requests: "Servers MAY send InputRequiredResult responses on the following client requests: prompts/get, resources/read, tools/call" "Servers MUST NOT send InputRequiredResult responses on any other client requests."`,
	},
	{
		Code: "input-required-empty", Severity: SeverityError, Family: FamilyMultiRound, Eras: EraModernOnly,
		Title: "input_required with neither inputRequests nor requestState",
		Why:   `The client has nothing to answer and nothing to echo: it can only retry blindly, and will get the same answer.`,
		Fix:   `Include the inputRequests the server needs, a requestState to echo, or both.`,
		Spec:  specMRTRServer + `: "Servers MUST include at least one of inputRequests or requestState in every InputRequiredResult response."`,
	},
	{
		Code: "input-request-unknown-method", Severity: SeverityError, Family: FamilyMultiRound, Eras: EraModernOnly,
		Title: "An input request that is not elicitation, sampling or roots",
		Why:   `The client knows how to fulfil only these three; any other request in inputRequests cannot be answered, so the retry never comes.`,
		Fix:   `Put only elicitation/create, sampling/createMessage or roots/list requests in inputRequests.`,
		Spec:  specMRTRServer + `: "inputRequests values are request objects that MUST be one of ElicitRequest, CreateMessageRequest, or ListRootsRequest"`,
	},
	{
		Code: "input-request-undeclared-capability", Severity: SeverityError, Family: FamilyMultiRound, Eras: EraModernOnly,
		Title: "An input request for a capability the request did not declare",
		Why:   `The client said (in this request's clientCapabilities) it cannot elicit, sample or list roots; it has no way to answer.`,
		Fix:   `Check the request's io.modelcontextprotocol/clientCapabilities before asking; answer -32021 (MissingRequiredClientCapability) if the input is indispensable.`,
		Spec:  specMRTRServer + `: "Servers MUST NOT send an inputRequests that the client has not declared support for in its capabilities."`,
	},
	{
		Code: "retry-missing-input-responses", Severity: SeverityError, Family: FamilyMultiRound, Eras: EraModernOnly,
		Title: "A retry without the inputResponses the server asked for",
		Why:   `The server needs the answers to go on; without them it asks again (or fails), and the round never completes.`,
		Fix:   `Fulfil every inputRequests entry and send its result under the same key in params.inputResponses of the retry.`,
		Spec:  specMRTRClient + `"If a client receives an InputRequiredResult that contains the inputRequests field, the client MUST construct the requested inputs before retrying the original request." InputResponseRequestParams: "For each key in the response's inputRequests field, the same key must appear here with the associated response."`,
	},
	{
		Code: "request-state-not-echoed", Severity: SeverityError, Family: FamilyMultiRound, Eras: EraModernOnly,
		Title: "A retry that does not echo the requestState exactly",
		Why:   `The server keeps no state: requestState is its memory of the round. Without it, or altered, the server starts over or rejects the retry.`,
		Fix:   `Copy requestState byte for byte from the input_required result into the retry's params; never parse or modify it.`,
		Spec:  specMRTRClient + `"If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request."`,
	},
	{
		Code: "unsolicited-request-state", Severity: SeverityError, Family: FamilyMultiRound, Eras: EraModernOnly,
		Title: "A requestState the server never issued for this request",
		Why:   `The server treats requestState as attacker-controlled input; one it did not issue is rejected, or worse, trusted.`,
		Fix:   `Send requestState only in the retry of a request whose input_required answer carried one.`,
		Spec:  specMRTRClient + `"If the InputRequiredResult does not contain a requestState field, the client MUST NOT include one in the retry."`,
	},
	{
		Code: "retry-reused-id", Severity: SeverityError, Family: FamilyMultiRound, Eras: EraModernOnly,
		Title: "A retry that reuses the id of the request it retries",
		Why:   `The first request is finished and the retry is a new one; reusing its id makes logs, late answers and progress ambiguous.`,
		Fix:   `Give the retry a fresh id from the same counter as any other request.`,
		Spec:  specMRTRClient + `"The JSON-RPC id MUST be different between the initial request and the retry, as they are independent requests."`,
	},
	{
		Code: "request-state-misused", Severity: SeverityError, Family: FamilyMultiRound, Eras: EraModernOnly,
		Title: "A requestState carried to another request",
		Why:   `A requestState belongs to the retry of the one request it was issued for; sent elsewhere it mixes state between operations.`,
		Fix:   `Keep requestState with the request it came from; send it only in that request's retry.`,
		Spec:  specMRTRClient + `"Both the inputRequests and requestState fields affect only the client's retry of the original request. They MUST NOT be used for any other request that the client may be sending in parallel."`,
	},
	// --- subscriptions ---
	{
		Code: "subscription-notification-untagged", Severity: SeverityError, Family: FamilySubscriptions, Eras: EraModernOnly,
		Title: "A change notification without io.modelcontextprotocol/subscriptionId",
		Why:   `On stdio every subscription shares one channel; without the tag the client cannot tell which subscription the notification belongs to, or whether it asked for it.`,
		Fix:   `Put "_meta": {"io.modelcontextprotocol/subscriptionId": <id of the subscriptions/listen request>} on every notification of the stream.`,
		Spec:  `MCP 2026-07-28, Basic › _meta: "On notifications delivered via a subscriptions/listen stream, the server MUST include io.modelcontextprotocol/subscriptionId in _meta so the client can correlate the notification with the originating subscription request." List-changed notifications are "only delivered on a subscriptions/listen stream".`,
	},
	{
		Code: "subscription-unknown", Severity: SeverityError, Family: FamilySubscriptions, Eras: EraModernOnly,
		Title: "A notification tagged with a subscription nobody opened",
		Why:   `The client has no subscription with that id and drops the notification.`,
		Fix:   `Tag notifications with the id of the subscriptions/listen request that opened the stream.`,
		Spec:  specSubscribe + `"The value is the JSON-RPC ID of the subscriptions/listen request that opened the stream."`,
	},
	{
		Code: "subscription-before-ack", Severity: SeverityError, Family: FamilySubscriptions, Eras: EraModernOnly,
		Title: "A notification on a subscription before it was acknowledged",
		Why:   `The acknowledgment tells the client which notification types the server agreed to; notifications before it arrive on a stream the client does not yet consider open.`,
		Fix:   `Send notifications/subscriptions/acknowledged first, then the stream's notifications.`,
		Spec:  specSubscribe + `"This notification MUST be the first message the server sends carrying the subscription's ID in io.modelcontextprotocol/subscriptionId. The server MUST NOT send any notification on the subscription before acknowledging it."`,
	},
	{
		Code: "subscription-not-requested", Severity: SeverityError, Family: FamilySubscriptions, Eras: EraModernOnly,
		Title: "A notification type the subscription did not ask for",
		Why:   `Subscriptions are opt-in per type; the client did not ask for this one and may not handle it.`,
		Fix:   `Send only the types set in the subscription's notifications filter (toolsListChanged, promptsListChanged, resourcesListChanged, resourceSubscriptions).`,
		Spec:  specSubscribe + `"Each notification type is opt-in; the server MUST NOT send notification types the client has not explicitly requested here."`,
	},
	// --- logging ---
	{
		Code: "log-without-level", Severity: SeverityError, Family: FamilyLogging, Eras: EraModernOnly,
		Title: "A log message that no request asked for",
		Why:   `In 2026-07-28 logging is opt-in per request: without a requested level the client did not ask for logs and may not route them.`,
		Fix:   `Send notifications/message only while serving a request whose _meta set io.modelcontextprotocol/logLevel, at that level or above; log to stderr otherwise.`,
		Spec:  `MCP 2026-07-28 schema.ts › RequestMetaObject["io.modelcontextprotocol/logLevel"]: "If absent, the server MUST NOT send any notifications/message notifications for this request." Key Changes 5: "servers MUST NOT emit notifications/message for requests that did not include this field".`,
	},
	{
		Code: "log-below-level", Severity: SeverityWarning, Family: FamilyLogging, Eras: EraBoth,
		Title: "A log message below the level the client asked for",
		Why:   `The client set a minimum level (2026-07-28: in the request's _meta; before: with logging/setLevel, once the server accepted it); messages below it are noise the client asked not to get.`,
		Fix:   `Filter log messages by the level asked for before sending: the request's io.modelcontextprotocol/logLevel, or the last logging/setLevel.`,
		Spec:  `MCP 2026-07-28, Basic › _meta: "io.modelcontextprotocol/logLevel — Minimum log level the server should emit for this request". 2025-11-25 schema.ts › SetLevelRequestParams.level: "The level of logging that the client wants to receive from the server. The server should send all logs at this level and higher (i.e., more severe) to the client as notifications/message."`,
	},
}

// ProtocolRules returns the entries of the protocol judge
// (session/protocol), in registry order.
func ProtocolRules() []Info {
	out := make([]Info, 0, len(protocolEntries)+len(missEntries))
	for _, i := range append(protocolEntries[:len(protocolEntries):len(protocolEntries)], missEntries...) {
		out = append(out, registry()[i.Code])
	}
	return out
}
