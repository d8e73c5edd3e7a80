package eventlog

import (
	"encoding/json"
	"slices"

	"linesman/session/protocol"
	"linesman/wire"
)

// Handshake is what the conversation established about its two sides: the
// era and protocol version, who the server is, and what each side declared.
// It is a fact of the projection ([Tracker.Handshake]): the fold works it
// out once, from the frames and the era decisions in the log, and the
// session, the UI, the reports and capture all read it from there.
//
// Where the facts come from:
//   - Era: the last era decision logged ([EventEra]: the handshake's probe,
//     --era, a capture's header), else inferred from the frames (an
//     initialize request means legacy; a server/discover answer offering a
//     2026-07-28 or later version, or a -32022 error to it, means modern).
//   - ProtocolVersion: the era decision's version; in the legacy era the
//     protocolVersion of the initialize result replaces it; with no decision,
//     the version a server/discover request asked for in its _meta when the
//     result lists it, else the newest modern version the result offers.
//   - ServerInfo, ServerCapabilities, Instructions: the last initialize or
//     server/discover result answering a client request (serverInfo may sit
//     in the discover result's _meta too).
//   - ClientInfo, ClientCapabilities: the client's initialize params, or the
//     _meta of its server/discover request.
//
// Raw JSON members are nil when unknown, never JSON null. A Handshake handed
// out by the Tracker is a copy: the caller may keep it.
type Handshake struct {
	Era Era
	// EraPinned says an era decision fixed Era; otherwise it was inferred
	// from the frames (and a restart forgets it).
	EraPinned bool
	// EraRule is the decision's reason, as logged ("" when inferred).
	EraRule         string
	ProtocolVersion string

	ServerInfo         json.RawMessage // the serverInfo object (Implementation)
	ServerCapabilities json.RawMessage
	Instructions       string
	ClientInfo         json.RawMessage
	ClientCapabilities json.RawMessage

	// RequestSeq and ResultSeq are the Seqs of the client request and the
	// answer that told the server facts above (0: none yet).
	RequestSeq, ResultSeq uint64
	// Initialized: the client sent notifications/initialized (legacy) in
	// the current process.
	Initialized bool
}

// ServerName is serverInfo.name and serverInfo.version, or "" when the
// server did not say. It is server text: make it inert before showing it.
func (h *Handshake) ServerName() (name, version string) {
	var si struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if len(h.ServerInfo) == 0 || json.Unmarshal(h.ServerInfo, &si) != nil {
		return "", ""
	}
	return si.Name, si.Version
}

// ServerDeclares reports whether the server declared the capability
// ("tools", "resources.subscribe"), by the one rule of [protocol.Declares].
func (h *Handshake) ServerDeclares(capability string) bool {
	return protocol.Declares(h.ServerCapabilities, capability)
}

// ClientDeclares is [Handshake.ServerDeclares] for the client's capabilities.
func (h *Handshake) ClientDeclares(capability string) bool {
	return protocol.Declares(h.ClientCapabilities, capability)
}

func (h Handshake) clone() Handshake {
	h.ServerInfo = slices.Clone(h.ServerInfo)
	h.ServerCapabilities = slices.Clone(h.ServerCapabilities)
	h.ClientInfo = slices.Clone(h.ClientInfo)
	h.ClientCapabilities = slices.Clone(h.ClientCapabilities)
	return h
}

// EraDecision is the payload of an [EventEra] event: the era (and protocol
// version) the session decided to speak, and why. Era EraUnknown unpins a
// decision: the fold infers the era from the frames again.
type EraDecision struct {
	Era     Era
	Version string // "" when no version was agreed (a failed initialize)
	// ProbeAbandoned: the session stopped waiting for its own era probe
	// (no answer to server/discover within its bound) and decided without
	// it. The client's server/discover requests still in flight are
	// linesman's impatience, not the server's fault: a late answer to one
	// is no late-response, and a later request reusing its id no reused-id.
	ProbeAbandoned bool
}

// RestartEvent is the payload of an [EventRestart] event: the session
// replaced its process by a fresh one (the n-th restart).
type RestartEvent struct {
	N       int
	Command []string
}

// Handshake returns the handshake facts as the fold stands.
func (t *Tracker) Handshake() Handshake {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hs.clone()
}

// decide applies an era decision, logged with the words why.
func (t *Tracker) decide(d EraDecision, why string) {
	if d.ProbeAbandoned {
		for _, es := range t.spaces[wire.ClientToServer].inflight {
			for _, e := range es {
				if e.Method == "server/discover" {
					e.Abandoned = true
				}
			}
		}
	}
	t.hs.Era = d.Era
	t.hs.EraPinned = d.Era != EraUnknown
	t.hs.EraRule = why
	if d.Era != EraUnknown {
		t.hs.ProtocolVersion = d.Version
	}
}

