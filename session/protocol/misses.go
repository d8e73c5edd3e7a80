package protocol

import (
	"bytes"
	"slices"
	"strings"

	"linesman/wire"
)

// The rules issue 28's corpora found missing: a -32021 without the
// capabilities it needs, a malformed traceparent, a listing whose pages
// change cacheScope, a subscription closed with a body, an embedded
// resource without resources, a call of a name no complete listing held,
// a malformed request answered with success.

// listings holds, per listing method, the names of the last complete walk
// (its first page to the page without nextCursor) and of the walk under
// way, and the cacheScope of the walk's first page (2026-07-28).
type listings map[string]*listing

type listing struct {
	walk, complete map[string]bool
	scope          []byte // the first page's cacheScope, as written
}

// maxListed bounds the names remembered per listing: past it the walk is
// forgotten, and no call is judged against it.
const maxListed = 10000

// listedResult records a tools/list or prompts/list page and, in
// 2026-07-28, judges its cacheScope against the walk's first page.
func (j *Judge) listedResult(f *wire.Frame, method string, era Era, params, result *obj) {
	key := listKey(method)
	if key == "" {
		return
	}
	l := j.listed[method]
	if l == nil {
		l = &listing{}
		j.listed[method] = l
	}
	scope := result.get("cacheScope")
	if !params.has("cursor") {
		l.walk, l.scope = map[string]bool{}, bytes.Clone(scope)
	} else if era == EraModern && l.scope != nil && scope.present() && !bytes.Equal(scope, l.scope) {
		j.ran(famCaching)
		raise(f, "cache-scope-inconsistent", "this page of %s has cacheScope %s, the listing's first page %s; every page of a listing has the same", method, scope.text(), val(l.scope).text())
	}
	if l.walk == nil || key == "resources" {
		return
	}
	result.get(key).elems(func(_ int, e val) bool {
		if name, ok := e.get("name").str(); ok && len(l.walk) < maxListed {
			l.walk[name] = true
		}
		return true
	})
	if len(l.walk) >= maxListed {
		l.walk = nil
		return
	}
	if !result.get("nextCursor").isString() {
		l.complete, l.walk = l.walk, nil
	}
}

// listKey is the member a listing's result holds its items in.
func listKey(method string) string {
	switch method {
	case "tools/list":
		return "tools"
	case "prompts/list":
		return "prompts"
	case "resources/list", "resources/templates/list":
		return "resources"
	}
	return ""
}

// listChanged forgets a complete listing the server said changed.
func (j *Judge) listChanged(method string) {
	switch method {
	case "notifications/tools/list_changed":
		delete(j.listed, "tools/list")
	case "notifications/prompts/list_changed":
		delete(j.listed, "prompts/list")
	}
}

// unlistedTarget flags a tools/call, prompts/get or completion of a prompt
// that names what the server's last complete listing did not, answered
// with success.
func (j *Judge) unlistedTarget(f *wire.Frame, method string, params, result *obj) {
	var listMethod, name, what string
	switch method {
	case "tools/call":
		if result.get("isError").truthy() {
			return
		}
		listMethod, what = "tools/list", "tool"
		name, _ = params.get("name").str()
	case "prompts/get":
		listMethod, what = "prompts/list", "prompt"
		name, _ = params.get("name").str()
	case "completion/complete":
		ref := params.get("ref")
		if t, _ := ref.get("type").str(); t != "ref/prompt" {
			return
		}
		listMethod, what = "prompts/list", "prompt"
		name, _ = ref.get("name").str()
	default:
		return
	}
	l := j.listed[listMethod]
	if l == nil || l.complete == nil || name == "" {
		return
	}
	j.ran(famTools)
	if !l.complete[name] {
		raise(f, "unlisted-target-answered", "%s of the %s %q answered with success, but the server's complete %s named no such %s; an unknown name is -32602 (Invalid params)", method, what, name, listMethod, what)
	}
}

// promptRefused flags a prompts/get refused with -32602 (Invalid params)
// that asked, giving no arguments, for a prompt the server's last complete
// listing named with no required argument: nothing the listing asks for
// is missing and no value given could be wrong. Not judged for a request
// that drew a warning or an error itself (it may be malformed in a way the
// -32602 names), nor for one carrying a multi-round state or responses (a
// state the server cannot verify is -32602 too).
func (j *Judge) promptRefused(f, req *wire.Frame, params *obj) {
	if req == nil || params.has("requestState") || params.has("inputResponses") {
		return
	}
	for _, fd := range req.Findings {
		if fd.Severity >= wire.SeverityWarning {
			return
		}
	}
	if a := params.get("arguments"); a.present() && !a.isNull() && !(a.isObject() && a.count() == 0) {
		return
	}
	name, _ := params.get("name").str()
	l := j.listed["prompts/list"]
	if l == nil || l.complete == nil || !l.complete[name] {
		return
	}
	if required, ok := j.prompts[name]; !ok || len(required) > 0 {
		return
	}
	j.ran(famPrompts)
	raise(f, "prompt-arguments-refused", "prompts/get of the prompt %q, which the server's listing gives no required argument, was refused with -32602 (Invalid params) though the request asked for none", name)
}

