package protocol

import (
	"bytes"
	"strconv"

	"linesman/wire"
)

// The shapes of what listings define (tools, prompts, resources, the
// server's and client's Implementation) beyond the members the other rules
// read, per schema.ts of the revision negotiated. A member a revision does
// not define is not judged in that revision: before it, it is an extra
// member, which every revision allows.

// memberRule is one member a definition may or must have.
type memberRule struct {
	key      string
	kind     int    // kString, kBool, kObject, kArray or kNumber
	required bool   // absent is a fault
	since    string // the revision that defined it ("" for every one)
}

// members flags each memberRule of v (at where) that is missing while
// required, or present with another kind, under the code given. It
// reports whether all were right.
func (j *Judge) members(f *wire.Frame, code, where string, v val, ms []memberRule) bool {
	ok := true
	for _, m := range ms {
		if m.since != "" && !j.versionAtLeast(m.since) {
			continue
		}
		x := v.get(m.key)
		switch {
		case !x.present() && !m.required:
		case x.kind() != m.kind:
			raise(f, code, "%s.%s is %s; it must be %s", where, m.key, x.kindName(), kindNames[m.kind])
			ok = false
		}
	}
	return ok
}

// Implementation (serverInfo, clientInfo): name and version are required
// in every revision; title (2025-06-18) and websiteUrl, description
// (2025-11-25) are optional strings.
var implementationMembers = []memberRule{
	{key: "name", kind: kString, required: true},
	{key: "version", kind: kString, required: true},
	{key: "title", kind: kString, since: V20250618},
	{key: "description", kind: kString, since: V20251125},
	{key: "websiteUrl", kind: kString, since: V20251125},
}

// Tool: description (every revision), title (2025-06-18), annotations
// (2025-03-26) are optional; name and inputSchema are judged elsewhere.
var toolMembers = []memberRule{
	{key: "description", kind: kString},
	{key: "title", kind: kString, since: V20250618},
	{key: "annotations", kind: kObject, since: V20250326},
}

// ToolAnnotations (2025-03-26): a title and four boolean hints.
var toolAnnotationMembers = []memberRule{
	{key: "title", kind: kString},
	{key: "readOnlyHint", kind: kBool},
	{key: "destructiveHint", kind: kBool},
	{key: "idempotentHint", kind: kBool},
	{key: "openWorldHint", kind: kBool},
}

// toolShape judges a tool's members other than its name and schemas.
func (j *Judge) toolShape(f *wire.Frame, i int, t val) {
	where := "tools[" + itoa(i) + "]"
	if !j.members(f, "result-invalid", where, t, toolMembers) {
		return
	}
	if t.has("annotations") && j.versionAtLeast(V20250326) {
		j.members(f, "result-invalid", where+".annotations", t.get("annotations"), toolAnnotationMembers)
	}
	if !j.versionAtLeast(V20251125) {
		return
	}
	j.icons(f, where, t.get("icons"))
	switch ts := t.path("execution", "taskSupport"); string(ts) {
	case "", `"forbidden"`, `"optional"`, `"required"`:
	default:
		raise(f, "result-invalid", "%s.execution.taskSupport is %s; it must be \"forbidden\", \"optional\" or \"required\"", where, ts.text())
	}
}

// icons judges the icons of a definition (2025-11-25): each a src, with
// sizes a list of strings and a theme of light or dark.
func (j *Judge) icons(f *wire.Frame, where string, icons val) {
	if !icons.present() {
		return
	}
	if !icons.isArray() {
		raise(f, "result-invalid", "%s.icons is %s; it must be an array of icons", where, icons.kindName())
		return
	}
	icons.elems(func(k int, ic val) bool {
		iw := where + ".icons[" + itoa(k) + "]"
		if !j.members(f, "result-invalid", iw, ic, iconMembers) {
			return false
		}
		if th := ic.get("theme"); th.present() && string(th) != `"light"` && string(th) != `"dark"` {
			raise(f, "result-invalid", "%s.theme is %s; it must be \"light\" or \"dark\"", iw, th.text())
			return false
		}
		return true
	})
}

// Icon (2025-11-25); the members of a CompleteResult's completion.
var (
	iconMembers = []memberRule{
		{key: "src", kind: kString, required: true},
		{key: "mimeType", kind: kString},
		{key: "sizes", kind: kArray},
	}
	completionMembers = []memberRule{
		{key: "total", kind: kNumber},
		{key: "hasMore", kind: kBool},
	}
)

