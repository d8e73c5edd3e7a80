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
		rev = j.schemaRevision(f.Msg.Method, msg)
		rs := schemaOf(rev)
		if rs == nil || rs.methods[f.Msg.Method] == nil {
			return
		}
		def, base = rs.methods[f.Msg.Method].def, "params"
		target, v = rs.params[f.Msg.Method], msg.get("params")
		if target == nil || !v.present() && !required(rs.methods[f.Msg.Method], "params") {
			return
		}
	case wire.KindResult, wire.KindError:
		if in.Request == nil {
			return // an answer to nothing known: no method to go by
		}
		method := in.Request.Msg.Method
		rev = j.schemaRevision(method, body(in.Request))
		if method == "initialize" && f.Msg.Kind == wire.KindResult {
			if v, ok := msg.path("result", "protocolVersion").str(); ok && schemaOf(v) != nil {
				rev = v // the version the server answers with is the one its result speaks
			}
		}
		rs := schemaOf(rev)
		if rs == nil || rs.methods[method] == nil {
			return
		}
		target, def, base, v = rs.answerSchema(f, method, body(in.Request), msg)
	default:
		return
	}
	if target == nil {
		return
	}
	j.ran(famShapes)
	fault := target.check(v, 0)
	if fault == nil {
		return
	}
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

// answerSchema is the schema an answer to method is validated against:
// the error object of an error, else the result of method (a task-created
// result when the request asked for a task and the answer names one).
func (rs *revisionSchema) answerSchema(f *wire.Frame, method string, request, msg val) (*snode, string, string, val) {
	if f.Msg.Kind == wire.KindError {
		return rs.err, "Error", "error", msg.get("error")
	}
	result := msg.get("result")
	target := rs.result[method]
	if request.get("params").has("task") && result.has("task") && rs.defs["CreateTaskResult"] != nil {
		target = rs.defs["CreateTaskResult"]
	}
	if target == nil {
		return nil, "", "", nil
	}
	def := target.target().def
	if def == "" {
		def = strings.TrimSuffix(rs.methods[method].def, "Request") + "ResultResponse"
	}
	return target, def, "result", result
}

// schemaRevision is the revision a request or notification of method
// (msg) is judged by: its own _meta protocol version when it names one
// linesman carries, server/discover's own revision, initialize's asked-for
// version, else the session's version. "" when none is known: then the
// schema judge says nothing.
func (j *Judge) schemaRevision(method string, msg val) string {
	params := msg.get("params")
	if mv, ok := params.path("_meta", metaProtocolVersion).str(); ok && schemaOf(mv) != nil {
		return mv
	}
	switch method {
	case "server/discover":
		return V20260728
	case "initialize":
		if v, ok := params.get("protocolVersion").str(); ok && schemaOf(v) != nil {
			return v
		}
		return ""
	}
	return j.version
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
