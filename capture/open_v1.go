package capture

import (
	"strings"

	"linesman/session/eventlog"
)

// How the notes of format version 1 begin where the session told its
// tracker something (session.Restart and session/era.go of linesman 0.1.0):
// in those files the notes are the only trace of it. Never used for later
// versions, which record era decisions and restarts as typed records.
const (
	v1RestartNote     = "restart #"
	v1EraLegacyNote   = "era legacy"
	v1EraModernNote   = "era modern"
	v1NoHandshakeNote = "automatic handshake off"
)

// v1Note turns a note of a version-1 capture that recorded a decision
// (an era, a restart) into the typed event a later version records, with
// the note's words kept for display: the era decision of the handshake
// (a note says it), or --era with the handshake off (the header says which).
func (rd *reader) v1Note(ev *eventlog.Event) {
	note := ev.Note
	decide := func(era eventlog.Era, version string) {
		ev.Type, ev.Era = eventlog.EventEra, &eventlog.EraDecision{Era: era, Version: version}
	}
	switch {
	case strings.HasPrefix(note, v1RestartNote):
		ev.Type, ev.Restart = eventlog.EventRestart, &eventlog.RestartEvent{N: v1RestartNumber(note)}
	case strings.HasPrefix(note, v1EraLegacyNote):
		decide(eventlog.EraLegacy, eventlog.LegacyProtocolVersion)
	case strings.HasPrefix(note, v1EraModernNote):
		// "era modern (protocol 2026-07-28): ..." names the version.
		version := eventlog.ModernProtocolVersion
		if rest, ok := strings.CutPrefix(note, v1EraModernNote+" (protocol "); ok {
			if v, _, ok := strings.Cut(rest, ")"); ok {
				version = v
			}
		}
		decide(eventlog.EraModern, version)
	case strings.HasPrefix(note, v1NoHandshakeNote):
		switch rd.c.Header.Era {
		case "legacy":
			decide(eventlog.EraLegacy, eventlog.LegacyProtocolVersion)
		case "modern":
			decide(eventlog.EraModern, eventlog.ModernProtocolVersion)
		}
	}
}

// v1RestartNumber reads n from "restart #n: ...".
func v1RestartNumber(note string) int {
	n := 0
	for _, c := range strings.TrimPrefix(note, v1RestartNote) {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
