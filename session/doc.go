// Package session is the client side of linesman: it starts an MCP server as
// an isolated child process, writes to its stdin and reads its stdout and
// stderr, and records everything in one event Log.
//
// The Log is the single model of a session: the UI renders it, capture
// records it, the headless modes report it. The Tracker is its one
// projection: a fold over the Log's events that works out every derived
// fact once — request/response pairing ([Tracker.PairOf]), what is in flight,
// the handshake ([Tracker.Handshake]), the protocol findings of each frame
// (judged at one place, see [Judge]) — the same way live, on a capture, on a
// log filled by hand and on export. Facts the fold needs are typed events
// ([EventEra], [EventRestart]), never prose. Nothing in this package touches
// a terminal or imports the UI; reports live in session/report.
package session

// Version is linesman's version, written into reports and capture headers.
const Version = "0.1.0"

// Era is the MCP protocol era a session speaks.
type Era uint8

const (
	EraUnknown Era = iota // not decided yet (or no handshake was made)
	EraLegacy             // 2024-11-05 … 2025-11-25: initialize handshake, sessionful
	EraModern             // 2026-07-28 and later: stateless, server/discover, _meta on every request
)

// String returns "unknown", "legacy" or "modern" (the spelling of the JSON report).
func (e Era) String() string {
	switch e {
	case EraLegacy:
		return "legacy"
	case EraModern:
		return "modern"
	default:
		return "unknown"
	}
}

// Protocol versions linesman speaks by default in each era.
const (
	LegacyProtocolVersion = "2025-11-25"
	ModernProtocolVersion = "2026-07-28"
)
