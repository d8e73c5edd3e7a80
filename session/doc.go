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
