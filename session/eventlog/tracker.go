package eventlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"linesman/wire"
)

// TrackerOptions configure a Tracker.
type TrackerOptions struct {
	Timeout    time.Duration // per request; 0 means 60 s
	MaxTimeout time.Duration // cap on the timeout when progress keeps resetting it; 0 means 10 × Timeout
	// UnflushedAfter is how long a request must have waited before stdin
	// closed (or the process exited) for an answer arriving only then to
	// count as unflushed output; 0 means 1 s. A negative value means no
	// minimum (tests use it).
	UnflushedAfter time.Duration
	// Judge, when set, judges every frame against protocol rules beyond
	// the fold's own, at the one place the fold judges (see [Judge]).
	Judge Judge
	// NoProtocolRules leaves out the protocol rules (session/protocol)
	// that every tracker runs otherwise: for tests of the bare fold.
	NoProtocolRules bool
	// NoSchemaJudge runs the protocol rules without the schema judge
	// (protocol.Judge.SetSchemas(false)): to measure what it costs.
	NoSchemaJudge bool
}

// DefaultTimeout is the request timeout when TrackerOptions.Timeout is zero.
const DefaultTimeout = 60 * time.Second

func (o TrackerOptions) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o TrackerOptions) maxTimeout() time.Duration {
	if o.MaxTimeout > 0 {
		return max(o.MaxTimeout, o.timeout())
	}
	return 10 * o.timeout()
}

func (o TrackerOptions) unflushedAfter() time.Duration {
	switch {
	case o.UnflushedAfter < 0:
		return 0
	case o.UnflushedAfter == 0:
		return time.Second
	default:
		return o.UnflushedAfter
	}
}

// entry is the tracker's record of one request; Request is its public part.
type entry struct {
	Request
	// quietBefore is when the server last wrote a frame before the one
	// answering this request: the silence an exit burst is judged by.
	quietBefore time.Duration
	// call, parts: the logical call it continues, or its rounds (calls.go).
	call  *entry
	parts []*entry
	// taskCreated: the answer was a CreateTaskResult (2025-11-25 tasks):
	// the work goes on, and its progress with it.
	taskCreated bool
	// paged: a list request that carried a cursor (a later page).
	paged bool
	// frozen: Forget made it a compact record (waiting.go); the entry is
	// on its way out.
	frozen bool
}

// idSpace is the bookkeeping of one direction's requests: the ids of the
// requests one side sent. The two directions are separate id spaces (a
// server's ping id 1 and the client's initialize id 1 do not collide).
type idSpace struct {
	inflight map[wire.ID][]*entry // oldest first; more than one only after reused-id-in-flight
	open     int                  // the requests in inflight
	ended    map[wire.ID]*entry   // the latest request with that id that left ReqInFlight
	tokens   map[wire.ID]*entry   // progress token -> the request that offered it
	maxInt   int64                // highest integer (or numeric string) id seen; the mint counter
	// answeredUpTo is the highest Seq of a request of this space the other
	// side answered: it had read everything its sender wrote before it.
	answeredUpTo uint64
	strMint      int64  // counter for string ids once integers are exhausted
	peaks        [2]int // the most inflight and ended held (see shrinkMaps)
}

func newIDSpace() *idSpace {
	return &idSpace{
		inflight: map[wire.ID][]*entry{},
		ended:    map[wire.ID]*entry{},
		tokens:   map[wire.ID]*entry{},
	}
}

func (sp *idSpace) used(id wire.ID) bool {
	if _, ok := sp.inflight[id]; ok {
		return true
	}
	_, ok := sp.ended[id]
	return ok
}

