package protocol

import (
	"linesman/wire"
)

// lifecycle is the legacy handshake as seen so far.
type lifecycle struct {
	firstJudged     bool // the first client request was judged
	initSent        bool // the client sent initialize
	initAnswered    bool // the server answered it (result or error)
	initOK          bool // with a result
	initializedSent bool // the client sent notifications/initialized
	initID          wire.ID
}

// lifecycleRequest applies the legacy handshake rules to a client request.
func (j *Judge) lifecycleRequest(f *wire.Frame, method string, params *obj, era Era) {
	if era == EraModern || method == "server/discover" {
		// 2026-07-28 has no handshake; server/discover is the era probe a
		// dual-era client sends first on stdio.
		return
	}
	j.ran(famLifecycle)
	if method == "initialize" {
		j.lc.firstJudged, j.lc.initSent = true, true
		j.lc.initID = f.Msg.ID
		j.initializeParams(f, params)
		return
	}
	if !j.lc.firstJudged {
		j.lc.firstJudged = true
		if !j.lc.initSent && era != EraModern {
			raise(f, "initialize-not-first", "the client's first request is %s, not initialize: a legacy server must be initialized before anything else", method)
			return
		}
	}
	if method == "ping" {
		return
	}
	switch {
	case j.lc.initSent && !j.lc.initAnswered:
		raise(f, "request-before-initialize-result", "the client sent %s before the server answered initialize", withArticle(method))
	case j.lc.initOK && !j.lc.initializedSent:
		raise(f, "initialized-not-sent", "the client sent %s after initialize succeeded but never sent notifications/initialized", withArticle(method))
		j.lc.initializedSent = true // once is enough
	}
}

// initializeParams checks the initialize request's params.
func (j *Judge) initializeParams(f *wire.Frame, params *obj) {
	pv := params.get("protocolVersion")
	switch {
	case !pv.present():
		raise(f, "initialize-protocol-version-invalid", "initialize has no params.protocolVersion: the server cannot negotiate a version")
	case !pv.isString():
		raise(f, "initialize-protocol-version-invalid", "initialize's params.protocolVersion is %s (%s), not a string", pv.kindName(), pv.text())
	}
	for _, k := range []string{"capabilities", "clientInfo"} {
		if v := params.get(k); !v.isObject() {
			raise(f, "initialize-params-invalid", "initialize's params.%s is %s; it must be an object", k, v.kindName())
		}
	}
	if ci := params.get("clientInfo"); ci.isObject() {
		j.members(f, "initialize-params-invalid", "initialize's params.clientInfo", ci, implementationMembers)
	}
	j.capabilityShapes(f, "initialize-params-invalid", "initialize's params.capabilities", params.get("capabilities"), clientCapabilityMembers)
	j.caps.setClient(params.get("capabilities"))
	j.checkExtensions(f, params.path("capabilities", "extensions"), "params.capabilities.extensions")
}

// initializeResult checks the server's answer to initialize and records
// the negotiated version and capabilities.
func (j *Judge) initializeResult(f *wire.Frame, params, result *obj) {
	j.ran(famLifecycle)
	j.lc.initAnswered, j.lc.initOK = true, true
	pv := result.get("protocolVersion")
	v, ok := pv.str()
	switch {
	case !ok:
		raise(f, "initialize-result-version-invalid", "the initialize result's protocolVersion is %s, not a version string", pv.kindName())
	case !knownLegacyVersions[v] && !sameAsAsked(params, v):
		// Echoing the version the client asked for is what the clause
		// requires of a server that supports it, whatever the version
		// (the TypeScript SDK still accepts the prerelease 2024-10-07).
		asked, _ := params.get("protocolVersion").str()
		raise(f, "initialize-result-version-invalid", "the initialize result's protocolVersion %q is not a revision that has an initialize handshake (the client asked for %q)", v, asked)
	default:
		if !j.pinned || j.version == "" || j.era == EraLegacy {
			j.version = v
		}
	}
	for _, k := range []string{"capabilities", "serverInfo"} {
		if x := result.get(k); !x.isObject() {
			raise(f, "initialize-result-invalid", "the initialize result's %s is %s; it must be an object", k, x.kindName())
		}
	}
	if si := result.get("serverInfo"); si.isObject() {
		j.members(f, "initialize-result-invalid", "the initialize result's serverInfo", si, implementationMembers)
	}
	if in := result.get("instructions"); in.present() && !in.isString() {
		raise(f, "initialize-result-invalid", "the initialize result's instructions is %s; it must be a string", in.kindName())
	}
	j.capabilityShapes(f, "initialize-result-invalid", "the initialize result's capabilities", result.get("capabilities"), serverCapabilityMembers)
	j.caps.setServer(result.get("capabilities"))
	j.checkExtensions(f, result.path("capabilities", "extensions"), "result.capabilities.extensions")
}

// sameAsAsked reports whether v is the protocolVersion the initialize
// request asked for.
func sameAsAsked(params *obj, v string) bool {
	asked, ok := params.get("protocolVersion").str()
	return ok && asked == v
}

// withArticle is "a ping", "an initialize".
func withArticle(method string) string {
	if method != "" && (method[0] == 'a' || method[0] == 'e' || method[0] == 'i' || method[0] == 'o' || method[0] == 'u') {
		return "an " + method
	}
	return "a " + method
}
