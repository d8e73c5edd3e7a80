package protocol

import (
	"bytes"
	"strconv"

	"linesman/wire"
)

// modern is the 2026-07-28 conversational state.
type modern struct {
	rounds map[string]*round // method+target -> the input_required answer awaiting its retry
	// roundsForgot says the rounds were forgotten once (past maxRounds):
	// a requestState may then belong to a forgotten round, and is not
	// called unsolicited or misused.
	roundsForgot bool
	subs         map[wire.ID]*subscription // id of a subscriptions/listen request -> its state
	logLevel     map[wire.ID]string        // id of a client request in flight -> its logLevel
	// discover404 says that the server answered a modern server/discover
	// with -32601; judged once the server shows it speaks 2026-07-28, and
	// never otherwise: -32601 is what a legacy server answers.
	discover404   bool
	discoverFlags bool
	serverModern  bool // the server answered a modern request with a result
	// supported are the versions the last server/discover result listed
	// (empty: none seen).
	supported []string
}

func newModern() modern {
	return modern{rounds: map[string]*round{}, subs: map[wire.ID]*subscription{}, logLevel: map[wire.ID]string{}}
}

// round is an InputRequiredResult awaiting the client's retry.
type round struct {
	method, target string
	id             wire.ID // the request that got it
	keys           []string
	state          string
	hasState       bool
}

// subscription is a subscriptions/listen stream.
type subscription struct {
	filter val // a private copy of params.notifications
	acked  bool
}

// mrtrMethods are the requests that may be answered with input_required.
var mrtrMethods = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

// removedInModern are methods 2026-07-28 removed.
var removedInModern = map[string]string{
	"ping":                               "removed in 2026-07-28",
	"logging/setLevel":                   "removed in 2026-07-28: set io.modelcontextprotocol/logLevel in each request's _meta",
	"resources/subscribe":                "replaced by subscriptions/listen in 2026-07-28",
	"resources/unsubscribe":              "replaced by subscriptions/listen in 2026-07-28",
	"notifications/roots/list_changed":   "removed in 2026-07-28",
	"notifications/elicitation/complete": "removed in 2026-07-28: the client learns the outcome by retrying",
	"notifications/initialized":          "2026-07-28 has no handshake",
	"tasks/result":                       "tasks moved to the io.modelcontextprotocol/tasks extension, which polls with tasks/get",
	"tasks/list":                         "removed with the move of tasks to an extension",
}

func (j *Judge) removedMethod(f *wire.Frame, method string) {
	j.ran(famMeta)
	if why, ok := removedInModern[method]; ok {
		raise(f, "removed-method", "%s is not part of 2026-07-28 (%s)", method, why)
	}
}

// modernRequest judges a client request in the 2026-07-28 era.
func (j *Judge) modernRequest(f *wire.Frame, m *wire.Message, params *obj) {
	j.ran(famMeta)
	meta := params.get("_meta")
	var missing []string
	if !meta.get(metaProtocolVersion).isString() {
		missing = append(missing, metaProtocolVersion)
	}
	if !meta.get(metaClientCapabilities).isObject() {
		missing = append(missing, metaClientCapabilities)
	}
	if len(missing) > 0 {
		raise(f, "request-meta-missing", "the %s request lacks %s in params._meta; every 2026-07-28 request must carry it", m.Method, joinAnd(missing))
	}
	j.removedMethod(f, m.Method)
	j.checkExtensions(f, meta.path(metaClientCapabilities, "extensions"), "clientCapabilities.extensions")
	if lv, ok := meta.get(metaLogLevel).str(); ok {
		j.modern.logLevel[m.ID] = lv
	}
	if m.Method == "subscriptions/listen" {
		j.modern.subs[m.ID] = &subscription{filter: clone(params.get("notifications"))}
	}
	j.retry(f, m, params)
}

// retry judges a request against the input_required round it may retry.
func (j *Judge) retry(f *wire.Frame, m *wire.Message, params *obj) {
	state, hasState := params.get("requestState").str()
	field, ok := mrtrMethods[m.Method]
	if !ok {
		if hasState {
			j.ran(famMultiRound)
			raise(f, "request-state-misused", "%s carries a requestState, but only tools/call, prompts/get and resources/read take part in multi-round requests", m.Method)
		}
		return
	}
	target, _ := params.get(field).str()
	key := m.Method + "\x00" + target
	r := j.modern.rounds[key]
	if r == nil {
		if hasState && !j.modern.roundsForgot {
			j.ran(famMultiRound)
			if len(j.modern.rounds) > 0 {
				raise(f, "request-state-misused", "%s %q carries a requestState that no input_required answer to this request issued; it belongs to another request", m.Method, target)
			} else {
				raise(f, "unsolicited-request-state", "%s %q carries a requestState, but no input_required answer issued one", m.Method, target)
			}
		}
		return
	}
	j.ran(famMultiRound)
	delete(j.modern.rounds, key)
	if m.ID == r.id {
		raise(f, "retry-reused-id", "the retry of %s %q reuses id %s of the request it retries; a retry is a new request with a new id", m.Method, target, m.ID.String())
	}
	switch {
	case r.hasState && (!hasState || state != r.state):
		raise(f, "request-state-not-echoed", "the retry of %s %q does not echo the requestState of the input_required answer exactly", m.Method, target)
	case !r.hasState && hasState:
		raise(f, "unsolicited-request-state", "the retry of %s %q carries a requestState, but the input_required answer had none", m.Method, target)
	}
	resp := params.get("inputResponses")
	for _, k := range r.keys {
		if !resp.get(k).present() {
			raise(f, "retry-missing-input-responses", "the retry of %s %q has no inputResponses[%q] for the input the server asked for", m.Method, target, k)
			break
		}
	}
}

