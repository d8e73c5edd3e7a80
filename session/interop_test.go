package session

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Interop: real servers built with the two Go MCP SDKs run as fake servers
// inside the test binary, and linesman must talk to them in both eras
// without raising a finding they do not deserve.

func TestInterop(t *testing.T) {
	cases := []struct {
		fake     string
		era      eventlog.Era // asked for; EraUnknown = probe
		want     eventlog.Era // decided
		version  string
		infoName string
	}{
		{"proto-gosdk", eventlog.EraUnknown, eventlog.EraModern, eventlog.ModernProtocolVersion, "gosdk-fake"},
		{"proto-gosdk", eventlog.EraLegacy, eventlog.EraLegacy, eventlog.LegacyProtocolVersion, "gosdk-fake"},
		{"proto-gosdk", eventlog.EraModern, eventlog.EraModern, eventlog.ModernProtocolVersion, "gosdk-fake"},
		{"proto-gosdk-legacy", eventlog.EraUnknown, eventlog.EraLegacy, eventlog.LegacyProtocolVersion, "gosdk-fake"},
		{"proto-mcpgo", eventlog.EraUnknown, eventlog.EraModern, eventlog.ModernProtocolVersion, "mcpgo-fake"},
		{"proto-mcpgo", eventlog.EraLegacy, eventlog.EraLegacy, eventlog.LegacyProtocolVersion, "mcpgo-fake"},
		{"proto-mcpgo", eventlog.EraModern, eventlog.EraModern, eventlog.ModernProtocolVersion, "mcpgo-fake"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s", tc.fake, tc.era), func(t *testing.T) {
			s := startProto(t, tc.fake, Config{Era: tc.era})
			ctx := ctxT(t)
			if err := s.Handshake(ctx); err != nil {
				t.Fatalf("handshake: %v\n%s", err, dumpLog(s.Log()))
			}
			if s.Era() != tc.want || s.ProtocolVersion() != tc.version {
				t.Fatalf("era %s version %q, want %s %q; notes %q", s.Era(), s.ProtocolVersion(), tc.want, tc.version, notes(s.Log()))
			}
			if !strings.Contains(string(s.ServerInfo()), tc.infoName) {
				t.Errorf("server info %s", s.ServerInfo())
			}
			list, err := s.Call(ctx, "tools/list", nil)
			if err != nil {
				t.Fatal(err)
			}
			if list.Msg.Kind != wire.KindResult || !strings.Contains(string(list.Raw()), `"echo"`) {
				t.Fatalf("tools/list: %s", list.Raw())
			}
			call, err := s.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello from linesman"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := resultText(t, call); got != "hello from linesman" {
				t.Fatalf("tools/call: %s", call.Raw())
			}
			// go-sdk servers cancel what is in flight when stdin closes:
			// everything was answered before the shutdown.
			if n := len(s.Tracker().InFlight()); n != 0 {
				t.Fatalf("%d requests still in flight", n)
			}
			stopSession(t, s)
			if fs := findings(s.Log()); len(fs) != 0 {
				t.Errorf("findings on a well-behaved SDK server: %q\n%s", fs, dumpLog(s.Log()))
			}
			want := []string{"initialize", "notifications/initialized", "tools/list", "tools/call"}
			switch {
			case tc.want == eventlog.EraModern:
				want = []string{"server/discover", "tools/list", "tools/call"}
			case tc.era == eventlog.EraUnknown:
				want = append([]string{"server/discover"}, want...)
			}
			if got := clientMethods(s.Log()); !slices.Equal(got, want) {
				t.Errorf("client sent %q, want %q", got, want)
			}
			for _, r := range s.Tracker().Requests() {
				if r.State != eventlog.ReqAnswered && !(r.Method == "server/discover" && r.State == eventlog.ReqError) {
					t.Errorf("request %s %s ended %s", r.ID, r.Method, r.State)
				}
			}
		})
	}
}

// A go-sdk server with keepalive sends its own pings, numbered from 1 like
// the client's initialize: separate id spaces, no reuse; linesman answers
// each ping at once, so the server keeps the session.
func TestInteropServerPings(t *testing.T) {
	s := startProto(t, "proto-gosdk-keepalive", Config{Era: eventlog.EraLegacy})
	ctx := ctxT(t)
	if err := s.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{1, 2, 3} {
		if got := answerTo(t, s, id); got.Msg.Kind != wire.KindResult {
			t.Fatalf("ping %d answered %s", id, got.Raw())
		}
	}
	if _, err := s.Call(ctx, "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	r, ok := s.Tracker().Lookup(wire.ServerToClient, wire.IntID(1))
	if !ok || r.Method != "ping" || r.State != eventlog.ReqAnswered {
		t.Errorf("server ping 1: %+v", r)
	}
	stopSession(t, s)
	if fs := findings(s.Log()); len(fs) != 0 {
		t.Errorf("findings: %q\n%s", fs, dumpLog(s.Log()))
	}
}