// completionParams: CompleteRequestParams { ref: PromptReference
// ("ref/prompt", a name) | ResourceTemplateReference ("ref/resource", a
// uri); argument: { name: string; value: string } }, every revision.
func (j *Judge) completionParams(f *wire.Frame, params *obj) {
	ref, arg := params.get("ref"), params.get("argument")
	if ref.isObject() {
		switch string(ref.get("type")) {
		case `"ref/prompt"`:
			j.members(f, "params-invalid", "completion/complete's params.ref", ref, []memberRule{{key: "name", kind: kString, required: true}})
		case `"ref/resource"`:
			j.members(f, "params-invalid", "completion/complete's params.ref", ref, []memberRule{{key: "uri", kind: kString, required: true}})
		default:
			raise(f, "params-invalid", "completion/complete's params.ref.type is %s; it must be \"ref/prompt\" or \"ref/resource\"", ref.get("type").text())
		}
	}
	if arg.isObject() {
		j.members(f, "params-invalid", "completion/complete's params.argument", arg, []memberRule{{key: "name", kind: kString, required: true}, {key: "value", kind: kString, required: true}})
	}
}

// outputSchemaType flags an outputSchema whose type is not "object" in
// 2025-06-18 and 2025-11-25, where Tool.outputSchema is { $schema?; type:
// "object"; properties?; required? } ("Currently restricted to type:
// \"object\" at the root level") and structuredContent an object.
// 2026-07-28 lifted the restriction; a session of no known version is
// not held to it.
func (j *Judge) outputSchemaType(f *wire.Frame, name string, out val) bool {
	if j.version != V20250618 && j.version != V20251125 {
		return true
	}
	if typ := out.get("type"); string(typ) != `"object"` {
		raise(f, "tool-output-schema-invalid", "tool %q's outputSchema has type %s; it must be \"object\", as structuredContent is an object", name, typ.text())
		return false
	}
	return true
}

// Prompt and PromptArgument: a name each; descriptions are strings.
var (
	promptMembers = []memberRule{
		{key: "name", kind: kString, required: true},
		{key: "description", kind: kString},
		{key: "title", kind: kString, since: V20250618},
		{key: "arguments", kind: kArray},
	}
	promptArgumentMembers = []memberRule{
		{key: "name", kind: kString, required: true},
		{key: "description", kind: kString},
		{key: "required", kind: kBool},
	}
)

// promptShape judges one prompt of a prompts/list result.
func (j *Judge) promptShape(f *wire.Frame, i int, p val) {
	where := "prompts[" + itoa(i) + "]"
	if !p.isObject() {
		raise(f, "result-invalid", "%s is %s; a prompt is an object", where, p.kindName())
		return
	}
	j.members(f, "result-invalid", where, p, promptMembers)
	j.definitions(f, where+".arguments", "a prompt argument", p.get("arguments"), promptArgumentMembers)
}

// definitions judges each element of list, at base[i], as a definition of
// what: an object with rules' members.
func (j *Judge) definitions(f *wire.Frame, base, what string, list val, rules []memberRule) {
	list.elems(func(i int, v val) bool {
		where := base + "[" + itoa(i) + "]"
		if !v.isObject() {
			raise(f, "result-invalid", "%s is %s; %s is an object", where, v.kindName(), what)
		} else {
			j.members(f, "result-invalid", where, v, rules)
		}
		return true
	})
}

// promptMessageRole flags a prompt message whose role is not one the
// protocol has: Role is "user" | "assistant" in every revision.
func (j *Judge) promptMessageRole(f *wire.Frame, i int, m val) {
	if !m.isObject() {
		raise(f, "result-invalid", "messages[%d] is %s; a prompt message is an object with role and content", i, m.kindName())
		return
	}
	if r := string(m.get("role")); r != `"user"` && r != `"assistant"` {
		raise(f, "result-invalid", "messages[%d].role is %s; it must be \"user\" or \"assistant\"", i, m.get("role").text())
	}
}

// Resource and ResourceTemplate: uri (judged elsewhere) or uriTemplate,
// and a name, in every revision.
var (
	resourceMembers = []memberRule{
		{key: "name", kind: kString, required: true},
		{key: "description", kind: kString},
		{key: "mimeType", kind: kString},
		{key: "title", kind: kString, since: V20250618},
		{key: "size", kind: kNumber, since: V20250326},
	}
	resourceTemplateMembers = []memberRule{
		{key: "uriTemplate", kind: kString, required: true},
		{key: "name", kind: kString, required: true},
		{key: "description", kind: kString},
		{key: "mimeType", kind: kString},
		{key: "title", kind: kString, since: V20250618},
	}
)

// resourceTemplatesListResult judges the templates of a listing.
func (j *Judge) resourceTemplatesListResult(f *wire.Frame, result *obj) {
	j.ran(famResources)
	j.definitions(f, "resourceTemplates", "a resource template", result.get("resourceTemplates"), resourceTemplateMembers)
}

