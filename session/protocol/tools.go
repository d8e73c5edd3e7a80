package protocol

import (
	"bytes"
	"cmp"
	"strings"
	"unicode/utf8"

	"linesman/wire"
)

// tool is what tools/list said about one tool.
type tool struct {
	name           string
	input, output  val // private copies of inputSchema and outputSchema (nil when absent)
	inSch, outSch  *jsonSchema
	compiled       bool
	schemaReported bool // tool-schema-invalid was raised for it
	schemaErr      string
	taskSupport    string // execution.taskSupport (2025-11-25); "" when absent
}

// toolbook is the tools seen in tools/list results.
type toolbook struct {
	byName    map[string]*tool
	listing   map[string]bool // names seen in the listing being paged through
	lastOrder []string        // names of the last first page, in order
	cache     map[string]*jsonSchema
}

// maxCachedSchemas bounds the compiled schemas kept: a server whose
// schemas change with every listing must not grow a long-lived tap.
const maxCachedSchemas = 1024

// toolNameOK reports whether a tool name follows the 2025-11-25 guidance.
func toolNameOK(name string) (string, bool) {
	// The clause counts characters: a name of 50 CJK characters is 50
	// long, not the 150 bytes UTF-8 spells it in.
	if n := utf8.RuneCountInString(name); n < 1 || n > 128 {
		return "it is " + itoa(n) + " characters long; tool names should be 1 to 128", false
	}
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return "it contains " + quoteRune(name, i, c) + "; only A-Z, a-z, 0-9, _, - and . should be used", false
		}
	}
	return "", true
}

// toolsListResult records the tools and judges their definitions.
func (j *Judge) toolsListResult(f *wire.Frame, params, result *obj) {
	j.ran(famTools)
	firstPage := !params.has("cursor")
	if firstPage || j.tools.listing == nil {
		j.tools.listing = map[string]bool{}
	}
	var order []string
	result.get("tools").elems(func(i int, t val) bool {
		name, ok := t.get("name").str()
		if !ok {
			raise(f, "result-invalid", "tools[%d].name is %s; it must be a string", i, t.get("name").kindName())
			return true
		}
		order = append(order, name)
		j.toolDefinition(f, i, name, t)
		return true
	})
	if firstPage && j.era == EraModern && !result.has("nextCursor") {
		j.toolOrder(f, order)
	}
}

// toolDefinition judges one tool of a tools/list result and records it.
func (j *Judge) toolDefinition(f *wire.Frame, i int, name string, t val) {
	if j.versionAtLeast(V20251125) {
		if why, ok := toolNameOK(name); !ok {
			raise(f, "tool-name-invalid", "tools[%d] is named %q: %s", i, name, why)
		}
		if j.tools.listing[name] {
			raise(f, "tool-name-duplicate", "tools[%d] repeats the name %q of an earlier tool in the same listing", i, name)
		}
	} else if why, ok := toolNameOK(name); !ok {
		// No rule before 2025-11-25, but hosts hand tools to model APIs
		// that take names of [a-zA-Z0-9_-] only (Anthropic's and OpenAI's,
		// at most 64 characters): such a tool is refused or renamed. Said,
		// as a note: the server broke no clause of its version.
		raiseNote(f, "tool-name-invalid", "tools[%d] is named %q: %s; no rule before 2025-11-25, but hosts that pass tools to a model API refuse or rename such a tool", i, name, why)
	}
	j.tools.listing[name] = true
	j.toolShape(f, i, t)
	in := t.get("inputSchema")
	j.ran(famSchemas)
	switch {
	case !in.isObject():
		raise(f, "tool-input-schema-invalid", "tool %q has inputSchema %s; it must be a JSON Schema object with \"type\": \"object\"", name, in.kindName())
		in = nil
	case !bytes.Equal(in.get("type"), []byte(`"object"`)):
		raise(f, "tool-input-schema-invalid", "tool %q's inputSchema has type %s; tool arguments are objects, so it must be \"object\"", name, in.get("type").text())
	}
	if j.era == EraModern {
		j.xMcpHeaders(f, name, in)
	}
	out := t.get("outputSchema")
	if out.present() && j.versionAtLeast(V20250618) {
		switch {
		case !out.isObject():
			raise(f, "tool-output-schema-invalid", "tool %q has outputSchema %s; it must be a JSON Schema object", name, out.kindName())
			out = nil
		case !j.outputSchemaType(f, name, out):
			out = nil
		}
	}
	old := j.tools.byName[name]
	nt := &tool{name: name, input: clone(in), output: clone(out)}
	nt.taskSupport, _ = t.path("execution", "taskSupport").str()
	if old != nil && bytes.Equal(old.input, nt.input) && bytes.Equal(old.output, nt.output) {
		old.taskSupport = nt.taskSupport
		return // unchanged: keep what was compiled
	}
	j.tools.byName[name] = nt
	// Compiled now, so that a schema that is not JSON Schema is flagged on
	// the listing that carries it (once per distinct schema: see compileSchema).
	j.compile(nt)
	if nt.schemaErr != "" {
		nt.schemaReported = true
		raise(f, "tool-schema-invalid", "tool %q's schema does not compile as JSON Schema: %s", name, nt.schemaErr)
	}
}

