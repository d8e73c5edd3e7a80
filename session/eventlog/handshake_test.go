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

// TestHandshakeUnknownVersionNotAdopted: an initialize result naming a
// version no initialize revision has is not adopted as if known; the
// rules judge by the version the client asked for (seven false
// content-block-invalid calls once followed a "2026-07-28" adopted here).
func TestHandshakeUnknownVersionNotAdopted(t *testing.T) {
	for _, answered := range []string{"2026-07-28", "2099-01-01", "latest"} {
		tr := NewTracker(TrackerOptions{})
		one := func(s string) *wire.Frame { return wire.FramesOf([]byte(s+"\n"), wire.Options{})[0] }
		tr.frame(1, wire.ClientToServer, one(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), 1)
		tr.frame(2, wire.ServerToClient, one(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"`+answered+`","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`), 2)
		if hs := tr.Handshake(); hs.Era != EraLegacy || hs.ProtocolVersion != "2025-06-18" {
			t.Errorf("answered %s: era %v version %q, want legacy 2025-06-18", answered, hs.Era, hs.ProtocolVersion)
		}
	}
}

// TestHandshakeStrayInitializeAfterDiscover: an initialize after a
// server/discover answer decided the modern era, refused, leaves the
// conversation modern; one the server accepts makes it legacy.
func TestHandshakeStrayInitializeAfterDiscover(t *testing.T) {
	one := func(s string) *wire.Frame { return wire.FramesOf([]byte(s+"\n"), wire.Options{})[0] }
	for _, tc := range []struct {
		answer string
		want   Era
	}{
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`, EraModern},
		{`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`, EraLegacy},
	} {
		tr := NewTracker(TrackerOptions{})
		tr.frame(1, wire.ClientToServer, one(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), 1)
		tr.frame(2, wire.ServerToClient, one(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}}`), 2)
		tr.frame(3, wire.ClientToServer, one(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), 3)
		if hs := tr.Handshake(); hs.Era != EraModern {
			t.Errorf("after the stray initialize: era %v, want modern", hs.Era)
		}
		tr.frame(4, wire.ServerToClient, one(tc.answer), 4)
		if hs := tr.Handshake(); hs.Era != tc.want {
			t.Errorf("answer %s: era %v, want %v", tc.answer, hs.Era, tc.want)
		}
	}
}