// equalFoldASCII reports whether a and b are equal, ignoring ASCII case
// (a URI scheme is case-insensitive).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if a[i] != b[i] && (x != y || x < 'a' || x > 'z') {
			return false
		}
	}
	return true
}

// Task (2025-11-25): what a CreateTaskResult, tasks/get and tasks/cancel
// answer with.
var taskMembers = []memberRule{
	{key: "taskId", kind: kString, required: true},
	{key: "status", kind: kString, required: true},
	{key: "statusMessage", kind: kString},
	{key: "createdAt", kind: kString, required: true},
	{key: "lastUpdatedAt", kind: kString, required: true},
	{key: "pollInterval", kind: kNumber},
}

// CreatesTask reports whether f, an answer to a request of method, is a
// CreateTaskResult ({"task": {...}}, 2025-11-25): the receiver of a
// task-augmented request "immediately returns a CreateTaskResult", and the
// request's progress token "MUST continue to be used … throughout the
// task's lifetime". The one test of it, for the judge and for the
// session's progress bookkeeping.
func CreatesTask(method string, f *wire.Frame) bool {
	if f.Msg.Kind != wire.KindResult || !taskAugmentable(method) {
		return false
	}
	b := body(f)
	return bytes.Contains(b, []byte(`"task"`)) && createdTask(b.open("result")) != nil
}

// taskAugmentable reports whether a request of method may be answered
// with a CreateTaskResult (2025-11-25 tasks).
func taskAugmentable(method string) bool {
	switch method {
	case "tools/call", "sampling/createMessage", "elicitation/create":
		return true
	}
	return false
}

// createdTask is the task of a result that is a CreateTaskResult, or nil.
func createdTask(result val) val {
	if t := result.get("task"); t.isObject() {
		return t
	}
	return nil
}

// createTaskResult judges the answer to a task-augmented request: a
// CreateTaskResult { task: Task } stands for the result, which tasks/result
// gives later ("The response does not include the actual operation
// result", 2025-11-25 Tasks).
func (j *Judge) createTaskResult(f *wire.Frame, method string, t val) {
	where := "the " + method + " result's task"
	if !j.members(f, "result-invalid", where, t, taskMembers) {
		return
	}
	switch string(t.get("status")) {
	case `"working"`, `"input_required"`, `"completed"`, `"failed"`, `"cancelled"`:
	default:
		raise(f, "result-invalid", "%s.status is %s; it must be working, input_required, completed, failed or cancelled", where, t.get("status").text())
	}
	if ttl := t.get("ttl"); !ttl.isNumber() && !ttl.isNull() {
		raise(f, "result-invalid", "%s.ttl is %s; it must be a number of milliseconds, or null for unlimited", where, ttl.kindName())
	}
}

// capabilityRule is one capability: an object when present, with the
// boolean flags it may carry.
type capabilityRule struct {
	key   string
	flags []string
	since string // the revision that defined it ("" for every one)
}

// The capabilities schema.ts defines (ServerCapabilities,
// ClientCapabilities); others are extra members, which are allowed.
var (
	serverCapabilityMembers = []capabilityRule{
		{key: "experimental"},
		{key: "logging"},
		{key: "completions", since: V20250326},
		{key: "prompts", flags: []string{"listChanged"}},
		{key: "resources", flags: []string{"subscribe", "listChanged"}},
		{key: "tools", flags: []string{"listChanged"}},
		{key: "tasks", since: V20251125},
	}
	clientCapabilityMembers = []capabilityRule{
		{key: "experimental"},
		{key: "roots", flags: []string{"listChanged"}},
		{key: "sampling"},
		{key: "elicitation", since: V20250618},
		{key: "tasks", since: V20251125},
	}
)

// capabilityShapes flags a declared capability that is not an object, or
// a flag of it that is not a boolean: SDKs reject such a handshake, and a
// "tools": true says nothing schema.ts gives a meaning to.
func (j *Judge) capabilityShapes(f *wire.Frame, code, where string, caps val, rules []capabilityRule) {
	if !caps.isObject() {
		return // said already: capabilities must be an object
	}
	for _, r := range rules {
		if r.since != "" && !j.versionAtLeast(r.since) {
			continue
		}
		c := caps.get(r.key)
		switch {
		case !c.present():
		case !c.isObject():
			raise(f, code, "%s.%s is %s; a capability is an object ({} when it has no options)", where, r.key, c.kindName())
		default:
			for _, flag := range r.flags {
				if v := c.get(flag); v.present() && v.kind() != kBool {
					raise(f, code, "%s.%s.%s is %s; it must be a boolean", where, r.key, flag, v.kindName())
				}
			}
		}
	}
}