// Tracker keeps the JSON-RPC bookkeeping of a session: requests in flight in
// both directions and the protocol findings. It is safe for concurrent use.
//
// All state lives under one mutex and changes only through [Tracker.Apply]
// (the events of the log, in log order), [Tracker.MintID] (an id taken for
// a request about to be logged) and [Tracker.Forget] (the memory budget:
// records of requests whose frames the log dropped become counts), so the
// findings always agree with the request table.
type Tracker struct {
	opts TrackerOptions
	// rules are the protocol rules run at the judging point (nil with
	// TrackerOptions.NoProtocolRules).
	rules *rules

	mu sync.Mutex
	hs Handshake
	// judging is what judge hands the rules (judge.go).
	judging judging
	// initAsked is the protocolVersion of the client's last initialize.
	initAsked string
	spaces    [3]*idSpace // indexed by wire.Dir
	all       []*entry    // every request, in the order sent
	// answers maps the Seq of each answer frame to the request it answered.
	answers     map[uint64]*entry
	answersPeak int
	// discoverVersion: ids of the client's server/discover requests (this
	// process), with the protocol version each asked for in its _meta, to
	// read the era and version off their answers.
	discoverVersion map[wire.ID]string
	// unreadable is the Seq of the last client frame the server could not
	// read as a message (not JSON, not JSON-RPC): what an error with id
	// null most likely answers.
	unreadable uint64
	// nullAnswers maps an error answer with id null to that frame.
	nullAnswers map[uint64]uint64
	// progressFor maps each notifications/progress frame to the request
	// frame that offered its token.
	progressFor map[uint64]uint64
	// forgotten counts, by state, the requests Forget summarised;
	// forgotTo is the first Seq of its last pass.
	forgotten map[RequestState]int
	forgotTo  uint64

	// Flush points for unflushed-output: when stdin was closed and when
	// the process exited (0 = not yet), and when the server and the client
	// last wrote a frame.
	stdinClosedAt, exitedAt time.Duration
	// stdinByHost: the host (a tap's) closed stdin, not linesman.
	stdinByHost bool
	// s2cFrames counts the frames the current process wrote to stdout.
	s2cFrames int
	// proc is the process status; a restart keeps it (it counts restarts).
	proc ProcessStatus
	// offer is what the server offers (see Offer); a restart marks it stale.
	offer Offer
	// later holds the findings logged about a frame after it, by its Seq
	// (FindingsOf); Forget drops those of frames the log dropped.
	later                map[uint64][]wire.Finding
	lastS2CAt, lastC2SAt time.Duration
	// outAt is when the server last wrote anything to stdout (a line that
	// is not JSON-RPC too); outAtClose and outAtExit are what it was when
	// stdin was closed and when the process exited: what came out before
	// them shows a stdout that reaches the pipe (checkUnflushed).
	outAt, outAtClose, outAtExit time.Duration
	unflushedRaised              bool
	// faults counts the faults linesman injected ([EventFault]); injectedEnd:
	// one of them (a kill, a closed stdout) ends the server, so its end is
	// linesman's.
	faults      int
	injectedEnd bool
	links       callLinks // logical calls (calls.go)
	// waits holds the compact records of plain requests in flight whose
	// frames the log dropped (waiting.go); noCompact keeps them whole
	// (tests compare the two).
	waits     waits
	noCompact bool
	icept     intercepts // frames held, edited, dropped (intercept.go)
}

// NewTracker returns an empty tracker.
func NewTracker(opts TrackerOptions) *Tracker {
	t := &Tracker{opts: opts, answers: map[uint64]*entry{}, nullAnswers: map[uint64]uint64{}, progressFor: map[uint64]uint64{}, later: map[uint64][]wire.Finding{}}
	if !opts.NoProtocolRules {
		t.rules = newRules()
		t.rules.judge.SetSchemas(!opts.NoSchemaJudge)
	}
	t.reset()
	return t
}

