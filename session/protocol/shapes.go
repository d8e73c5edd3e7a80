package protocol

import (
	"linesman/wire"
)

// errorResponse judges an error answer (in.Frame) to a request of method:
// the code's range per era, and what the answer says about the request.
func (j *Judge) errorResponse(in Input, method string, params *obj, era Era, errObj val) {
	f := in.Frame
	j.ran(famErrors)
	code := f.Msg.ErrorCode()
	if !errObj.get("code").isInteger() {
		return // invalid-jsonrpc says so
	}
	if era == EraModern {
		switch {
		case code == -32002 || code == -32042:
			raise(f, "withdrawn-error-code", "error code %d was defined by an earlier revision and must not be emitted in 2026-07-28%s", code, withdrawnHint(code))
		case code >= -32019 && code <= -32000:
			raise(f, "legacy-error-code", "error code %d is in the legacy range -32000…-32019, which new implementations should not use", code)
		case code >= -32099 && code <= -32020 && code != -32020 && code != -32021 && code != -32022:
			raise(f, "undefined-reserved-error-code", "error code %d is in -32020…-32099, reserved for codes the MCP specification defines, and 2026-07-28 defines no such code", code)
		case code == -32021:
			j.capabilityError(f, errObj)
		}
	}
	if code == -32042 && era != EraModern && j.version == V20251125 {
		j.urlElicitationError(f, errObj)
	}
	if code >= -32768 && code <= -32100 && !standardCode(code) {
		raise(f, "reserved-range-error-code", "error code %d is in the range JSON-RPC reserves (-32768…-32000) but is none of its defined codes; application errors belong outside it", code)
	}
	j.declaredMethodRefused(f, method, params, code, era)
	switch {
	case method == "initialize":
		j.lc.initAnswered = true
	case method == "server/discover" && code == -32601:
		j.modern.discoverMissing(params)
	case method == "ping" && era != EraModern:
		j.pingRefused(f, "server")
	case method == "prompts/get" && code == -32602:
		j.promptRefused(f, in.Request, params)
	case method == "tools/call" && j.inputErrorCode(code, params, era) && j.versionAtLeast(V20251125) && argumentsFailed(in.Request) && !hasFinding(f, "late-response"):
		j.ran(famTools)
		raise(f, "input-error-as-protocol-error", "the tools/call arguments failed the tool's inputSchema and the server answered with a JSON-RPC error (%d, %s), where 2025-11-25 wants a result with isError: true that the model can read and correct", code, inputErrorName(code))
	}
}

// inputErrorCode reports whether code, answering a tools/call whose
// arguments fail the tool's inputSchema, reports that failure as a protocol
// error: Invalid params, Invalid Request (the request itself satisfied
// CallToolRequest: argumentsFailed found the tool and an object of
// arguments), or Internal error (a server that must validate every input
// met input it had not validated, and failed on it). Other codes say
// something else first: -32601 (no tools/call, or a task the tool refuses),
// -32042 (2025-11-25: authorization by URL first), 2026-07-28's -32021 and
// -32022, and the application's own codes, a rate limit among them. Nor
// does -32600 from a server that may require tasks: 2025-11-25 gives it to
// a receiver refusing a call that is not task-augmented (Tasks › Error
// Handling), so it is judged only in that revision, from a server that
// declared no task-augmented tools/call, or answering a call that was one.
func (j *Judge) inputErrorCode(code int64, params *obj, era Era) bool {
	switch code {
	case -32602, -32603:
		return true
	case -32600:
		return era != EraModern && j.caps.serverKnown &&
			(params.get("task").isObject() || !j.caps.server.path("tasks", "requests", "tools", "call").present())
	}
	return false
}

func inputErrorName(code int64) string {
	switch code {
	case -32600:
		return "Invalid Request"
	case -32603:
		return "Internal error"
	}
	return "Invalid params"
}

// urlElicitationError judges a 2025-11-25 URLElicitationRequiredError
// (-32042): its data lists the elicitations the request waits for, each a
// URL-mode one with its elicitationId, url and message (Client ›
// Elicitation › URL Elicitation Required Error).
func (j *Judge) urlElicitationError(f *wire.Frame, errObj val) {
	j.ran(famErrors)
	els := errObj.get("data").get("elicitations")
	if !els.isArray() {
		raise(f, "url-elicitation-error-invalid", "error -32042 (URL elicitation required) has data.elicitations %s; it must list the URL-mode elicitations the request waits for", els.kindName())
		return
	}
	els.elems(func(i int, e val) bool {
		if m, _ := e.get("mode").str(); m != "url" {
			raise(f, "url-elicitation-error-invalid", "error -32042's data.elicitations[%d] has mode %s; every elicitation it lists must be a URL-mode one (\"url\")", i, e.get("mode").text())
			return false
		}
		for _, k := range [...]string{"elicitationId", "url", "message"} {
			if !e.get(k).isString() {
				raise(f, "url-elicitation-error-invalid", "error -32042's data.elicitations[%d].%s is %s; a URL-mode elicitation has a string %s", i, k, e.get(k).kindName(), k)
				return false
			}
		}
		return true
	})
}

func withdrawnHint(code int64) string {
	if code == -32002 {
		return " (resource not found is -32602 now)"
	}
	return ""
}

// standardCode reports whether code is one JSON-RPC 2.0 defines.
func standardCode(code int64) bool {
	switch code {
	case -32700, -32600, -32601, -32602, -32603:
		return true
	}
	return false
}

