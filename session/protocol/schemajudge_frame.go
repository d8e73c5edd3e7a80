package protocol

import (
	"strings"

	"linesman/wire"
)

// schemaFrame validates the frame against its revision's definition, after
// the hand-written rules have judged it; see schemajudge.go.
func (j *Judge) schemaFrame(in Input, msg val) {
	f := in.Frame
	var rev, base, def string
	var target *snode
	var v val
	switch f.Msg.Kind {
	case wire.KindRequest, wire.KindNotification:
		// request and notification indexed the params already: their
		// members are looked up in that index, not scanned for again.
		idx := &j.scratch.params
		params := idx.value()
		if params == nil {
			params = msg.open("params") // not an object: idx is empty
		}
		rev = j.schemaRevision(f, idx)
		rs := schemaOf(rev)
		if rs == nil || rs.method(f.Msg.Method) == nil {
			return
		}
		def, base = rs.method(f.Msg.Method).def, "params"
		target, v = rs.paramsOf(f.Msg.Method), params
		if target == nil || !v.present() && !required(rs.method(f.Msg.Method), "params") {
			return
		}
	case wire.KindResult, wire.KindError:
		if in.Request == nil {
			return // an answer to nothing known: no method to go by
		}
		method := in.Request.Msg.Method
		req, ok := j.schemaReqs[in.Request]
		if ok {
			delete(j.schemaReqs, in.Request)
		} else {
			req.rev = j.version
		}
		rev = req.rev
		if method == "initialize" && f.Msg.Kind == wire.KindResult {
			if v, ok := msg.path("result", "protocolVersion").str(); ok && schemaOf(v) != nil {
				rev = v // the version the server answers with is the one its result speaks
			}
		}
		rs := schemaOf(rev)
		if rs == nil || rs.method(method) == nil {
			return
		}
		target, def, base, v = rs.answerSchema(f, method, req.task, msg)
	default:
		return
	}
	if target == nil {
		return
	}
	j.ran(famShapes)
	if fault := target.check(v, 0); fault != nil {
		j.raiseSchema(f, fault, base, rev, def)
	}
}

// raiseSchema raises schema-invalid for fault, unless a hand-written
// finding on the frame already speaks for the member.
func (j *Judge) raiseSchema(f *wire.Frame, fault *schemaFault, base, rev, def string) {
	at := fault.where(base)
	if coveredByRule(f, at) {
		return
	}
	text := at + ": want " + fault.want + ", got " + fault.got + " — " + rev + " " + def
	if fault.def != "" && fault.def != def {
		text += " (" + fault.def + ")"
	}
	f.Findings = append(f.Findings, wire.NewFinding("schema-invalid", text))
}

// A schemaReq is what the answer to a request needs to know of it: the
// revision it was sent under and whether it asked for a task.
type schemaReq struct {
	rev  string
	task bool
}

// answerSchema is the schema an answer to method is validated against:
// the error object of an error, else the result of method (a task-created
// result when the request asked for a task and the answer names one).
func (rs *revisionSchema) answerSchema(f *wire.Frame, method string, task bool, msg val) (*snode, string, string, val) {
	if f.Msg.Kind == wire.KindError {
		return rs.errSchema(), "Error", "error", msg.open("error")
	}
	result := msg.open("result")
	target := rs.resultFor(method)
	if task && result.has("task") {
		if t := rs.def("CreateTaskResult"); t != nil {
			target = t
		}
	}
	if target == nil {
		return nil, "", "", nil
	}
	def := target.target().def
	if def == "" {
		def = strings.TrimSuffix(rs.methodDef[method], "Request") + "ResultResponse"
	}
	return target, def, "result", result
}

// schemaRevision is the revision a request or notification f (params)
// is judged by: its own _meta protocol version when it names one linesman
// carries, server/discover's own revision, initialize's asked-for version,
// else the session's version. "" when none is known: then the schema judge
// says nothing. A request's revision (and whether it asked for a task) is
// remembered for its answer when it is not simply the session's.
func (j *Judge) schemaRevision(f *wire.Frame, params *obj) string {
	rev := j.version
	if mv, ok := params.path("_meta", metaProtocolVersion).str(); ok && schemaOf(mv) != nil {
		rev = mv
	} else {
		switch f.Msg.Method {
		case "server/discover":
			rev = V20260728
		case "initialize":
			rev = ""
			if v, ok := params.get("protocolVersion").str(); ok && schemaOf(v) != nil {
				rev = v
			}
		}
	}
	if f.Msg.Kind == wire.KindRequest {
		task := params.has("task")
		if rev != j.version || task || f.Msg.Method == "initialize" {
			if len(j.schemaReqs) >= maxPending {
				clear(j.schemaReqs) // requests never answered
			}
			j.schemaReqs[f] = schemaReq{rev, task}
		}
	}
	return rev
}

// required reports whether the definition n requires the member name.
func required(n *snode, name string) bool {
	for _, r := range n.required {
		if r == name {
			return true
		}
	}
	return false
}

// ruleCovers maps the hand-written codes that judge the shape of a
// message to the members they speak for. A schema fault at or under one
// of them, on a frame that already carries that code, is not repeated:
// the hand-written rule names it better (with its own clause and advice).
var ruleCovers = map[string][]string{
	"invalid-jsonrpc":                     {""},
	"params-invalid":                      {"params"},
	"result-invalid":                      {"result"},
	"content-block-invalid":               {"params", "result"},
	"initialize-params-invalid":           {"params"},
	"initialize-protocol-version-invalid": {"params.protocolVersion"},
	"initialize-result-invalid":           {"result"},
	"initialize-result-version-invalid":   {"result.protocolVersion"},
	"missing-result-type":                 {"result.resultType"},
	"unknown-result-type":                 {"result.resultType"},
	"request-meta-missing":                {"params._meta", "params"},
	"meta-key-invalid":                    {"params._meta", "result._meta"},
	"cache-hint-invalid":                  {"result.ttlMs", "result.cacheScope"},
	"cache-hint-missing":                  {"result.ttlMs", "result.cacheScope"},
	"cancel-without-request-id":           {"params.requestId"},
	"tool-input-schema-invalid":           {"result.tools"},
	"tool-output-schema-invalid":          {"result.tools"},
	"tool-schema-invalid":                 {"result.tools"},
	"structured-content-invalid":          {"result.structuredContent"},
	"structured-content-missing":          {"result.structuredContent"},
	"elicitation-answer-invalid":          {"result"},
	"input-required-empty":                {"result"},
	"request-state-misused":               {"result"},
	"log-without-level":                   {"params.level"},
	"input-request-unknown-method":        {"result.inputRequests"},
	"input-required-unsupported-method":   {"result"},
}

// coveredByRule reports whether a finding already on the frame speaks for
// the member at.
func coveredByRule(f *wire.Frame, at string) bool {
	for _, fd := range f.Findings {
		for _, p := range ruleCovers[fd.Code] {
			if p == "" || at == p || strings.HasPrefix(at, p) && (at[len(p)] == '.' || at[len(p)] == '[') {
				return true
			}
		}
	}
	return false
}
