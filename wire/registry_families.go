package wire

// The eras a rule applies to (Info.Eras).
const (
	EraBoth       = "both"              // every revision
	EraLegacyOnly = "legacy"            // 2024-11-05 … 2025-11-25 (the initialize handshake)
	EraModernOnly = "2026-07-28"        // 2026-07-28 and later
	EraSince0618  = "2025-06-18 and on" // introduced with 2025-06-18
	EraOnly1125   = "2025-11-25"        // 2025-11-25 alone (tasks, before they became an extension)
	EraSince1125  = "2025-11-25 and on" // introduced with 2025-11-25
)

// Rule families (Info.Family).
const (
	FamilyFraming       = "framing"
	FamilyProcess       = "process"
	FamilyIDs           = "ids"
	FamilyLifecycle     = "lifecycle"
	FamilyCapabilities  = "capabilities"
	FamilyShapes        = "shapes"
	FamilyErrors        = "error-codes"
	FamilyTools         = "tools"
	FamilySchemas       = "schemas"
	FamilyContent       = "content"
	FamilyResources     = "resources"
	FamilyPrompts       = "prompts"
	FamilyPagination    = "pagination"
	FamilyMeta          = "meta"
	FamilyCaching       = "caching"
	FamilyMultiRound    = "multi-round"
	FamilySubscriptions = "subscriptions"
	FamilyLogging       = "logging"
	FamilyTasks         = "tasks"
)

// FamilyInfo names a family of rules.
type FamilyInfo struct {
	Name  string
	Title string
}

// Families returns the rule families in the order reports list them.
func Families() []FamilyInfo {
	return append([]FamilyInfo{
		{FamilyFraming, "Framing: one JSON-RPC message per line"},
		{FamilyProcess, "Process and transport: start, exit, pipes, shutdown"},
		{FamilyIDs, "Ids, answers, cancellation and progress"},
		{FamilyLifecycle, "Lifecycle: initialize handshake, server/discover"},
		{FamilyCapabilities, "Capability negotiation: only what was declared"},
		{FamilyShapes, "Shapes of params and results per method"},
		{FamilyErrors, "Error codes per era"},
		{FamilyTools, "Tools: names, listings, results"},
		{FamilySchemas, "Tool schemas: inputSchema, outputSchema, arguments, structuredContent"},
		{FamilyContent, "Content blocks: text, image, audio, resource_link, resource"},
		{FamilyResources, "Resources: URIs and contents"},
		{FamilyPrompts, "Prompts: required arguments"},
		{FamilyPagination, "Pagination: cursors only as issued"},
		{FamilyMeta, "_meta: required keys, key names, removed methods (2026-07-28)"},
		{FamilyCaching, "Caching hints: ttlMs and cacheScope (2026-07-28)"},
		{FamilyMultiRound, "Multi-round requests: input_required and requestState (2026-07-28)"},
		{FamilySubscriptions, "Subscriptions: subscriptions/listen and its tags (2026-07-28)"},
		{FamilyLogging, "Logging: declared, and opted in per request (2026-07-28)"},
		{FamilyTasks, "Tasks: shapes, capabilities and the status lifecycle (2025-11-25)"},
	}, ciFamilies...)
}

// familyOf places the framing, process and tracker codes of entries.
var familyOf = map[string]string{
	"non-json-line": FamilyFraming, "multi-line-frame": FamilyFraming, "blank-line": FamilyFraming,
	"crlf-line-ending": FamilyFraming, "invalid-utf8": FamilyFraming, "utf8-bom": FamilyFraming,
	"control-characters": FamilyFraming, "unterminated-frame": FamilyFraming, "oversize-frame": FamilyFraming,
	"batch-array": FamilyFraming, "invalid-jsonrpc": FamilyFraming, "duplicate-key": FamilyFraming,
	"non-integer-id": FamilyFraming, "unflushed-output": FamilyProcess,
	"pipe-held-after-exit": FamilyProcess, "ignored-stdin-eof": FamilyProcess, "needed-sigkill": FamilyProcess,
	"stdin-not-read": FamilyProcess, "exit-at-start": FamilyProcess, "exited-during-request": FamilyProcess,
	"stderr-escape-sequences": FamilyProcess,
	"missing-result-type":     FamilyMeta, "unknown-result-type": FamilyMeta, "server-request-in-modern-era": FamilyMeta,
	"message-before-initialized": FamilyLifecycle,
}

// withFamily fills in the family (and era) of an entry that does not name one.
func withFamily(i Info) Info {
	if i.Family == "" {
		i.Family = familyOf[i.Code]
		if i.Family == "" {
			i.Family = FamilyIDs
		}
	}
	if i.Eras == "" {
		switch i.Code {
		case "missing-result-type", "unknown-result-type", "server-request-in-modern-era":
			i.Eras = EraModernOnly
		case "message-before-initialized":
			i.Eras = EraLegacyOnly
		default:
			i.Eras = EraBoth
		}
	}
	return i
}