// paramsShape checks the params of client requests whose shape a server
// relies on.
func (j *Judge) paramsShape(f *wire.Frame, method string, params *obj) {
	need := func(key string, kind int, what string) {
		j.ran(famShapes)
		if v := params.get(key); v.kind() != kind {
			raise(f, "params-invalid", "%s's params.%s is %s; it must be %s", method, key, v.kindName(), what)
		}
	}
	switch method {
	case "tools/call":
		need("name", kString, "a string")
		if a := params.get("arguments"); a.present() && !a.isObject() {
			raise(f, "params-invalid", "tools/call's params.arguments is %s; it must be an object", a.kindName())
		}
	case "prompts/get":
		need("name", kString, "a string")
		j.promptArguments(f, params.get("arguments"))
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		need("uri", kString, "a string")
	case "completion/complete":
		need("ref", kObject, "an object")
		need("argument", kObject, "an object")
		j.completionParams(f, params)
	case "subscriptions/listen":
		need("notifications", kObject, "an object")
	case "logging/setLevel":
		j.ran(famShapes)
		if _, ok := logLevels[string(params.get("level").rawStr())]; !ok {
			raise(f, "params-invalid", "logging/setLevel's params.level is %s; it must be one of debug, info, notice, warning, error, critical, alert, emergency", params.get("level").text())
		}
	}
}

// promptArguments checks prompts/get's arguments: schema.ts gives them as
// { [key: string]: string } in every revision.
func (j *Judge) promptArguments(f *wire.Frame, args val) {
	if !args.present() {
		return
	}
	if !args.isObject() {
		raise(f, "params-invalid", "prompts/get's params.arguments is %s; it must be an object of string values", args.kindName())
		return
	}
	args.members(func(key []byte, v val) bool {
		if !v.isString() {
			raise(f, "params-invalid", "prompts/get's argument %q is %s; prompt arguments are strings", key, v.kindName())
			return false // one finding says it
		}
		return true
	})
}

// notificationShape checks the params of the notifications whose shape the
// receiver relies on.
func (j *Judge) notificationShape(f *wire.Frame, m *wire.Message, params *obj) {
	switch m.Method {
	case "notifications/progress":
		j.ran(famShapes)
		if m.ProgressToken().Kind == wire.IDAbsent || !params.get("progress").isNumber() {
			raise(f, "params-invalid", "notifications/progress needs a progressToken (string or integer) and a numeric progress")
		}
		if t := params.get("total"); t.present() && !t.isNumber() {
			raise(f, "params-invalid", "notifications/progress's params.total is %s; it must be a number", t.kindName())
		}
		if msg := params.get("message"); msg.present() && !msg.isString() {
			raise(f, "params-invalid", "notifications/progress's params.message is %s; it must be a string", msg.kindName())
		}
	case "notifications/message":
		j.ran(famShapes)
		if _, ok := logLevels[string(params.get("level").rawStr())]; !ok || !params.has("data") {
			raise(f, "params-invalid", "notifications/message needs a level (debug … emergency) and data; it has level %s", params.get("level").text())
		}
		if l := params.get("logger"); l.present() && !l.isString() {
			raise(f, "params-invalid", "notifications/message's params.logger is %s; it must be the logger's name, a string", l.kindName())
		}
	case "notifications/resources/updated":
		j.ran(famShapes)
		if u := params.get("uri"); !u.isString() {
			raise(f, "params-invalid", "notifications/resources/updated's params.uri is %s; it must be the URI of the resource that changed", u.kindName())
		}
	}
}

// resultShape checks a complete result's shape per method.
func (j *Judge) resultShape(f *wire.Frame, method string, params, result *obj) {
	need := func(key string, kind int, what string) bool {
		j.ran(famShapes)
		if v := result.get(key); v.kind() != kind {
			raise(f, "result-invalid", "the %s result's %s is %s; it must be %s", method, key, v.kindName(), what)
			return false
		}
		return true
	}
	switch method {
	case "tools/list":
		if need("tools", kArray, "an array") {
			j.toolsListResult(f, params, result)
		}
	case "tools/call":
		if e := result.get("isError"); e.present() && e.kind() != kBool {
			raise(f, "result-invalid", "the tools/call result's isError is %s; it must be a boolean", e.kindName())
		}
		if need("content", kArray, "an array") {
			j.toolCallResult(f, params, result)
		}
	case "prompts/list":
		if need("prompts", kArray, "an array") {
			j.promptsListResult(f, result)
		}
	case "prompts/get":
		if need("messages", kArray, "an array") {
			j.promptsGetResult(f, params, result)
		}
	case "resources/list":
		if need("resources", kArray, "an array") {
			j.resourcesListResult(f, result)
		}
	case "resources/templates/list":
		if need("resourceTemplates", kArray, "an array") {
			j.resourceTemplatesListResult(f, result)
		}
	case "resources/read":
		if need("contents", kArray, "an array") {
			j.resourcesReadResult(f, result)
		}
	case "completion/complete":
		if need("completion", kObject, "an object") {
			vals := result.path("completion", "values")
			if !vals.isArray() {
				raise(f, "result-invalid", "the completion/complete result's completion.values is %s; it must be an array", vals.kindName())
			} else if n := vals.count(); n > 100 {
				raise(f, "result-invalid", "the completion/complete result has %d values; at most 100 are allowed", n)
			}
			j.members(f, "result-invalid", "the completion/complete result's completion", result.get("completion"), completionMembers)
		}
	}
	j.cursorResult(f, method, result)
}
