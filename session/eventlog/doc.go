// Package eventlog holds a session's event log, its typed events and the one
// projection of it: the [Tracker], a pure fold whose only door is
// [Tracker.Apply]. Every fact derived from a conversation — which answer
// pairs with which request, what is in flight, the era and the handshake,
// what each side declared, what the server offers, the process status,
// every finding, framing and protocol alike — is computed here, once, the
// same way live, on view, on export, on a capture and on a foreign log.
//
// It must not start goroutines, processes or read clocks on its own: what
// the clock and the process tell the fold (a timeout, stdin's close, the
// end) arrives as typed events the live session logs ([EventTimeout],
// [EventStdinClosed], [EventEnd]), so that a capture replays them without
// guessing. A new fact goes here, as an accessor of the Tracker fed by
// Apply; the UI, the reports and capture read it and never work it out
// again. The process code lives in package session, which logs the events.
package eventlog

// Version is linesman's version, written with the logs it describes: into
// capture headers and reports.
const Version = "0.1.0"
