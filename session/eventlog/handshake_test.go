package eventlog

import (
	"testing"

	"linesman/wire"
)

// TestHandshakeFromDiscover: the handshake facts of a modern conversation
// come from the fold, by one rule: the version is the one the client's
// server/discover asked for when the result lists it (not the first one
// listed), and serverInfo is read from the result's _meta as well (a go-sdk
// server puts it there; the status bar once showed no name for it).
func TestHandshakeFromDiscover(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	one := func(s string) *wire.Frame { return wire.FramesOf([]byte(s+"\n"), wire.Options{})[0] }
	tr.frame(1, wire.ClientToServer, one(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}`), 1)
	tr.frame(2, wire.ServerToClient, one(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",`+
		`"supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{}},"instructions":"hi",`+
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"everything","version":"2"}}}}`), 2)
	hs := tr.Handshake()
	name, version := hs.ServerName()
	if hs.Era != EraModern || hs.EraPinned || hs.ProtocolVersion != "2026-07-28" || name != "everything" || version != "2" ||
		string(hs.ServerCapabilities) != `{"tools":{}}` || string(hs.ClientCapabilities) != `{"roots":{}}` ||
		hs.Instructions != "hi" || hs.RequestSeq != 1 || hs.ResultSeq != 2 {
		t.Errorf("handshake %+v (server %q %q)", hs, name, version)
	}
	// An era decision pins era and version; a restart keeps a pinned era.
	tr.Apply(&Event{Type: EventEra, Era: &EraDecision{Era: EraLegacy, Version: "2025-06-18"}, Note: "why"})
	tr.Apply(&Event{Type: EventRestart, Restart: &RestartEvent{N: 1}})
	if hs := tr.Handshake(); hs.Era != EraLegacy || !hs.EraPinned || hs.ProtocolVersion != "2025-06-18" || hs.EraRule != "why" {
		t.Errorf("after a decision and a restart: %+v", hs)
	}
}
