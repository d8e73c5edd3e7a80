package protocol

import (
	"strings"

	"linesman/wire"
)

// Elicitation: the forms a server asks a host to show its user
// (elicitation/create, 2025-06-18), what the host answers, and the modes
// each side declared (2025-11-25).

// elicitationParams: a message, and either a form's requestedSchema (an
// object schema of flat, primitive properties: StringSchema, NumberSchema,
// BooleanSchema, EnumSchema; from 2025-11-25 also multi-select enums,
// "type": "array") or, from 2025-11-25, a url mode's url and elicitationId.
func (j *Judge) elicitationParams(f *wire.Frame, params *obj) {
	const where = "elicitation/create's params"
	if m := params.get("message"); !m.isString() {
		raise(f, "params-invalid", "%s.message is %s; it must be a string the host shows the user", where, m.kindName())
	}
	if mode, _ := params.get("mode").str(); mode == "url" && j.versionAtLeast(V20251125) {
		for _, k := range []string{"url", "elicitationId"} {
			if v := params.get(k); !v.isString() {
				raise(f, "params-invalid", "%s.%s is %s; a url-mode elicitation must have it as a string", where, k, v.kindName())
			}
		}
		return
	}
	rs := params.get("requestedSchema")
	if !rs.isObject() || string(rs.get("type")) != `"object"` || !rs.get("properties").isObject() {
		raise(f, "params-invalid", "%s.requestedSchema must be an object schema (\"type\": \"object\") with properties", where)
		return
	}
	j.secretFields(f, where, rs.get("properties"))
	rs.get("properties").members(func(key []byte, p val) bool {
		typ, _ := p.get("type").str()
		switch typ {
		case "string", "number", "integer", "boolean":
			return j.primitiveSchema(f, where+".requestedSchema property "+val(key).text(), typ, p)
		case "array":
			if j.versionAtLeast(V20251125) {
				return j.multiSelectSchema(f, where+".requestedSchema property "+val(key).text(), p)
			}
		}
		raise(f, "params-invalid", "%s.requestedSchema property %s has type %s; elicitation asks for flat primitive values (string, number, integer, boolean%s)", where, val(key).text(), p.get("type").text(), multiSelectWords(j))
		return false
	})
}

// secretNames are form field names (lower case, letters and digits only)
// that ask for a secret.
var secretNames = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "secret": true,
	"apikey": true, "apisecret": true, "apitoken": true, "secretkey": true,
	"accesstoken": true, "refreshtoken": true, "authtoken": true, "bearertoken": true,
	"clientsecret": true, "privatekey": true, "token": true, "accesskey": true,
}

// secretFields flags a form-mode field that asks for a secret: named as
// one (password, api_key, client-secret, …) or of format "password"
// ("Servers MUST NOT request sensitive information (passwords, API keys,
// etc.) via form mode"; URL mode is the way). One finding per form.
func (j *Judge) secretFields(f *wire.Frame, where string, props val) {
	props.members(func(key []byte, p val) bool {
		name, _ := val(key).str()
		norm := strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				return r
			case r >= 'A' && r <= 'Z':
				return r + 'a' - 'A'
			}
			return -1
		}, name)
		if secretNames[norm] || string(p.get("format")) == `"password"` {
			raise(f, "elicitation-requests-secret", "%s.requestedSchema asks for %q in a form: a secret must not pass through the host; ask for it with a url-mode elicitation (2025-11-25) or the server's own configuration", where, name)
			return false
		}
		return true
	})
}

// elicitationAnswer judges the host's accepted answer to a form-mode
// elicitation against the form ("Clients SHOULD validate all responses
// against the provided schema"; accept's content holds "the submitted
// data matching the requested schema").
func (j *Judge) elicitationAnswer(f *wire.Frame, req *wire.Frame, r val) {
	if req == nil || string(r.get("action")) != `"accept"` || !j.versionAtLeast(V20250618) {
		return
	}
	params := body(req).open("params")
	if mode, _ := params.get("mode").str(); mode == "url" {
		return
	}
	rs := params.get("requestedSchema")
	content := r.get("content")
	if !rs.isObject() || !content.isObject() || hasFinding(f, "result-invalid") {
		return // result-invalid and params-invalid say what is wrong
	}
	s, bad := j.compileSchema(rs)
	if s == nil || bad != "" {
		return
	}
	if msg := validate(s, content); msg != "" {
		raise(f, "elicitation-answer-invalid", "the client accepted the elicitation with content that does not match its requestedSchema: %s", msg)
	}
}

// hasFinding reports whether f already carries a finding of code.
func hasFinding(f *wire.Frame, code string) bool {
	for _, fd := range f.Findings {
		if fd.Code == code {
			return true
		}
	}
	return false
}

func multiSelectWords(j *Judge) string {
	if j.versionAtLeast(V20251125) {
		return ", or an array of enum strings"
	}
	return ""
}