// learnRequest reads what a client's initialize or server/discover request
// declares about the client.
func (t *Tracker) learnRequest(seq uint64, f *wire.Frame) {
	var body struct {
		Params struct {
			ProtocolVersion string          `json:"protocolVersion"`
			Capabilities    json.RawMessage `json:"capabilities"`
			ClientInfo      json.RawMessage `json:"clientInfo"`
			Meta            struct {
				Version      string          `json:"io.modelcontextprotocol/protocolVersion"`
				Capabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
				ClientInfo   json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(f.Raw(), &body) != nil {
		return
	}
	p := &body.Params
	caps, info := nonNull(p.Capabilities), nonNull(p.ClientInfo)
	if f.Msg.Method == "initialize" {
		t.initAsked = p.ProtocolVersion
	}
	if f.Msg.Method == "server/discover" {
		caps, info = nonNull(p.Meta.Capabilities), nonNull(p.Meta.ClientInfo)
		t.discoverVersion[f.Msg.ID] = p.Meta.Version
	}
	t.hs.RequestSeq = seq
	if caps != nil {
		t.hs.ClientCapabilities = caps
	}
	if info != nil {
		t.hs.ClientInfo = info
	}
}

// learnAnswer reads what the answer f (at seq) to the client's request e
// tells about the server: the initialize result, or the server/discover
// result or error.
func (t *Tracker) learnAnswer(e *entry, seq uint64, f *wire.Frame) {
	switch e.Method {
	case "initialize":
		if f.Msg.Kind != wire.KindResult {
			return
		}
		var body struct {
			Result struct {
				ProtocolVersion looseString     `json:"protocolVersion"`
				Capabilities    json.RawMessage `json:"capabilities"`
				ServerInfo      json.RawMessage `json:"serverInfo"`
				Instructions    looseString     `json:"instructions"`
			} `json:"result"`
		}
		if json.Unmarshal(f.Raw(), &body) != nil {
			return
		}
		r := &body.Result
		if !t.hs.EraPinned {
			t.hs.Era = EraLegacy
		}
		// A version no revision with an initialize has (a typo, a date to
		// come, 2026-07-28) is not adopted as if known: the rules judge by
		// the version the client asked for (initialize-result-version-invalid
		// names the answer's).
		switch v := string(r.ProtocolVersion); {
		case protocol.KnownLegacyVersion(v):
			t.hs.ProtocolVersion = v
		case protocol.KnownLegacyVersion(t.initAsked):
			t.hs.ProtocolVersion = t.initAsked
		}
		t.hs.ServerInfo = nonNull(r.ServerInfo)
		t.hs.ServerCapabilities = nonNull(r.Capabilities)
		t.hs.Instructions = string(r.Instructions)
		t.hs.ResultSeq = seq
	case "server/discover":
		asked, ours := t.discoverVersion[e.ID]
		if !ours {
			return
		}
		era, version, _ := DecideEra(f)
		if !t.hs.EraPinned {
			t.hs.Era = era
		}
		d, ok := parseDiscover(f)
		if t.hs.ProtocolVersion == "" && t.hs.Era == EraModern {
			if ok && asked != "" && (len(d.SupportedVersions) == 0 || slices.Contains(d.SupportedVersions, asked)) {
				t.hs.ProtocolVersion = asked
			} else {
				t.hs.ProtocolVersion = version
			}
		}
		if !ok {
			return
		}
		info := nonNull(d.ServerInfo)
		if info == nil {
			info = nonNull(d.Meta.ServerInfo)
		}
		if info != nil {
			t.hs.ServerInfo = info
		}
		if c := nonNull(d.Capabilities); c != nil {
			t.hs.ServerCapabilities = c
		}
		if d.Instructions != "" {
			t.hs.Instructions = string(d.Instructions)
		}
		t.hs.ResultSeq = seq
	}
}

// isModernVersion reports whether a protocol version string names the
// 2026-07-28 revision or a later one (versions are dates, so they sort).
func isModernVersion(v string) bool { return v >= ModernProtocolVersion }

// looseString is a string member of an answer the handshake learns from:
// a value of another type (the judge flags it) reads as "" instead of
// failing the decoding of the whole answer, which lost the server's info,
// version and capabilities with it.
type looseString string

func (s *looseString) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = looseString(v)
	}
	return nil
}

// looseStrings is a list of strings read the same way: members that are
// not strings are left out.
type looseStrings []string

func (s *looseStrings) UnmarshalJSON(b []byte) error {
	var vs []json.RawMessage
	if json.Unmarshal(b, &vs) != nil {
		return nil
	}
	for _, raw := range vs {
		var v string
		if json.Unmarshal(raw, &v) == nil {
			*s = append(*s, v)
		}
	}
	return nil
}
