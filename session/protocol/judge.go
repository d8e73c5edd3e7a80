package protocol

import (
	"bytes"
	"fmt"

	"linesman/wire"
)

// Era is the protocol era a request or a session is judged by.
type Era uint8

const (
	EraUnknown Era = iota // no evidence yet
	EraLegacy             // 2024-11-05 … 2025-11-25: the initialize handshake
	EraModern             // 2026-07-28 and later: stateless, _meta on every request
)

// Protocol versions the rules know. Versions are dates, so they compare as strings.
const (
	V20241105 = "2024-11-05"
	V20250326 = "2025-03-26"
	V20250618 = "2025-06-18"
	V20251125 = "2025-11-25"
	V20260728 = "2026-07-28"
)

// knownLegacyVersions are the revisions an initialize may negotiate.
var knownLegacyVersions = map[string]bool{V20241105: true, V20250326: true, V20250618: true, V20251125: true}

// KnownLegacyVersion reports whether v is a revision an initialize may
// negotiate (2024-11-05 … 2025-11-25).
func KnownLegacyVersion(v string) bool { return knownLegacyVersions[v] }

// The _meta keys of the 2026-07-28 revision.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Input is one frame for the judge, in log order.
type Input struct {
	Seq   uint64
	Dir   wire.Dir
	Frame *wire.Frame
	// Request is, for a response, the request frame it answers as the
	// session's fold paired it (nil when it answers nothing known).
	Request *wire.Frame
	// Params is, when set, the classifier's index of the frame's params
	// (wire.Framer.Params): read instead of scanning params again. The
	// findings are the same with it or without.
	Params *wire.ParamsIndex
}

// Judge folds a conversation and raises the protocol findings. It is not
// safe for concurrent use: the session calls it under its own lock, in log
// order.
type Judge struct {
	// era and version: what the session decided (pinned), or inferred here.
	era     Era
	pinned  bool
	version string // negotiated legacy version, or the modern one asked for

	lc   lifecycle
	caps capabilities
	// logLevel is the level the last logging/setLevel the server accepted
	// asked for (legacy era), "" before one.
	logLevel string
	tools    toolbook
	pages    map[string]*issuedCursors // method -> cursors issued as nextCursor
	modern
	prompts map[string][]string // prompt name -> required arguments
	listed  listings            // listing method -> its walks (misses.go)
	// malformed holds the client's requests in flight whose params lack a
	// member their method requires (or have one of the wrong type), with
	// the finding that says so.
	malformed map[*wire.Frame]string
	tasks     taskbook // the server's tasks (2025-11-25)

	// judged counts, per family, the frames of the server its rules looked
	// at (a frame counts once per family); frameRan holds the families
	// counted for the frame being judged, serverFrame whether it is the
	// server's.
	judged      [len(familyNames)]int
	frameRan    uint32
	serverFrame bool

	// eras remembers the era of each client request in flight that was
	// judged by another era than the session's, so that its answer is judged
	// by the request's era without re-reading the request.
	eras map[*wire.Frame]Era

	// noSchemas turns the schema judge off (see [Judge.SetSchemas]);
	// schemaReqs remembers, of the requests in flight, the revision and
	// task flag their answers are validated by, where they are not the
	// session's version and no task.
	noSchemas  bool
	schemaReqs map[*wire.Frame]schemaReq

	content contentSeen // what indexResult saw of the result being judged
	block   obj         // scratch index of the content block being judged
	// scratch holds the indexes of the frame being judged (a request's or
	// notification's params, or an answer's request params and result),
	// reused from frame to frame: nothing keeps them past Frame.
	scratch struct{ params, result obj }
}

// contentSeen is what the scan of a tools/call result's content found.
type contentSeen struct{ walked, hasText bool }

// maxPending bounds eras (requests never answered would otherwise pile up).
const maxPending = 4096

// New returns a judge with nothing seen.
func New() *Judge {
	j := &Judge{}
	j.reset()
	return j
}