// toolOrder flags a tools/list whose tools are the same as last time but in another order.
func (j *Judge) toolOrder(f *wire.Frame, order []string) {
	prev := j.tools.lastOrder
	j.tools.lastOrder = order
	if prev == nil || len(prev) != len(order) {
		return
	}
	same := true
	set := map[string]int{}
	for i := range order {
		set[order[i]]++
		set[prev[i]]--
		same = same && order[i] == prev[i]
	}
	for _, n := range set {
		if n != 0 {
			return // the tools changed, not only their order
		}
	}
	if !same {
		raise(f, "tools-list-order-changed", "tools/list returned the same %d tools as before in another order", len(order))
	}
}

func clone(v val) val {
	if v == nil {
		return nil
	}
	return val(append([]byte(nil), v...))
}

// compile compiles the tool's schemas once, caching by their bytes.
func (j *Judge) compile(t *tool) {
	if t.compiled {
		return
	}
	t.compiled = true
	var errs []string
	if t.input != nil {
		s, err := j.compileSchema(t.input)
		t.inSch = s
		if err != "" {
			errs = append(errs, "inputSchema: "+err)
		}
	}
	if t.output != nil {
		s, err := j.compileSchema(t.output)
		t.outSch = s
		if err != "" {
			errs = append(errs, "outputSchema: "+err)
		}
	}
	t.schemaErr = strings.Join(errs, "; ")
}

// compileSchema checks a schema once per distinct text (see
// [compileJSONSchema]); a bad schema is not cached, and says why.
func (j *Judge) compileSchema(raw val) (*jsonSchema, string) {
	// 2025-11-25 made JSON Schema 2020-12 the dialect of a schema with no
	// $schema; before it none was named, and servers wrote draft-07 (an
	// "items" array, "definitions"): such a schema is judged as draft-07
	// when it is not valid 2020-12, and is no foul.
	lenient := !j.versionAtLeast(V20251125)
	key := string(raw)
	if lenient {
		key += "\x00draft-07 allowed"
	}
	if s, ok := j.tools.cache[key]; ok {
		return s, ""
	}
	s, bad := compileJSONSchema(raw, draft2020)
	if bad != "" && lenient {
		if s07, bad07 := compileJSONSchema(raw, draft07); bad07 == "" {
			s, bad = s07, ""
		}
	}
	if bad != "" {
		return nil, oneLine(bad)
	}
	if j.tools.cache == nil || len(j.tools.cache) >= maxCachedSchemas {
		j.tools.cache = map[string]*jsonSchema{} // a cache: starting afresh changes no verdict
	}
	j.tools.cache[key] = s
	return s, ""
}

// validate validates an instance against a schema: what is wrong with it,
// or "" when it conforms or linesman cannot tell (a schema that uses what
// linesman does not judge is not checked: no foul of its own making).
func validate(s *jsonSchema, instance val) string {
	if v, msg := s.validate(instance); v == verdictInvalid {
		return oneLine(msg)
	}
	return ""
}

// oneLine flattens a multi-line error message and bounds its length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 240 {
		s = s[:240] + "…"
	}
	return s
}

// toolFor returns the known tool a tools/call names, compiled.
func (j *Judge) toolFor(f *wire.Frame, params *obj) *tool {
	if len(j.tools.byName) == 0 {
		return nil
	}
	name, _ := params.get("name").str()
	t := j.tools.byName[name]
	if t == nil {
		return nil
	}
	j.compile(t)
	if t.schemaErr != "" && !t.schemaReported {
		t.schemaReported = true
		raise(f, "tool-schema-invalid", "tool %q's schema does not compile as JSON Schema: %s", name, t.schemaErr)
	}
	return t
}