// reset forgets the per-process state (id spaces, handshake, flush points);
// the request history and the mint counter survive, so ids minted after a
// restart never repeat earlier ones and the log stays unambiguous.
func (t *Tracker) reset() {
	if t.rules != nil {
		t.rules.restarted()
	}
	var keepMax, keepStr int64
	if sp := t.spaces[wire.ClientToServer]; sp != nil {
		keepMax, keepStr = sp.maxInt, sp.strMint
	}
	for d := range t.spaces {
		t.spaces[d] = newIDSpace()
	}
	t.spaces[wire.ClientToServer].maxInt = keepMax
	t.spaces[wire.ClientToServer].strMint = keepStr
	t.hs.Initialized = false
	t.discoverVersion = map[wire.ID]string{}
	t.unreadable = 0
	t.stdinClosedAt, t.exitedAt, t.lastS2CAt, t.lastC2SAt = 0, 0, 0, 0
	t.outAt, t.outAtClose, t.outAtExit = 0, 0, 0
	t.stdinByHost, t.s2cFrames = false, 0
	t.unflushedRaised = false
	t.links = callLinks{}
	if !t.hs.EraPinned {
		t.hs.Era = EraUnknown
	}
}

// SetOptions replaces the tracker's options; deadlines already set keep
// their old timeout.
func (t *Tracker) SetOptions(o TrackerOptions) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opts = o
}

// setEra pins the protocol era the findings are judged by (for tests; a
// session logs an [EventEra] instead). EraUnknown unpins it: the tracker then
// infers the era from the frames (an initialize request means legacy; a
// server/discover answer offering a 2026-07-28 or later version, or a
// -32022 error to it, means modern), which is what a replay of a capture does.
//
// setEra keeps the protocol version; an [EventEra] event in the log (see
// [Tracker.Apply]) is how a session decides an era with its version.
func (t *Tracker) setEra(e Era) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hs.Era = e
	t.hs.EraPinned = e != EraUnknown
}

// Era returns the era the tracker judges by (pinned or inferred).
func (t *Tracker) Era() Era {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hs.Era
}

// Restarted tells the tracker a fresh process replaced the old one: the id
// spaces and the handshake start over (a reused id across processes is not
// a reuse), requests still in flight become ReqLost without a finding (the
// restart was asked for), and an inferred era is forgotten.
func (t *Tracker) restarted(at time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, sp := range t.spaces[1:] {
		for _, es := range sp.inflight {
			for _, e := range es {
				e.State, e.EndedAt = ReqLost, at
			}
		}
	}
	t.lostAll(at, nil)
	t.waits.restarted()
	for _, k := range offerKinds {
		k.listing(&t.offer).Stale = true
	}
	t.reset()
}

// Frame observes a frame about to be logged with the given Seq at the given
// log time, appends the protocol findings it raises to f.Findings, and
// updates the requests. Called in log order, under the log's lock (through
// Log.AppendWith): it must be quick and must not touch the log.
//
// The order within one frame is fixed: first the bookkeeping (a request is
// recorded, an answer is paired with its request, progress and cancellation
// are applied, the handshake facts are learnt), then [Tracker.judge], the one
// place where the frame is judged against the protocol rules of its era.
func (t *Tracker) frame(seq uint64, dir wire.Dir, f *wire.Frame, at time.Duration) {
	t.frameWith(seq, dir, f, at, nil)
}

// frameWith is frame, with the classifier's index of the frame's params
// for the judge when the frame came with one (Event.Params).
func (t *Tracker) frameWith(seq uint64, dir wire.Dir, f *wire.Frame, at time.Duration, params *wire.ParamsIndex) {
	if f == nil || (dir != wire.ClientToServer && dir != wire.ServerToClient) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if dir == wire.ServerToClient && f.Msg.Kind != wire.KindNonJSON {
		defer func() { t.lastS2CAt = at }()
	}
	if dir == wire.ClientToServer {
		defer func() { t.lastC2SAt = at }()
	} else {
		t.s2cFrames++
		defer func() { t.outAt = at }()
	}
	era := t.hs.Era // the frame is judged by the era it was sent in
	var req *entry
	switch f.Msg.Kind {
	case wire.KindRequest:
		req = t.request(seq, dir, f, at)
	case wire.KindNotification:
		t.notification(seq, dir, f, at)
	case wire.KindResult, wire.KindError:
		req = t.response(seq, dir, f, at)
	case wire.KindNonJSON, wire.KindInvalid:
		if dir == wire.ClientToServer {
			t.unreadable = seq
		}
	}
	t.judge(Judged{Seq: seq, Dir: dir, Frame: f, At: at, Era: era, Params: params}, req)
}