// modernResult judges a result to a 2026-07-28 request; false when it is
// input_required (no complete-result shape applies).
func (j *Judge) modernResult(f *wire.Frame, method string, reqID wire.ID, params, result *obj) bool {
	j.ran(famMeta)
	meta := params.get("_meta")
	if !meta.get(metaProtocolVersion).isString() || !meta.get(metaClientCapabilities).isObject() {
		raise(f, "malformed-request-answered", "the server answered a %s request that lacks the required _meta fields with a result; it must reject it with -32602 (Invalid params)", method)
	}
	if method != "server/discover" {
		j.modern.serverModern = true
		j.flagDiscover404(f)
		j.unsupportedAnswered(f, method, metaVersion(params))
	}
	rt, _ := result.get("resultType").str()
	if rt == "input_required" {
		j.inputRequired(f, method, reqID, params, result)
		return false
	}
	j.cacheHints(f, method, result)
	return true
}

// cacheable are the results that carry ttlMs and cacheScope in 2026-07-28.
var cacheable = map[string]bool{"tools/list": true, "prompts/list": true, "resources/list": true, "resources/read": true, "resources/templates/list": true, "server/discover": true}

func (j *Judge) cacheHints(f *wire.Frame, method string, result *obj) {
	if !cacheable[method] {
		return
	}
	j.ran(famCaching)
	ttl, scope := result.get("ttlMs"), result.get("cacheScope")
	var missing []string
	if !ttl.present() {
		missing = append(missing, "ttlMs")
	}
	if !scope.present() {
		missing = append(missing, "cacheScope")
	}
	if len(missing) > 0 {
		raise(f, "cache-hint-missing", "the %s result lacks %s; 2026-07-28 requires both on cacheable results", method, joinAnd(missing))
	}
	if ttl.present() {
		if n, ok := ttl.num(); !ok || n < 0 {
			raise(f, "cache-hint-invalid", "the %s result's ttlMs is %s; it must be a number of milliseconds, 0 or more", method, ttl.text())
		}
	}
	if scope.present() && !bytes.Equal(scope, []byte(`"public"`)) && !bytes.Equal(scope, []byte(`"private"`)) {
		raise(f, "cache-hint-invalid", "the %s result's cacheScope is %s; it must be \"public\" or \"private\"", method, scope.text())
	}
}

// inputMethods are the requests an InputRequiredResult may carry.
var inputMethods = map[string]bool{"elicitation/create": true, "sampling/createMessage": true, "roots/list": true}

// inputRequired judges an InputRequiredResult and records the round.
func (j *Judge) inputRequired(f *wire.Frame, method string, reqID wire.ID, params, result *obj) {
	j.ran(famMultiRound)
	field, ok := mrtrMethods[method]
	if !ok {
		raise(f, "input-required-unsupported-method", "the server answered %s with input_required; only tools/call, prompts/get and resources/read may be", method)
		return
	}
	reqs := result.get("inputRequests")
	state, hasState := result.get("requestState").str()
	if reqs.count() == 0 && !hasState {
		raise(f, "input-required-empty", "the input_required result has neither inputRequests nor a requestState: the client has nothing to provide and nothing to echo")
	}
	caps := params.path("_meta", metaClientCapabilities)
	r := &round{method: method, id: reqID, state: state, hasState: hasState}
	r.target, _ = params.get(field).str()
	reqs.members(func(k []byte, v val) bool {
		key, _ := val(k).str()
		r.keys = append(r.keys, key)
		im, _ := v.get("method").str()
		switch {
		case !inputMethods[im]:
			raise(f, "input-request-unknown-method", "inputRequests[%q] asks for %s; only elicitation/create, sampling/createMessage and roots/list can be", key, v.get("method").text())
		case caps.isObject() && !declares(caps, clientCapabilityOf(im)):
			raise(f, "input-request-undeclared-capability", "inputRequests[%q] is %s, but the request's clientCapabilities do not declare %s", key, withArticle(im), clientCapabilityOf(im))
		}
		if im == "sampling/createMessage" {
			j.ran(famShapes)
			samplingToolTurns(f, v.get("params").get("messages"), "inputRequests["+strconv.Quote(key)+"].params")
		}
		return true
	})
	if len(j.modern.rounds) >= maxRounds {
		clear(j.modern.rounds)
		j.modern.roundsForgot = true
	}
	j.modern.rounds[method+"\x00"+r.target] = r
}

// maxRounds bounds the input_required answers remembered while they await
// their retries (a client may never retry): a long-lived tap must not grow.
const maxRounds = 4096
