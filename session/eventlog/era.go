package eventlog

import (
	"encoding/json"
	"fmt"
	"slices"

	"linesman/wire"
)

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

// The _meta keys every 2026-07-28 request carries.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// DecideEra is the one rule for the era an answer to server/discover
// shows, and says which clause of the rule decided: the session's probe
// decides by it, and the fold infers by it when nothing pinned the era (a
// tap, a capture, a foreign log), so the same bytes give the same era in
// every view. A result offering a 2026-07-28 or later version, or -32022
// (unsupported version) listing one or listing nothing, means modern;
// -32022 listing only earlier versions, any other error, a result that is
// no DiscoverResult (no supportedVersions: some legacy servers answer any
// method with {}) or offering only earlier versions means legacy.
func DecideEra(f *wire.Frame) (era Era, version, rule string) {
	if f.Msg.Kind == wire.KindError {
		if f.Msg.ErrorCode() != CodeUnsupportedProtocolVersion {
			return EraLegacy, "", fmt.Sprintf("server/discover failed with %d (%s), not a modern error", f.Msg.ErrorCode(), f.Msg.ErrorMessage())
		}
		var body struct {
			Error struct {
				Data struct {
					Supported []string `json:"supported"`
				} `json:"data"`
			} `json:"error"`
		}
		_ = json.Unmarshal(f.Raw(), &body)
		supported := body.Error.Data.Supported
		if v := pickModern(supported); v != "" {
			return EraModern, v, fmt.Sprintf("server/discover answered -32022 (unsupported protocol version) listing %v", supported)
		}
		if len(supported) > 0 {
			return EraLegacy, "", fmt.Sprintf("server/discover answered -32022 but lists only legacy versions %v", supported)
		}
		return EraModern, ModernProtocolVersion, "server/discover answered -32022 (unsupported protocol version), a modern error"
	}
	d, ok := parseDiscover(f)
	if !ok {
		return EraLegacy, "", "the answer to server/discover is not a result object"
	}
	if len(d.SupportedVersions) == 0 {
		// Some legacy servers answer any method with an empty result; a
		// DiscoverResult must list supportedVersions.
		return EraLegacy, "", "the result to server/discover lists no supportedVersions, so it is no DiscoverResult"
	}
	if v := pickModern(d.SupportedVersions); v != "" {
		return EraModern, v, fmt.Sprintf("server/discover answered with a result offering %v", d.SupportedVersions)
	}
	return EraLegacy, "", fmt.Sprintf("server/discover answered, but offers only legacy versions %v", d.SupportedVersions)
}

// pickModern chooses the version to speak from a server's list: ours when
// listed, else the newest modern version it lists, else "".
func pickModern(versions []string) string {
	if slices.Contains(versions, ModernProtocolVersion) {
		return ModernProtocolVersion
	}
	best := ""
	for _, v := range versions {
		if isModernVersion(v) && v > best {
			best = v
		}
	}
	return best
}

// discoverResult is what linesman reads from a server/discover result.
type discoverResult struct {
	SupportedVersions looseStrings    `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities"`
	Instructions      looseString     `json:"instructions"`
	ServerInfo        json.RawMessage `json:"serverInfo"`
	Meta              struct {
		ServerInfo json.RawMessage `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

func parseDiscover(f *wire.Frame) (discoverResult, bool) {
	var body struct {
		Result *discoverResult `json:"result"`
	}
	if json.Unmarshal(f.Raw(), &body) != nil || body.Result == nil {
		return discoverResult{}, false
	}
	return *body.Result, true
}

func nonNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return slices.Clone(b)
}