// request records a request sent in direction dir and returns its entry.
func (t *Tracker) request(seq uint64, dir wire.Dir, f *wire.Frame, at time.Duration) *entry {
	m := &f.Msg
	sp := t.spaces[dir]
	e := &entry{Request: Request{
		Dir: dir, ID: m.ID, Method: m.Method, Seq: seq, SentAt: at,
		State: ReqInFlight, ProgressToken: m.ProgressToken(),
	}}
	if dir == wire.ClientToServer {
		e.Deadline = at + t.opts.timeout()
		e.paged = isListMethod(m.Method) && hasCursor(f)
	}
	who := "client"
	if dir == wire.ServerToClient {
		who = "server"
	}

	if prev := t.inflightOf(dir, m.ID); len(prev) > 0 {
		first := prev[0]
		e.CollidesWith = first.Seq
		addFinding(f, wire.NewFinding("reused-id-in-flight", fmt.Sprintf(
			"the %s's request #%d (%s) uses id %s, still in flight for its request #%d (%s)",
			who, seq, m.Method, idText(m.ID), first.Seq, first.Method)))
	} else if old, ok := t.endedOf(dir, m.ID); ok && !old.Abandoned {
		fd := wire.NewFinding("reused-id", fmt.Sprintf(
			"the %s's request #%d (%s) reuses id %s of its earlier request #%d (%s, %s)",
			who, seq, m.Method, idText(m.ID), old.Seq, old.Method, old.State))
		if t.hs.Era == EraModern {
			// 2026-07-28 forbids only ids still in flight.
			fd.Severity = wire.SeverityNote
		} else {
			fd.Severity = wire.SeverityWarning
		}
		addFinding(f, fd)
	}
	sp.inflight[m.ID] = append(sp.inflight[m.ID], e)
	sp.open++
	t.all = append(t.all, e)
	if m.ProgressToken().Kind != wire.IDAbsent {
		if old := sp.tokens[m.ProgressToken()]; old != nil && old.State == ReqInFlight {
			addFinding(f, wire.NewFinding("progress-token-reused", fmt.Sprintf(
				"the %s's request #%d (%s) offers progress token %s, which its request #%d (%s, id %s) still in flight offered: their progress cannot be told apart",
				who, seq, m.Method, idText(m.ProgressToken()), old.Seq, old.Method, idText(old.ID))))
		}
		sp.tokens[m.ProgressToken()] = e
	}
	sp.observeID(m.ID)

	if dir == wire.ClientToServer {
		switch m.Method {
		case "initialize", "server/discover":
			// A stray initialize after a server/discover answer decided
			// the modern era does not make the conversation legacy: an
			// initialize the server accepts does (learnAnswer).
			if m.Method == "initialize" && !t.hs.EraPinned && t.hs.Era != EraModern {
				t.hs.Era = EraLegacy
			}
			t.learnRequest(seq, f)
		default:
			t.modernEvidence(f)
		}
		t.linkCall(e, f)
		return e
	}
	// A request from the server.
	switch t.hs.Era {
	case EraModern:
		addFinding(f, wire.NewFinding("server-request-in-modern-era", fmt.Sprintf(
			"the server sent %s request (id %s) on stdout; 2026-07-28 servers must not send requests",
			withArticle(m.Method), idText(m.ID))))
	case EraLegacy:
		t.beforeInitialized(f)
	}
	return e
}