// pingRefused flags a ping answered with an error: "The receiver MUST
// respond promptly with an empty response" (every legacy revision; ping is
// gone from 2026-07-28).
func (j *Judge) pingRefused(f *wire.Frame, who string) {
	j.ran(famShapes)
	raise(f, "ping-refused", "the %s answered ping with error %d (%s) instead of an empty result: a peer that pings to keep the connection alive may drop it", who, f.Msg.ErrorCode(), f.Msg.ErrorMessage())
}

// legacyLogLevel flags a log message below the level the client set with
// logging/setLevel: "The server should send all logs at this level and
// higher (i.e., more severe)" (schema.ts SetLevelRequestParams.level).
// Only messages after the server accepted the level are judged.
func (j *Judge) legacyLogLevel(f *wire.Frame, params *obj) {
	set, ok := logLevels[j.logLevel]
	if !ok {
		return
	}
	level, _ := params.get("level").str()
	if lv, ok := logLevels[level]; ok && lv < set {
		raise(f, "log-below-level", "the server sent a %q log message after the client set the level to %q with logging/setLevel", level, j.logLevel)
	}
}

// samplingToolTurns judges the tool turns of a sampling conversation
// (2025-11-25, Client › Sampling › Message Content Constraints): a user
// message that carries tool results carries nothing else, and an assistant
// message that uses tools is followed at once by a user message of their
// results, every tool use matched by its toolUseId. An assistant message of
// tool uses that ends the conversation is not judged: nothing follows it.
func samplingToolTurns(f *wire.Frame, msgs val, where string) {
	var pending []string // the tool use ids of the message before, when it used tools
	pendingAt := -1
	msgs.elems(func(i int, m val) bool {
		role, _ := m.get("role").str()
		var results, uses, others int
		var ids []string
		var answered = map[string]bool{}
		blocks := func(fn func(b val)) {
			c := m.get("content")
			if c.isArray() {
				c.elems(func(_ int, b val) bool { fn(b); return true })
			} else if c.isObject() {
				fn(c)
			}
		}
		blocks(func(b val) {
			switch t, _ := b.get("type").str(); t {
			case "tool_result":
				results++
				if id, ok := b.get("toolUseId").str(); ok {
					answered[id] = true
				}
			case "tool_use":
				uses++
				if id, ok := b.get("id").str(); ok {
					ids = append(ids, id)
				}
			default:
				others++
			}
		})
		if role == "user" && results > 0 && (others > 0 || uses > 0) {
			raise(f, "sampling-tool-results-invalid", "%s.messages[%d] mixes tool results with other content; a user message that carries tool results must carry only tool results", where, i)
			return false
		}
		if pendingAt >= 0 {
			if role != "user" || results == 0 || others > 0 || uses > 0 {
				raise(f, "sampling-tool-results-invalid", "%s.messages[%d] uses tools, but messages[%d] is not a user message of their results; every tool use must be answered by a tool result in the next message", where, pendingAt, i)
				return false
			}
			for _, id := range pending {
				if !answered[id] {
					raise(f, "sampling-tool-results-invalid", "%s.messages[%d] uses tool %q, and messages[%d] carries no tool result with toolUseId %q", where, pendingAt, id, i, id)
					return false
				}
			}
			pending, pendingAt = nil, -1
		}
		if role == "assistant" && uses > 0 {
			pending, pendingAt = ids, i
		}
		return true
	})
}

// samplingToolUseAnswer judges the host's answer to a 2025-11-25 sampling
// request (req): a model that was offered no tools, or told by toolChoice
// "none" to use none, uses none (Client › Sampling › Tool Choice Modes:
// "{mode: "none"}: Model MUST NOT use any tools").
func (j *Judge) samplingToolUseAnswer(f, req *wire.Frame, result val) {
	if createdTask(result) != nil {
		return // the answer comes by tasks/result
	}
	params := body(req).open("params")
	offered := params.get("tools").count() > 0
	mode, _ := params.get("toolChoice").get("mode").str()
	if offered && mode != "none" {
		return
	}
	used := ""
	each := func(b val) {
		if t, _ := b.get("type").str(); t == "tool_use" && used == "" {
			used, _ = b.get("name").str()
			if used == "" {
				used = "a tool"
			}
		}
	}
	if c := result.get("content"); c.isArray() {
		c.elems(func(_ int, b val) bool { each(b); return true })
	} else if c.isObject() {
		each(c)
	}
	if used == "" {
		return
	}
	j.ran(famShapes)
	why := "offered no tools"
	if offered {
		why = `told by toolChoice "none" to use none`
	}
	raise(f, "sampling-tool-use-unoffered", "the host's sampling answer uses %s, but the request %s: the server cannot run a tool call it never asked for", quoteName(used), why)
}

func quoteName(s string) string {
	if s == "a tool" {
		return s
	}
	return "tool " + strconv.Quote(s)
}
