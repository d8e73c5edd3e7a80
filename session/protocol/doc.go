// Package protocol judges an MCP conversation against the rules of its
// protocol revision: the lifecycle and handshake, capability negotiation,
// the shapes of params and results per method, error codes, tools and their
// schemas, content blocks, resources, prompts, pagination, and the
// 2026-07-28 rules (request _meta, caching hints, server/discover,
// multi-round input_required requests, subscriptions, logging opt-in,
// removed methods).
//
// It is a pure fold: a Judge is fed classified frames (wire.Frame) in log
// order, each with its direction and — for a response — the request it
// answers, as the session's fold pairs them; it appends its findings to the
// frame and keeps only the conversational state the rules need (capabilities
// declared by each side, tools and their schemas, cursors issued, rounds of
// input_required, subscriptions, log levels asked for). It starts no
// goroutines, does no I/O and imports only wire (and the embedded MCP
// schemas, third_party/mcp-schema); the session runs it
// live, on view and export, on captures and on foreign logs, through the
// same fold. Every code it raises is a registry entry in wire
// (registry_protocol.go) with its clause; Coverage says, per rule family,
// how many of the server's frames its rules judged and whether they held,
// were broken, were not observed (judged nothing) or do not apply to the
// session's era.
//
// Schemas are validated by a JSON Schema validator of the package's own
// (schema*.go: JSON Schema 2020-12, MCP's default dialect, and the drafts a
// schema may name), whose verdicts are three-valued: what it cannot judge
// is "not checked", never a finding. It loads nothing (MCP forbids
// dereferencing network $refs by default), costs nothing at start-up, and
// compiles each distinct schema once, when its listing arrives.
//
// Every message is also validated against the published JSON schema of its
// revision (schemajudge*.go: schema-invalid), on the bytes, with the
// definitions compiled once per revision on first use; a fault a
// hand-written rule already names is not repeated, and where schema.json is
// stricter than schema.ts, schema.ts wins.
package protocol