// modernEvidence infers the modern era from a client request that carries
// the 2026-07-28 _meta (its protocol version), when nothing decided the era
// yet: a request is modern evidence as initialize is legacy evidence.
// server/discover is left to its answer (a dual-era client's probe carries
// the modern _meta to a server that may well be legacy).
func (t *Tracker) modernEvidence(f *wire.Frame) {
	if t.hs.EraPinned || t.hs.Era != EraUnknown {
		return
	}
	raw := f.Raw()
	if len(f.Lines) == 1 {
		raw = f.Lines[0].Content
	}
	if !bytes.Contains(raw, []byte(MetaProtocolVersion)) {
		return
	}
	var body struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return
	}
	var v string
	if json.Unmarshal(body.Params.Meta[MetaProtocolVersion], &v) == nil && isModernVersion(v) {
		t.hs.Era = EraModern
		if t.hs.ProtocolVersion == "" {
			t.hs.ProtocolVersion = v
		}
	}
}

// beforeInitialized flags a server request sent before the client's
// notifications/initialized in the legacy era: "The server SHOULD NOT send
// requests other than pings and logging before receiving the initialized
// notification". Notifications are not requests: a list_changed sent
// early (the TypeScript SDK sends one for a tool registered once its
// transport is connected) is no foul.
func (t *Tracker) beforeInitialized(f *wire.Frame) {
	if t.hs.Initialized || f.Msg.Kind != wire.KindRequest || f.Msg.Method == "ping" {
		return
	}
	addFinding(f, wire.NewFinding("message-before-initialized", fmt.Sprintf(
		"the server sent %s request before the client's notifications/initialized", withArticle(f.Msg.Method))))
}

// observeID advances the mint counter past an integer id or a numeric
// string, so a minted id never equals, or even looks like, one already used.
func (sp *idSpace) observeID(id wire.ID) {
	var n int64
	switch id.Kind {
	case wire.IDInt:
		n = id.Num
	case wire.IDString:
		v, err := strconv.ParseInt(strings.TrimSpace(id.Str), 10, 64)
		if err != nil {
			return
		}
		n = v
	default:
		return
	}
	sp.maxInt = max(sp.maxInt, n)
}

// notification handles progress, cancellation and the legacy handshake.
func (t *Tracker) notification(seq uint64, dir wire.Dir, f *wire.Frame, at time.Duration) {
	m := &f.Msg
	switch m.Method {
	case "notifications/initialized":
		if dir == wire.ClientToServer {
			t.hs.Initialized = true
		}
	case "notifications/cancelled":
		// The sender cancels one of its own requests.
		sp := t.spaces[dir]
		if es := t.inflightOf(dir, m.RequestID()); len(es) > 0 {
			e := es[0]
			t.end(sp, e, ReqCancelled, at)
			e.CancelSeq = seq
		} else if _, ended := t.endedOf(dir, m.RequestID()); !ended && m.RequestID().Kind != wire.IDAbsent &&
			!(dir == wire.ServerToClient && t.hs.Era == EraModern) {
			// An ended request may be cancelled (the two crossed on the
			// wire); one never sent may not. A 2026-07-28 server cancels
			// the client's subscriptions/listen, which other rules judge.
			who := "client"
			if dir == wire.ServerToClient {
				who = "server"
			}
			addFinding(f, wire.NewFinding("cancel-unknown-request", fmt.Sprintf(
				"the %s cancelled request id %s, which it never sent", who, idText(m.RequestID()))))
		}
	case "notifications/progress":
		if e := t.progress(dir, f, at); e != nil {
			t.progressFor[seq] = e.Seq
		}
	default:
		if dir == wire.ServerToClient {
			t.offerChanged(m.Method)
		}
	}
	if dir == wire.ServerToClient && t.hs.Era == EraLegacy && m.Method != "notifications/progress" {
		t.beforeInitialized(f)
	}
}
