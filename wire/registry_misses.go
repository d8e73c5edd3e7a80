package wire

// missEntries are the rules issue 28's second corpus found missing: a
// server's answer to a capability it needed, trace context, paged cache
// scopes, a subscription's close, embedded resources, targets no listing
// named.
var missEntries = []Info{
	{
		Code: "id-unsafe-integer", Severity: SeverityWarning, Family: FamilyIDs, Eras: EraBoth,
		Title: "A request id or progress token that is an integer outside ±(2^53−1)",
		Why:   `JSON numbers are read as IEEE-754 doubles by JavaScript (JSON.parse), which is how Claude Desktop, VS Code, Cursor and the TypeScript SDK read them: 9007199254740993 comes out as 9007199254740992, so the answer carries another id and pairs with nothing, or with the wrong request.`,
		Fix:   `Count ids from 1 (or use string ids); never use a timestamp in nanoseconds, a hash or a random 64-bit number as a numeric id.`,
		Spec:  `RFC 8259 › 6 Numbers: "numbers that are integers and are in the range [-(2**53)+1, (2**53)-1] are interoperable in the sense that implementations will agree exactly on their numeric values"; JSON-RPC 2.0 › Request object: id "MUST contain a String, Number, or NULL value … Numbers SHOULD NOT contain fractional parts"; MCP schema.ts RequestId and ProgressToken: string | number.`,
	},
	{
		Code: "capability-error-incomplete", Severity: SeverityError, Family: FamilyErrors, Eras: EraModernOnly,
		Title: "A -32021 (missing required client capability) without data.requiredCapabilities",
		Why:   `-32021 tells the client to retry declaring more; without requiredCapabilities it cannot tell what to declare, and retries blind or gives up.`,
		Fix:   `Answer {"code":-32021,"message":"…","data":{"requiredCapabilities":{"elicitation":{}}}}: the capabilities the request needs, as a ClientCapabilities object.`,
		Spec:  `MCP 2026-07-28, schema.ts MissingRequiredClientCapabilityError: "Returned when processing a request requires a capability the client did not declare in clientCapabilities", its error.data required, with "requiredCapabilities: ClientCapabilities — The capabilities the server requires from the client to process this request."`,
	},
	{
		Code: "trace-context-invalid", Severity: SeverityWarning, Family: FamilyMeta, Eras: EraSince0618,
		Title: "A traceparent in _meta that is not a W3C Trace Context traceparent",
		Why:   `traceparent is the one unprefixed _meta key MCP reserves, for OpenTelemetry: a receiver parses it as W3C's traceparent, and a malformed one breaks the trace (or is dropped, so spans no longer join).`,
		Fix:   `Write version-traceid-parentid-flags in lower-case hex: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" (a 32-digit trace id and a 16-digit parent id, neither all zeros), as OpenTelemetry's propagator does.`,
		Spec:  `MCP, Basic › _meta (SEP-414): "When OTel trace context is propagated via _meta, the keys traceparent, tracestate, and baggage follow W3C Trace Context and W3C Baggage value formats." W3C Trace Context › traceparent: version "00", trace-id 32 HEXDIGLC not all zero, parent-id 16 HEXDIGLC not all zero, trace-flags 2 HEXDIGLC.`,
	},
	{
		Code: "cache-scope-inconsistent", Severity: SeverityError, Family: FamilyCaching, Eras: EraModernOnly,
		Title: "The pages of one listing with different cacheScope",
		Why:   `A client (or a shared gateway) caches each page by its scope: a listing whose first page is public and a later one private is half shareable, and a cache can serve one user's private page beside another's public ones.`,
		Fix:   `Decide the scope once per listing and put it on every page (private when any page varies by caller).`,
		Spec:  `MCP 2026-07-28, Server › Utilities › Caching › Pagination: "Servers MUST apply the same cacheScope to all pages of a paginated list."`,
	},
	{
		Code: "subscription-close-not-empty", Severity: SeverityWarning, Family: FamilySubscriptions, Eras: EraModernOnly,
		Title: "The result closing a subscriptions/listen stream carries a body",
		Why:   `The answer to subscriptions/listen only says the stream ended; a client does not read anything else in it, so what the server put there (a last notification, a listing) is lost.`,
		Fix:   `Close with {"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":ID}} and nothing more; send what must be said as notifications before it.`,
		Spec:  `MCP 2026-07-28, schema.ts SubscriptionsListenResult: "The response to a subscriptions/listen request, signalling that the subscription has ended gracefully … The result body is otherwise empty."`,
	},
	{
		Code: "unsupported-version-answered", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraModernOnly,
		Title: "A request of a version the server/discover result did not list, answered with a result",
		Why:   `A client reads supportedVersions to choose the version it speaks; a server that lists one set and serves another leaves the client judging results by a revision the server never promised (and linesman judging the conversation by the era the listing implies).`,
		Fix:   `List in supportedVersions every version you serve, and answer a request of any other with -32022 and data {"requested": V, "supported": [...]}.`,
		Spec:  `MCP 2026-07-28, schema.ts UnsupportedProtocolVersionError (SEP-2575): returned "when a server does not support the protocol version requested via io.modelcontextprotocol/protocolVersion"; a server that receives a request whose declared protocol version it does not implement MUST return it, with data.supported "Protocol versions the server supports".`,
	},
	{
		Code: "embedded-resource-undeclared", Severity: SeverityWarning, Family: FamilyContent, Eras: EraBoth,
		Title: "An embedded resource from a server without the resources capability",
		Why:   `A host follows an embedded resource's uri with resources/read (to refresh it, or to subscribe); from a server that declared no resources, that read fails.`,
		Fix:   `Declare "resources": {} and serve resources/read for the URIs you embed, or return the content as text (or a resource_link to a server that serves it).`,
		Spec:  `MCP 2025-06-18 and 2025-11-25, Server › Tools › Tool Result › Embedded Resources: "Servers that use embedded resources SHOULD implement the resources capability."`,
	},
	{
		Code: "unlisted-target-answered", Severity: SeverityWarning, Family: FamilyTools, Eras: EraBoth,
		Title: "A call of a tool or prompt no listing named, answered with success",
		Why:   `The server listed what it serves, completely; a call of another name is a client's mistake (a typo, a tool of another server) that the server should refuse with -32602, so that the model learns the name is wrong instead of acting on an answer to a call that named nothing.`,
		Fix:   `Look the name up among what you list and answer an unknown one with -32602 (Invalid params: "Unknown tool: NAME"), as the SDKs do; list every tool you serve.`,
		Spec:  `MCP 2025-11-25, Server › Tools › Error Handling: "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools" (schema.ts InvalidParamsError: "Tools: Unknown tool name"; "Prompts: Unknown prompt name"); Server › Prompts › Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid prompt name: -32602 (Invalid params)".`,
	},
}