func (j *Judge) reset() {
	j.lc = lifecycle{}
	j.caps = capabilities{}
	j.logLevel = ""
	j.tools = toolbook{byName: map[string]*tool{}}
	j.pages = map[string]*issuedCursors{}
	j.modern = newModern()
	j.tasks = newTaskbook()
	j.prompts = map[string][]string{}
	j.listed = listings{}
	j.malformed = map[*wire.Frame]string{}
	j.eras = map[*wire.Frame]Era{}
	j.schemaReqs = map[*wire.Frame]schemaReq{}
	if !j.pinned {
		j.era, j.version = EraUnknown, ""
	}
}

// SetEra pins the era (and protocol version, if known) the session decided,
// so the judge never contradicts the projection; EraUnknown unpins it and the
// judge infers the era from the traffic: a request carrying the modern _meta
// keys is modern evidence, an initialize request legacy evidence.
func (j *Judge) SetEra(e Era, version string) {
	j.pinned = e != EraUnknown
	if j.pinned {
		j.era = e
	}
	if version != "" {
		j.version = version
	}
}

// Facts are what the session's projection established about the
// conversation: the judge takes them as given rather than working them out
// a second time.
type Facts struct {
	Era     Era    // EraUnknown: not decided; the judge infers it from the traffic
	Version string // the negotiated (or asked-for) protocol version, when known
	// ServerCapabilities and ClientCapabilities are the declared
	// capabilities objects (nil: not declared yet).
	ServerCapabilities, ClientCapabilities []byte
}

// SetFacts hands the judge the projection's facts, before a frame is
// judged. Once called, the judge no longer learns capabilities from the
// initialize and server/discover exchanges itself.
func (j *Judge) SetFacts(f Facts) {
	j.SetEra(f.Era, f.Version)
	j.caps.external = true
	if !bytes.Equal(f.ServerCapabilities, j.caps.server) || (f.ServerCapabilities == nil) == j.caps.serverKnown {
		j.caps.putServer(val(f.ServerCapabilities))
	}
	if !bytes.Equal(f.ClientCapabilities, j.caps.client) || (f.ClientCapabilities == nil) == j.caps.clientKnown {
		j.caps.putClient(val(f.ClientCapabilities))
	}
}

// SetSchemas turns the schema judge (schema-invalid: every message
// validated against its revision's published JSON schema) on or off; it is
// on in a new Judge. Off, the hand-written rules alone judge.
func (j *Judge) SetSchemas(on bool) { j.noSchemas = !on }

// Era returns the era and version the judge judges by, pinned or inferred.
func (j *Judge) Era() (Era, string) { return j.era, j.version }

// Restarted forgets the conversation: a fresh process starts over.
func (j *Judge) Restarted() { j.reset() }

// Exercise counts one thing judged for a family by a judge outside this
// package (the session's process and id bookkeeping).
func (j *Judge) Exercise(family string) {
	for f, name := range familyNames {
		if name == family {
			j.judged[f]++
		}
	}
}

// Frame judges one frame and appends its findings to in.Frame.Findings.
func (j *Judge) Frame(in Input) {
	f := in.Frame
	if f == nil || (in.Dir != wire.ClientToServer && in.Dir != wire.ServerToClient) {
		return
	}
	j.frameRan, j.serverFrame = 0, in.Dir == wire.ServerToClient
	j.ran(famFraming)
	if f.Truncated() {
		// What was cut may be exactly what a rule looks at: oversize-frame
		// says so. An answer to initialize still answers it: the client
		// that goes on is no client sending before the answer.
		if in.Request != nil && in.Request.Msg.Method == "initialize" && in.Dir == wire.ServerToClient {
			j.lc.initAnswered = true
			j.lc.initOK = j.lc.initOK || f.Msg.Kind == wire.KindResult
		}
		return
	}
	msg := body(f)
	switch f.Msg.Kind {
	case wire.KindRequest:
		j.ran(famIDs)
		j.request(in, msg)
	case wire.KindNotification:
		j.notification(in, msg)
	case wire.KindResult, wire.KindError:
		j.ran(famIDs)
		j.response(in, msg)
	case wire.KindInvalid:
		j.batchIn20250326(f)
		return
	}
	if !j.noSchemas {
		j.schemaFrame(in, msg)
	}
}

