package capture

import (
	"strings"

	"linesman/session"
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
func (rd *reader) v1Note(ev *session.Event) {
	note := ev.Note
	decide := func(era session.Era, version string) {
		ev.Type, ev.Era = session.EventEra, &session.EraDecision{Era: era, Version: version}
	}
	switch {
	case strings.HasPrefix(note, v1RestartNote):
		ev.Type, ev.Restart = session.EventRestart, &session.RestartEvent{N: v1RestartNumber(note)}
	case strings.HasPrefix(note, v1EraLegacyNote):
		decide(session.EraLegacy, session.LegacyProtocolVersion)
	case strings.HasPrefix(note, v1EraModernNote):
		// "era modern (protocol 2026-07-28): ..." names the version.
		version := session.ModernProtocolVersion
		if rest, ok := strings.CutPrefix(note, v1EraModernNote+" (protocol "); ok {
			if v, _, ok := strings.Cut(rest, ")"); ok {
				version = v
			}
		}
		decide(session.EraModern, version)
	case strings.HasPrefix(note, v1NoHandshakeNote):
		switch rd.c.Header.Era {
		case "legacy":
			decide(session.EraLegacy, session.LegacyProtocolVersion)
		case "modern":
			decide(session.EraModern, session.ModernProtocolVersion)
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