// elicitedValues: ElicitResult.content holds the form's values, each a
// string, a number or a boolean (and, from 2025-11-25, a list of strings,
// a multi-select's).
func (j *Judge) elicitedValues(f *wire.Frame, c val) {
	c.members(func(key []byte, v val) bool {
		switch v.kind() {
		case kString, kNumber, kBool:
			return true
		case kArray:
			ok := j.versionAtLeast(V20251125)
			v.elems(func(_ int, e val) bool { ok = ok && e.isString(); return ok })
			if ok {
				return true
			}
		}
		raise(f, "result-invalid", "the client's elicitation/create result has content %s of %s; a form value is a string, a number or a boolean%s", val(key).text(), v.kindName(), multiSelectWords(j))
		return false
	})
}

// clientSubCapability flags a 2025-11-25 server request that needs more of
// a client capability than was declared: sampling with tools needs
// sampling.tools ("Servers MUST NOT send tool-enabled sampling requests to
// Clients that have not declared support for tool use via the
// sampling.tools capability"); an elicitation's mode needs elicitation.form
// or elicitation.url ("Servers MUST NOT send elicitation requests with
// modes that are not supported by the client"; an empty elicitation object
// declares form mode only).
func (j *Judge) clientSubCapability(f *wire.Frame, method string, params *obj) {
	switch method {
	case "sampling/createMessage":
		if (params.has("tools") || params.has("toolChoice")) && !j.caps.client.path("sampling", "tools").isObject() {
			raise(f, "undeclared-client-capability", "the server sent a sampling/createMessage with tools but the client did not declare sampling.tools")
		}
		if ic, _ := params.get("includeContext").str(); (ic == "thisServer" || ic == "allServers") &&
			j.caps.client.get("sampling").isObject() && !j.caps.client.path("sampling", "context").isObject() {
			raise(f, "sampling-context-undeclared", "the server sent a sampling/createMessage with includeContext %q but the client did not declare sampling.context", ic)
		}
	case "elicitation/create":
		el := j.caps.client.get("elicitation")
		if !el.isObject() {
			return // undeclared-client-capability says so
		}
		form, url := el.get("form").isObject(), el.get("url").isObject()
		if !form && !url {
			form = true // {} declares form mode
		}
		mode, _ := params.get("mode").str()
		switch {
		case mode == "url" && !url:
			raise(f, "undeclared-client-capability", "the server sent a url-mode elicitation/create but the client declared only form mode (elicitation.url is absent)")
		case mode != "url" && !form:
			raise(f, "undeclared-client-capability", "the server sent a form-mode elicitation/create but the client declared only url mode (elicitation.form is absent)")
		}
	}
}

// primitiveSchema judges one form field (StringSchema, NumberSchema,
// BooleanSchema, EnumSchema): a string's format is email, uri, date or
// date-time, an enum lists strings, a default has the field's type (and
// an enum's is one of its values). Defaults of strings and numbers came
// with 2025-11-25; before, they are extra members.
func (j *Judge) primitiveSchema(f *wire.Frame, where, typ string, p val) bool {
	if fm := p.get("format"); fm.present() && typ == "string" {
		switch string(fm) {
		case `"email"`, `"uri"`, `"date"`, `"date-time"`:
		default:
			raise(f, "params-invalid", "%s has format %s; a form field's format is email, uri, date or date-time", where, fm.text())
			return false
		}
	}
	enum := p.get("enum")
	if enum.present() {
		ok := enum.isArray() && typ == "string"
		enum.elems(func(_ int, e val) bool { ok = ok && e.isString(); return ok })
		if !ok {
			raise(f, "params-invalid", "%s has enum %s; an enum field is a string field listing strings", where, enum.text())
			return false
		}
	}
	def := p.get("default")
	if !def.present() || typ != "boolean" && !j.versionAtLeast(V20251125) {
		return true
	}
	want := map[string]int{"string": kString, "number": kNumber, "integer": kNumber, "boolean": kBool}[typ]
	if def.kind() != want {
		raise(f, "params-invalid", "%s has default %s; it must be %s, as the field is", where, def.text(), kindNames[want])
		return false
	}
	if enum.present() {
		in := false
		enum.elems(func(_ int, e val) bool { in = string(e) == string(def); return !in })
		if !in {
			raise(f, "params-invalid", "%s has default %s, which is none of its enum values", where, def.text())
			return false
		}
	}
	return true
}

// multiSelectSchema judges a multi-select field (2025-11-25): items are
// strings of an enum, or anyOf titled constants.
func (j *Judge) multiSelectSchema(f *wire.Frame, where string, p val) bool {
	items := p.get("items")
	ok := items.isObject()
	switch {
	case !ok:
	case items.has("anyOf"):
		ok = items.get("anyOf").isArray()
	default:
		ok = string(items.get("type")) == `"string"` && items.get("enum").isArray()
		items.get("enum").elems(func(_ int, e val) bool { ok = ok && e.isString(); return ok })
	}
	if !ok {
		raise(f, "params-invalid", "%s is a multi-select whose items are %s; they must be {\"type\": \"string\", \"enum\": [...]} or {\"anyOf\": [{\"const\", \"title\"}, ...]}", where, items.text())
	}
	return ok
}