// batchIn20250326 makes the framer's batch-array a note in a session that
// negotiated 2025-03-26, the one version whose base protocol has batches
// ("MCP implementations MAY support sending JSON-RPC batches, but MUST
// support receiving JSON-RPC batches"; removed in 2025-06-18): there a
// batch is no foul, and what linesman says is that it does not judge the
// messages inside one.
func (j *Judge) batchIn20250326(f *wire.Frame) {
	if j.version != V20250326 {
		return
	}
	for i := range f.Findings {
		if fd := &f.Findings[i]; fd.Code == "batch-array" {
			fd.Severity = wire.SeverityNote
			fd.Message = "the frame is a JSON-RPC batch, which MCP 2025-03-26 (the version negotiated) allows; linesman does not judge the messages inside a batch"
		}
	}
}

// body is the frame's JSON text without copying it when it is one line.
func body(f *wire.Frame) val {
	if len(f.Lines) == 1 {
		return parse(f.Lines[0].Content)
	}
	return parse(f.Raw())
}

// raise appends a finding for code to the frame.
func raise(f *wire.Frame, code, format string, args ...any) {
	f.Findings = append(f.Findings, wire.NewFinding(code, fmt.Sprintf(format, args...)))
}

// raiseNote is raise at the note severity, for a code whose rule the
// negotiated version does not have (the registry's severity is the one
// of the versions that do).
func raiseNote(f *wire.Frame, code, format string, args ...any) {
	raise(f, code, format, args...)
	f.Findings[len(f.Findings)-1].Severity = wire.SeverityNote
}

// ran says a rule of family f looked at the frame being judged: a frame
// of the server counts once per family. The client's frames (linesman's
// own requests in check and send, a host's through the tap) count for
// nothing: a family that judged only them has judged nothing the server
// did, and is not observed.
func (j *Judge) ran(f family_) {
	if j.serverFrame && j.frameRan&(1<<f) == 0 {
		j.frameRan |= 1 << f
		j.judged[f]++
	}
}

// metaVersion is params._meta's protocol version on a request, or "".
func metaVersion(params *obj) string {
	s, _ := params.path("_meta", metaProtocolVersion).str()
	return s
}

// requestEra is the era a request is judged by: its own _meta first (a
// dual-era server serves each request by how it opens), then initialize,
// then the session's era.
func (j *Judge) requestEra(method string, meta val, v string) Era {
	if v != "" {
		if v >= V20260728 {
			return EraModern
		}
		return EraLegacy
	}
	if method == "initialize" {
		return EraLegacy
	}
	if meta.has(metaClientCapabilities) {
		return EraModern
	}
	return j.era
}

// observeEra infers the session era from a client request, unless pinned,
// or unless the projection hands the judge its facts ([Judge.SetFacts]):
// then the projection's era is the one era (it infers from the same
// evidence, by one rule), and the judge never works it out a second time.
func (j *Judge) observeEra(method string, params *obj, mv string) {
	if j.pinned || j.caps.external {
		return
	}
	switch {
	case method == "initialize":
		j.era = EraLegacy
		if v, ok := params.get("protocolVersion").str(); ok && j.version == "" {
			j.version = v
		}
	case mv >= V20260728:
		j.era = EraModern
		j.version = mv
	}
}

// versionAtLeast reports whether the negotiated version is v or later; an
// unknown version counts as the latest, so a rule about newer shapes never
// fires on a guess.
func (j *Judge) versionAtLeast(v string) bool { return j.version == "" || j.version >= v }