// toolCallRequest validates the arguments against the tool's inputSchema.
func (j *Judge) toolCallRequest(f *wire.Frame, params *obj) {
	if params.get("task").isObject() && j.version == V20251125 {
		j.taskAugmentedCall(f, params)
	}
	t := j.toolFor(f, params)
	if t == nil || t.inSch == nil {
		return
	}
	j.ran(famSchemas)
	args := params.get("arguments")
	if !args.present() {
		args = val(`{}`)
	}
	if !args.isObject() {
		return // params-invalid says so
	}
	if msg := validate(t.inSch, args); msg != "" {
		raise(f, "tool-arguments-invalid", "the arguments do not match tool %q's inputSchema: %s", t.name, msg)
	}
}

// toolCallResult judges a complete tools/call result.
func (j *Judge) toolCallResult(f *wire.Frame, params, result *obj) {
	j.ran(famTools)
	hasText := j.content.hasText
	if !j.content.walked {
		result.get("content").objects(&j.block, func(i int, b *obj, el val) {
			if j.contentBlock(f, place{base: "content", i: i}, b, el) == "text" {
				hasText = true
			}
		})
	}
	if !j.versionAtLeast(V20250618) {
		// structuredContent and outputSchema came with 2025-06-18: before
		// it they are members the protocol does not define, and neither
		// its SHOULD (a text block beside it) nor its MUST (a result that
		// conforms) was asked of a server.
		return
	}
	sc := result.get("structuredContent")
	if sc.present() && !hasText {
		raise(f, "structured-content-without-text", "the result has structuredContent but no text block carrying it for clients that read only content")
	}
	if len(j.tools.byName) == 0 {
		return // no tools/list seen: no outputSchema to hold the result to
	}
	name, _ := params.get("name").str()
	t := j.tools.byName[name]
	if t == nil || t.output == nil || result.get("isError").truthy() {
		return
	}
	j.ran(famSchemas)
	if !sc.present() {
		raise(f, "structured-content-missing", "tool %q declares an outputSchema but its result has no structuredContent", name)
		return
	}
	j.compile(t)
	if t.outSch == nil {
		return
	}
	if msg := validate(t.outSch, sc); msg != "" {
		raise(f, "structured-content-invalid", "structuredContent does not match tool %q's outputSchema: %s", name, msg)
	}
}

// argumentsFailed reports whether the judge found req's tools/call
// arguments not to match the tool's inputSchema (tool-arguments-invalid),
// in a request that was otherwise well formed: one that fails
// CallToolRequest itself (params-invalid, schema-invalid) is a malformed
// request, which a protocol error answers rightly.
func argumentsFailed(req *wire.Frame) bool {
	if req == nil {
		return false
	}
	failed := false
	for _, fd := range req.Findings {
		switch fd.Code {
		case "tool-arguments-invalid":
			failed = true
		case "params-invalid", "schema-invalid":
			return false
		}
	}
	return failed
}

// taskAugmentedCall judges a tools/call that asks to run as a task
// (2025-11-25): the server must have declared tasks.requests.tools.call
// ("clients MUST NOT attempt to use task augmentation on that server's
// tools" otherwise), and the tool must not forbid it ("If taskSupport is
// absent or forbidden, clients MUST NOT attempt to invoke the tool as a
// task").
func (j *Judge) taskAugmentedCall(f *wire.Frame, params *obj) {
	if !j.caps.serverKnown {
		return
	}
	j.ran(famCapabilities)
	if !j.caps.server.path("tasks", "requests", "tools", "call").isObject() {
		raise(f, "undeclared-capability-request", "the client sent a task-augmented tools/call but the server did not declare tasks.requests.tools.call")
		return
	}
	name, _ := params.get("name").str()
	if t := j.tools.byName[name]; t != nil && (t.taskSupport == "" || t.taskSupport == "forbidden") {
		raise(f, "undeclared-capability-request", "the client called tool %q as a task, which its execution.taskSupport (%s) does not allow", name, cmp.Or(t.taskSupport, "absent: forbidden"))
	}
}
