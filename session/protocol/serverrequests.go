package protocol

import "linesman/wire"

// The server's requests to the host (sampling, elicitation) and the host's
// answers to them and to roots/list: the shapes each side relies on.

// serverRequestShape checks the params of the server's requests whose
// shape the host relies on to ask its model or its user.
func (j *Judge) serverRequestShape(f *wire.Frame, method string, params *obj) {
	switch method {
	case "sampling/createMessage":
		j.ran(famShapes)
		j.samplingParams(f, params)
	case "elicitation/create":
		if j.versionAtLeast(V20250618) {
			j.ran(famShapes)
			j.elicitationParams(f, params)
		}
	}
	if j.caps.clientKnown && j.version == V20251125 {
		j.clientSubCapability(f, method, params)
	}
}

// samplingParams: CreateMessageRequestParams has messages (each a role and
// a content block) and maxTokens, in every revision.
func (j *Judge) samplingParams(f *wire.Frame, params *obj) {
	const where = "sampling/createMessage's params"
	if mt := params.get("maxTokens"); !mt.isNumber() {
		raise(f, "params-invalid", "%s.maxTokens is %s; it must be a number (the host must know how much the model may write)", where, mt.kindName())
	}
	msgs := params.get("messages")
	if !msgs.isArray() {
		raise(f, "params-invalid", "%s.messages is %s; it must be an array of messages", where, msgs.kindName())
		return
	}
	msgs.elems(func(i int, m val) bool {
		if r := string(m.get("role")); r != `"user"` && r != `"assistant"` {
			raise(f, "params-invalid", "%s.messages[%d].role is %s; it must be \"user\" or \"assistant\"", where, i, m.get("role").text())
			return false
		}
		if c := m.get("content"); !c.isObject() && !(c.isArray() && j.versionAtLeast(V20251125)) {
			raise(f, "params-invalid", "%s.messages[%d].content is %s; it must be a content block", where, i, c.kindName())
			return false
		}
		return true
	})
	if j.versionAtLeast(V20251125) {
		samplingToolTurns(f, msgs, where)
	}
	j.members(f, "params-invalid", where, params.value(), samplingMembers)
	if ic := params.get("includeContext"); ic.isString() {
		switch string(ic) {
		case `"none"`, `"thisServer"`, `"allServers"`:
		default:
			raise(f, "params-invalid", "%s.includeContext is %s; it must be \"none\", \"thisServer\" or \"allServers\"", where, ic.text())
		}
	}
	if mp := params.get("modelPreferences"); mp.isObject() {
		for _, k := range [...]string{"costPriority", "speedPriority", "intelligencePriority"} {
			p := mp.get(k)
			if !p.present() {
				continue
			}
			if n, ok := p.num(); !ok || n < 0 || n > 1 {
				raise(f, "params-invalid", "%s.modelPreferences.%s is %s; it must be a number from 0 to 1", where, k, p.text())
			}
		}
	}
}

// samplingMembers are sampling/createMessage's optional params, with
// their kinds (schema.ts, every revision that has sampling).
var samplingMembers = []memberRule{
	{key: "systemPrompt", kind: kString},
	{key: "includeContext", kind: kString},
	{key: "temperature", kind: kNumber},
	{key: "stopSequences", kind: kArray},
	{key: "modelPreferences", kind: kObject},
	{key: "metadata", kind: kObject},
}

// clientResult judges the host's answer to a server request: what the
// server reads back of its model's message, its user's form, its roots.
func (j *Judge) clientResult(f *wire.Frame, method string, r val) {
	switch method {
	case "sampling/createMessage", "elicitation/create", "roots/list":
	default:
		return
	}
	j.ran(famShapes)
	if !r.isObject() {
		raise(f, "result-invalid", "the client's %s result is %s; every result is an object", method, r.kindName())
		return
	}
	if t := createdTask(r); t != nil {
		j.clientCreatedTask(f, method)
		j.createTaskResult(f, method, t)
		return
	}
	switch method {
	case "sampling/createMessage":
		// CreateMessageResult: a SamplingMessage (role, content) and model.
		if role := string(r.get("role")); role != `"user"` && role != `"assistant"` {
			raise(f, "result-invalid", "the client's sampling/createMessage result has role %s; it must be \"user\" or \"assistant\"", r.get("role").text())
		}
		if c := r.get("content"); !c.isObject() && !(c.isArray() && j.versionAtLeast(V20251125)) {
			raise(f, "result-invalid", "the client's sampling/createMessage result has content %s; it must be a content block", c.kindName())
		}
		if m := r.get("model"); !m.isString() {
			raise(f, "result-invalid", "the client's sampling/createMessage result has model %s; it must name the model as a string", m.kindName())
		}
	case "elicitation/create":
		switch string(r.get("action")) {
		case `"accept"`, `"decline"`, `"cancel"`:
		default:
			raise(f, "result-invalid", "the client's elicitation/create result has action %s; it must be \"accept\", \"decline\" or \"cancel\"", r.get("action").text())
		}
		if c := r.get("content"); c.present() && !c.isObject() {
			raise(f, "result-invalid", "the client's elicitation/create result has content %s; it must be an object of the form's values", c.kindName())
		} else {
			j.elicitedValues(f, c)
		}
	case "roots/list":
		j.rootsResult(f, r)
	}
}

// rootsResult: ListRootsResult { roots: Root[] }, each root's uri a
// file:// URI ("This *must* be a file:// URI in the current version",
// 2024-11-05 to 2025-11-25).
func (j *Judge) rootsResult(f *wire.Frame, r val) {
	roots := r.get("roots")
	if !roots.isArray() {
		raise(f, "result-invalid", "the client's roots/list result has roots %s; it must be an array", roots.kindName())
		return
	}
	roots.elems(func(i int, root val) bool {
		u, ok := root.get("uri").str()
		switch {
		case !ok:
			raise(f, "result-invalid", "the client's roots[%d].uri is %s; it must be a file:// URI", i, root.get("uri").kindName())
			return false
		case len(u) < 7 || !equalFoldASCII(u[:7], "file://"):
			raise(f, "result-invalid", "the client's roots[%d].uri is %s; a root must be a file:// URI", i, root.get("uri").text())
			return false
		}
		return true
	})
}