// noteMalformed remembers a client request whose params broke its
// method's shape (why: the finding that says so), for its answer.
func (j *Judge) noteMalformed(req *wire.Frame, why string) {
	if len(j.malformed) >= maxPending {
		clear(j.malformed) // requests never answered
	}
	j.malformed[req] = why
}

// malformedAnswered flags a result to a client request whose params broke
// its method's shape: the server served what it should have refused.
func (j *Judge) malformedAnswered(f *wire.Frame, req *wire.Frame, method string) {
	why, ok := j.malformed[req]
	if !ok {
		return
	}
	delete(j.malformed, req)
	j.ran(famShapes)
	if hasFinding(f, "malformed-request-answered") {
		return
	}
	if j.era == EraModern {
		raise(f, "malformed-request-answered", "the server answered a malformed %s request (%s) with a result; it must reject it with -32602 (Invalid params)", method, why)
		return
	}
	// Before 2026-07-28 no clause makes refusing malformed params a MUST
	// (JSON-RPC names -32602; "Servers MUST validate all tool inputs" is
	// about tools): a warning, not an error.
	raise(f, "malformed-request-answered", "the server answered a malformed %s request (%s) with a result; it should reject it with -32602 (Invalid params)", method, why)
	f.Findings[len(f.Findings)-1].Severity = wire.SeverityWarning
}

// capabilityError flags a 2026-07-28 -32021 without the capabilities the
// client must declare on its retry.
func (j *Judge) capabilityError(f *wire.Frame, errObj val) {
	if rc := errObj.path("data", "requiredCapabilities"); !rc.isObject() {
		raise(f, "capability-error-incomplete", "error -32021 (missing required client capability) has error.data.requiredCapabilities %s; it must be the ClientCapabilities object the client is to declare", rc.kindName())
	}
}

// subscriptionClose flags a subscriptions/listen result with members other
// than resultType and _meta.
func (j *Judge) subscriptionClose(f *wire.Frame, result val) {
	j.ran(famSubscriptions)
	result.members(func(k []byte, _ val) bool {
		if key := string(k); key != `"resultType"` && key != `"_meta"` {
			raise(f, "subscription-close-not-empty", "the subscriptions/listen result carries %s; the result closing a subscription is otherwise empty", key)
			return false
		}
		return true
	})
}

// traceContext judges _meta.traceparent against W3C Trace Context.
func (j *Judge) traceContext(f *wire.Frame, meta val) {
	tp := meta.get("traceparent")
	if !tp.present() || !j.versionAtLeast(V20250618) {
		return
	}
	j.ran(famMeta)
	s, ok := tp.str()
	if why := traceparentProblem(s, ok); why != "" {
		raise(f, "trace-context-invalid", "params._meta.traceparent %s: %s", tp.text(), why)
	}
}

// traceparentProblem says what is wrong with a traceparent, or "".
func traceparentProblem(s string, isString bool) string {
	switch {
	case !isString:
		return "is no string"
	case len(s) < 55 || s[2] != '-' || s[35] != '-' || s[52] != '-':
		return "is not version-traceid-parentid-flags (2, 32, 16 and 2 hex digits joined by -)"
	case !lowerHex(s[0:2]) || !lowerHex(s[3:35]) || !lowerHex(s[36:52]) || !lowerHex(s[53:55]):
		return "has a field that is not lower-case hex"
	case s[0:2] == "ff":
		return "has version ff, which is invalid"
	case s[0:2] == "00" && len(s) != 55:
		return "has version 00 and more after the flags"
	case s[3:35] == "00000000000000000000000000000000":
		return "has an all-zero trace id"
	case s[36:52] == "0000000000000000":
		return "has an all-zero parent id"
	}
	return ""
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// unsupportedAnswered flags a result to a request of a protocol version
// the server's own server/discover result did not list: it should have
// refused it with -32022, and a client that believed the listing learns
// nothing of the mismatch.
func (j *Judge) unsupportedAnswered(f *wire.Frame, method, asked string) {
	if asked == "" || len(j.modern.supported) == 0 || slices.Contains(j.modern.supported, asked) {
		return
	}
	j.ran(famLifecycle)
	raise(f, "unsupported-version-answered", "the server answered a %s request of protocol version %q with a result, but its server/discover result lists only %s; it must refuse it with -32022 (unsupported protocol version)", method, asked, strings.Join(j.modern.supported, ", "))
}
